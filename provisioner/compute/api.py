"""The compute API: validate a request, record it, run its flow, answer queries.

This is the engine API of the documented flow (steps 6-7 and the queries after it).
All-in-one, the CLI calls it in-process and the boot flow runs here; the distributed
engine serves the same class over RPC and hands the flow to a conductor instead.
"""

import os
import subprocess
import sys
import uuid

import sqlalchemy as sa

from provisioner.catalog import common
from provisioner.catalog import hosts
from provisioner.compute import instances
from provisioner.compute import states
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.engine import runner
from provisioner import exception
from provisioner.network import ipam
from provisioner import validation
from provisioner import virt
from provisioner.volume import volumes

from taskflow import states as tf_states

MAX_VOLUME_GIB = 1024
MAX_VOLUMES = 8


class ComputeAPI:
    """Instance operations on behalf of one authenticated RequestContext."""

    def __init__(self, context):
        self.context = context

    # -- lookups ---------------------------------------------------------------

    def _find(self, session, name_or_id):
        """The caller's live instance; another project's is 'not found', not 'denied'.

        Names resolve within the caller's project only (two projects may both have a
        'web1'); an admin reaches another project's instance by its id.
        """
        inst = models.Instance
        own = inst.project_id == self.context.project_id
        by_id = inst.id == name_or_id
        if not self.context.is_admin:
            by_id = sa.and_(by_id, own)
        query = sa.select(inst).where(inst.vm_state != states.DELETED,
                                      sa.or_(by_id, sa.and_(inst.name == name_or_id, own)))
        rows = session.execute(query).scalars().all()
        if not rows:
            raise exception.NotFound(kind='Instance', name=name_or_id)
        if len(rows) > 1:
            raise exception.Conflict(reason='More than one instance is named %s; use '
                                            'its id.' % name_or_id)
        return rows[0]

    def _instance_id(self, name_or_id):
        with db_api.transaction() as session:
            return self._find(session, name_or_id).id

    def list(self, all_projects=False):
        inst = models.Instance
        query = sa.select(inst).where(inst.vm_state != states.DELETED)
        if not (all_projects and self.context.is_admin):
            query = query.where(inst.project_id == self.context.project_id)
        with db_api.transaction() as session:
            rows = session.execute(query.order_by(inst.created_at)).scalars().all()
            ids = [row.id for row in rows]
        return [self._describe(instance_id) for instance_id in ids]

    def show(self, name_or_id):
        return self._describe(self._instance_id(name_or_id))

    def _describe(self, instance_id):
        with db_api.transaction() as session:
            row = instances.get_row(session, instance_id)
            flavor = session.get(models.Flavor, row.flavor_id)
            image = session.get(models.Image, row.image_id)
            info = {'id': row.id, 'name': row.name, 'project_id': row.project_id,
                    'vm_state': row.vm_state, 'task_state': row.task_state,
                    'power_state': row.power_state, 'host': row.host,
                    'flavor': flavor.name, 'image': image.name, 'fault': row.fault,
                    'created_at': row.created_at.isoformat(timespec='seconds')}
        info['addresses'] = [{'network': p['network']['name'], 'ip': p['ip'],
                              'mac': p['mac']} for p in ipam.ports_for(instance_id)]
        info['volumes'] = volumes.for_instance(instance_id)
        # The driver only computes the path here; it does not connect to libvirt.
        info['console_log'] = virt.get_driver().console_log_path(instance_id)
        info['events'] = instances.events(instance_id)
        return info

    def console(self, name_or_id):
        path = virt.get_driver().console_log_path(self._instance_id(name_or_id))
        if not os.path.exists(path):
            raise exception.NotFound(kind='Console log of instance', name=name_or_id)
        return path

    # -- boot ------------------------------------------------------------------

    def _validate_boot(self, session, name, flavor, image, networks, volume_sizes,
                       user_data):
        validation.name(name, 'instance name')
        if not networks:
            raise exception.Invalid(reason='boot needs at least one --network')
        if len(volume_sizes) > MAX_VOLUMES:
            raise exception.Invalid(reason='at most %d volumes per instance'
                                           % MAX_VOLUMES)
        for size in volume_sizes:
            validation.positive_int(size, 'volume size (GiB)', MAX_VOLUME_GIB)
        if user_data is not None and len(user_data) > CONF.compute.max_user_data_bytes:
            raise exception.Invalid(reason='user data is %d bytes; the limit is %d'
                                           % (len(user_data),
                                              CONF.compute.max_user_data_bytes))
        flavor_row = common.find(session, models.Flavor, flavor, 'Flavor')
        image_row = common.find(session, models.Image, image, 'Image')
        network_ids = [common.find(session, models.Network, n, 'Network').id
                       for n in networks]
        if len(set(network_ids)) != len(network_ids):
            raise exception.Invalid(reason='a network may be given only once')
        taken = session.execute(sa.select(models.Instance.id).where(
            models.Instance.name == name,
            models.Instance.project_id == self.context.project_id,
            models.Instance.vm_state != states.DELETED)).first()
        if taken:
            raise exception.Conflict(reason='An instance named %s already exists in '
                                            'project %s.'
                                            % (name, self.context.project_name))
        return flavor_row, image_row, network_ids

    def create_instance(self, name, flavor, image, networks, volume_sizes=(),
                        user_data=None):
        """Validate and record a boot request with its not-yet-started flow."""
        self.context.require_role('admin', 'member')
        volume_sizes = list(volume_sizes)
        # Asking the hypervisor first means "libvirtd is down" creates nothing.
        driver = virt.get_driver()
        driver.check_state_path()
        hosts.report_capacity(CONF.host, driver.capacity())
        instance_id, flow_uuid = str(uuid.uuid4()), str(uuid.uuid4())
        with db_api.transaction() as session:
            flavor_row, image_row, network_ids = self._validate_boot(
                session, name, flavor, image, networks, volume_sizes, user_data)
            session.add(models.Instance(
                id=instance_id, name=name, project_id=self.context.project_id,
                user_id=self.context.user_id, flavor_id=flavor_row.id,
                image_id=image_row.id, user_data=user_data,
                request_spec={'network_ids': network_ids, 'volume_sizes': volume_sizes},
                vm_state=states.BUILDING, task_state=None, power_state=states.NOSTATE,
                flow_uuid=flow_uuid))
        runner.prepare_boot(instance_id, flow_uuid)
        return instance_id

    def run_boot(self, instance_id, progress=None, rollback=False):
        with db_api.transaction() as session:
            flow_uuid = instances.get_row(session, instance_id).flow_uuid
        runner.run_boot(instance_id, flow_uuid, progress=progress, rollback=rollback)
        return self._describe(instance_id)

    def start_in_background(self, instance_id, log_path):
        """Run the boot flow in a detached process (boot --no-wait)."""
        os.makedirs(os.path.dirname(log_path), mode=0o700, exist_ok=True)
        args = [sys.executable, '-m', 'provisioner.cmd.cli']
        for config_file in CONF.config_file or []:
            args += ['--config-file', config_file]
        args += ['_run-boot', instance_id]
        with open(log_path, 'ab') as log:
            subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                             start_new_session=True, env=dict(os.environ))

    # -- resume, rollback, delete --------------------------------------------------

    def _resumable(self, name_or_id, action):
        with db_api.transaction() as session:
            row = self._find(session, name_or_id)
            instance_id, vm_state, flow_uuid = row.id, row.vm_state, row.flow_uuid
        flow_state = runner.boot_flow_state(flow_uuid) if flow_uuid else None
        if vm_state != states.BUILDING or flow_state in (tf_states.SUCCESS,
                                                        tf_states.REVERTED):
            raise exception.Conflict(
                reason='Instance %s is %s: only an interrupted boot can be %s.%s'
                       % (name_or_id, vm_state, action,
                          ' Delete it instead.' if vm_state == states.ERROR else ''))
        return instance_id

    def resume(self, name_or_id, progress=None):
        self.context.require_role('admin', 'member')
        return self.run_boot(self._resumable(name_or_id, 'resumed'), progress)

    def rollback(self, name_or_id, progress=None):
        self.context.require_role('admin', 'member')
        instance_id = self._resumable(name_or_id, 'rolled back')
        return self.run_boot(instance_id, progress, rollback=True)

    def delete(self, name_or_id, progress=None, on_wait=None):
        self.context.require_role('admin', 'member')
        instance_id = self._instance_id(name_or_id)
        runner.run_delete(instance_id, progress, on_wait)
        return self._describe(instance_id)
