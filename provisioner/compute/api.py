"""The compute API: validate a request, record it, run its flow, answer queries.

This is the engine API of the documented flow (steps 6-7 and the queries after it).
provisioner-api calls it for every compute request, and the all-in-one CLI calls it
in-process: the one door to compute. It records each request (the instance or its
state, the instance action and the uuid of the flow that will carry it out), from
which whoever runs the flow builds and persists it (provisioner.engine.runner):
the caller all-in-one, else the deployment's dispatcher (provisioner.deployment).
"""

import uuid

import sqlalchemy as sa

from provisioner.catalog import common
from provisioner.catalog import flavors
from provisioner.catalog import hosts
from provisioner.catalog import images
from provisioner.compute import actions
from provisioner.compute import boot_volumes
from provisioner.compute import instances
from provisioner.compute import listing
from provisioner.compute import locks
from provisioner.compute import migrations
from provisioner.compute import power
from provisioner.compute import rebuild
from provisioner.quota import counters
from provisioner.compute import server_groups
from provisioner.compute import server_changes
from provisioner.compute import server_metadata
from provisioner.compute import server_tags
from provisioner.compute import states
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import leftovers
from provisioner import naming
from provisioner.network import ipam
from provisioner.network import requests as network_requests
from provisioner.network import security_groups as network_security_groups
from provisioner import policy
from provisioner import schemas
from provisioner import validation

from taskflow import states as tf_states

_PAST = {'resume': 'resumed', 'rollback': 'rolled back'}
class ComputeAPI(server_changes.ServerChanges):
    """Instance operations on behalf of one authenticated RequestContext, in one
    deployment (provisioner.deployment.Deployment: its runner runs the flows of the
    all-in-one CLI's requests in the caller; all-in-one its hypervisor is this
    host's)."""

    def __init__(self, context, deployment):
        self.context = context
        self.deployment = deployment
        # The compute layer sits below the engine: the deployment hands its runner in.
        self._flows = deployment.runner

    # -- lookups ---------------------------------------------------------------

    def _find(self, session, name_or_id, action, deleted=False):
        """The caller's live instance, if policy allows ``action`` on it.

        Another project's instance is 'not found', not 'denied'. Names resolve within
        the caller's project only (two projects may both have a 'web1'); an admin
        reaches another project's instance by its id.
        """
        inst = models.Instance
        own = inst.project_id == self.context.project_id
        by_id = inst.id == name_or_id
        if not self.context.is_admin:
            by_id = sa.and_(by_id, own)
        if deleted:  # a deleted instance is reachable by its id only (as Nova's)
            query = sa.select(inst).where(by_id)
        else:
            query = sa.select(inst).where(
                inst.vm_state != states.DELETED,
                sa.or_(by_id, sa.and_(inst.name == name_or_id, own)))
        rows = session.execute(query).scalars().all()
        if not rows:
            raise exception.NotFound(kind='Instance', name=name_or_id)
        if len(rows) > 1:
            raise exception.Conflict(reason='More than one instance is named %s; use '
                                            'its id.' % name_or_id)
        policy.authorize_owned(self.context, action, rows[0].project_id, 'Instance',
                               name_or_id)
        return rows[0]

    def _instance_id(self, name_or_id, action, deleted=False):
        with db_api.transaction() as session:
            return self._find(session, name_or_id, action, deleted).id

    def list(self, all_projects=False):
        policy.authorize(self.context, 'instance:list')
        inst = models.Instance
        query = sa.select(inst).where(inst.vm_state != states.DELETED)
        if all_projects:
            policy.authorize(self.context, 'instance:list:all_projects')
        else:
            query = query.where(inst.project_id == self.context.project_id)
        with db_api.transaction() as session:
            rows = session.execute(query.order_by(inst.created_at)).scalars().all()
            ids = [row.id for row in rows]
        return [self._describe(instance_id) for instance_id in ids]

    def show(self, name_or_id):
        return self._describe(self._instance_id(name_or_id, 'instance:show'))

    def server_records(self, all_projects=False, **filters):
        """Servers as the compute API lists them (provisioner.compute.listing)."""
        policy.authorize(self.context, 'instance:list')
        if all_projects:
            policy.authorize(self.context, 'instance:list:all_projects')
        return listing.server_records(self.context, all_projects, **filters)

    def server_record(self, instance_id):
        """One server by id (the compute API takes no names): another project's is
        'not found' unless the policy lets the caller see it."""
        found = listing.server_records(self.context, all_projects=True, id=instance_id)
        if not found:
            raise exception.NotFound(kind='Instance', name=instance_id)
        policy.authorize_owned(self.context, 'instance:show', found[0]['project_id'],
                               'Instance', instance_id)
        return found[0]

    def _describe(self, instance_id):
        with db_api.transaction() as session:
            row = instances.get_row(session, instance_id)
            flavor = session.get(models.Flavor, row.flavor_id)
            image = session.get(models.Image, row.image_id)
            row_spec = row.request_spec
            info = {'id': row.id, 'name': row.name, 'project_id': row.project_id,
                    'user_id': row.user_id, 'status': states.api_status(
                        row.vm_state, row.task_state),
                    'vm_state': row.vm_state, 'task_state': row.task_state,
                    'power_state': row.power_state, 'host': row.host,
                    # A deleted server's flavor and image may be gone since.
                    'flavor': flavor.name if flavor else '', 'flavor_id': row.flavor_id,
                    'image': (image.name or '') if image else '', 'image_id': row.image_id,
                    'fault': row.fault,
                    'key_name': row.key_name, 'metadata': dict(row.properties or {}),
                    'availability_zone': (row.request_spec or {}).get(
                        'availability_zone'),
                    'created_at': row.created_at.isoformat(timespec='seconds'),
                    'updated_at': row.updated_at.isoformat(timespec='seconds'),
                    'launched_at': (row.launched_at.isoformat(timespec='seconds')
                                    if row.launched_at else None)}
        # Where the host reported it (distributed, another machine's path).
        console_log = (row_spec or {}).get('console_log')
        info['addresses'] = [{'network': p['network']['name'], 'ip': p['ip'],
                              'mac': p['mac']} for p in ipam.ports_for(instance_id)]
        info['volumes'] = instances.volumes_of(instance_id)
        # Before the host defined the domain: where it will be all-in-one (the
        # driver only computes the path here; it does not connect to libvirt).
        info['console_log'] = console_log or self._local_console_log(instance_id)
        info['events'] = instances.events(instance_id)
        # What a failed cleanup left on a host, until an audit --fix removes it.
        info['leftovers'] = leftovers.list_open(instance_id=instance_id)
        return info

    # -- boot ------------------------------------------------------------------

    def _key_pair(self, session, key_name):
        """The caller's key pair ``key_name`` (Nova: key pairs belong to users)."""
        if key_name is None:
            return None
        key = session.execute(sa.select(models.KeyPair).where(
            models.KeyPair.user_id == self.context.user_id,
            models.KeyPair.name == key_name)).scalar()
        if key is None:
            raise exception.Invalid(reason='key pair %s does not exist for user %s'
                                           % (key_name, self.context.user_name))
        return key

    def _validate_boot(self, session, flavor, image, networks):
        flavor_row = common.find(session, models.Flavor, flavor, 'Flavor')
        if not flavors.usable(session, self.context, flavor_row):
            raise exception.NotFound(kind='Flavor', name=flavor)  # Nova's 400 too
        if flavor_row.ephemeral_gib or flavor_row.swap_mib:
            raise exception.Invalid(reason='flavor %s has an ephemeral or swap disk: '
                                           'provisioner builds a guest with its root '
                                           'disk (and volumes) only' % flavor_row.name)
        image_row = common.find(session, models.Image, image, 'Image')
        images.check_bootable(self.context, image_row)
        nics = [network_requests.resolve(session, self.context, n) for n in networks]
        network_ids = [nic['network_id'] for nic in nics]
        if len(set(network_ids)) != len(network_ids):
            raise exception.Invalid(reason='network: each may be given only once')
        # Names need not be unique, as Nova's: a name that is several servers'
        # resolves to none of them (_find), their ids do.
        return flavor_row, image_row, nics

    def _validate_placement(self, session, flavor_row, image_row, availability_zone,
                            volume_backed=False):
        # Nova's FlavorMemoryTooSmall and FlavorDiskSmallerThanMinDisk (400); a root
        # on a volume is checked against min_disk by its size, not the flavor's disk.
        for needed, have, what, part in (
                (image_row.min_ram_mib, flavor_row.ram_mib, 'MiB RAM', 'memory'),
                (0 if volume_backed else image_row.min_disk_gib, flavor_row.disk_gib,
                 'GiB disk', 'disk')):
            if needed and have < needed:
                raise exception.Invalid(reason='Flavor\'s %s is too small for requested '
                                               'image: image %s needs at least %d %s; '
                                               'flavor %s has %d'
                                               % (part, image_row.name, needed, what,
                                                  flavor_row.name, have))
        if availability_zone is not None and not session.execute(
                sa.select(models.Host.id).where(
                    models.Host.availability_zone == availability_zone)).first():
            raise exception.Invalid(reason='no host is in availability zone %s'
                                           % availability_zone)

    def _record_scheduling(self, session, instance_id, flavor_row, volume_sizes,
                           server_group):
        """Quota and server group, in the transaction that records the instance."""
        session.flush()  # the instance row first: both reference it
        group_id = None
        if server_group is not None:
            group_id = server_groups.add_member(session, self.context, server_group,
                                                instance_id)
        counters.reserve(session, self.context.project_id, instance_id,
                         counters.amounts_for(flavor_row.vcpus, flavor_row.ram_mib,
                                              volume_sizes),
                         project_name=self.context.project_name)
        return group_id

    def create_instance(self, name, flavor, image, networks, volume_sizes=(),
                        user_data=None, **options):
        """Validate and record a boot request with its not-yet-started flow; the
        instance's id. ``options``: those of create_instances."""
        return self.create_instances(name, flavor, image, networks, volume_sizes,
                                     user_data, **options)[1][0]

    def create_instances(self, name, flavor, image, networks, volume_sizes=(),
                         user_data=None, *, availability_zone=None, server_group=None,
                         properties=None, key_name=None, boot_volume=None,
                         access_ips=None, count=1, fields=None, tags=(),
                         device_tags=None, requested_host=None, security_groups=None,
                         config_drive=False):
        """Validate and record ``count`` boot requests alike, each with its
        not-yet-started flow; (their reservation id, their instance ids).

        Quota is reserved and group membership recorded in the same transaction as
        the instance rows: a refused request leaves nothing behind. Several
        instances are named ``<name>-1``, ``<name>-2``... as Nova's. ``boot_volume``
        ({'size', 'delete_on_termination'}): the root disk is a new volume, a full
        copy of the image, recorded here (see _record_boot_volume); or
        ({'volume_id'}) an existing volume, reserved here, whose image is the
        server's (``image``, if given, must be it): one instance only.
        ``access_ips``: Nova's accessIPv4/accessIPv6 ({'v4', 'v6'}); ``fields``:
        description, hostname, trusted_image_certificates; ``tags``: the servers'
        tags; ``device_tags``: {'nics': [tag or None], 'root': tag,
        'blank_volumes': [...]} as asked (the guest's meta_data.json lists them);
        ``requested_host``: the host to boot on (checked to exist);
        ``security_groups``: the groups (names or ids) the new ports carry;
        ``config_drive``: a drive asked for (else only by [compute]
        force_config_drive).
        """
        policy.authorize(self.context, 'instance:boot')
        if count < 1 or (count > 1 and boot_volume is not None):
            raise exception.Invalid(reason='a boot from a volume makes one instance, '
                                           'not %d' % count)
        existing = (boot_volume or {}).get('volume_id')
        if existing:
            with db_api.transaction() as session:
                image = self._image_of_volume(session, existing, image)
        volume_sizes = list(volume_sizes)
        server_metadata.check_count(properties)
        validation.check({
            'name': name, 'flavor': flavor, 'image': image, 'networks': networks,
            'volume_sizes': volume_sizes, 'user_data': user_data,
            'availability_zone': availability_zone, 'server_group': server_group,
            'properties': properties, 'key_name': key_name}, schemas.BOOT)
        if security_groups and 'default' in security_groups:
            network_security_groups.ensure_default(self.context.project_id)
        driver = self.deployment.hypervisor
        if driver is not None:
            # References are checked before anything is written, even the host's
            # capacity (elsewhere the transaction below checks them before its writes).
            with db_api.transaction() as session:
                self._validate_boot(session, flavor, image, networks)
                self._key_pair(session, key_name)
            # Asking the hypervisor first means "libvirtd is down" creates nothing.
            driver.check_state_path()
            hosts.report_capacity(CONF.host, driver.capacity())
        reservation_id = 'r-%s' % uuid.uuid4().hex[:8]
        names = [name] if count == 1 else ['%s-%d' % (name, index)
                                           for index in range(1, count + 1)]
        ids = []
        with db_api.transaction() as session:
            flavor_row, image_row, nics = self._validate_boot(
                session, flavor, image, networks)
            self._validate_placement(session, flavor_row, image_row, availability_zone,
                                     volume_backed=boot_volume is not None)
            key = self._key_pair(session, key_name)
            if security_groups:
                group_ids = network_security_groups.ids_for_boot(
                    session, self.context, security_groups)
                nics = [nic if nic.get('port_id') else dict(nic, security_groups=group_ids)
                        for nic in nics]
            if requested_host is not None and not session.execute(sa.select(
                    models.Host.id).where(models.Host.name == requested_host)).first():
                raise exception.NotFound(kind='Compute host', name=requested_host)
            for launch_index, instance_name in enumerate(names):
                request_spec = {'network_ids': [nic['network_id'] for nic in nics],
                                'nics': nics, 'volume_sizes': volume_sizes,
                                'availability_zone': availability_zone,
                                'reservation_id': reservation_id,
                                'launch_index': launch_index,
                                'config_drive': bool(
                                    config_drive or CONF.compute.force_config_drive)}
                if device_tags:
                    request_spec['device_tags'] = device_tags
                if requested_host:
                    request_spec['requested_host'] = requested_host
                ids.append(self._record_instance(
                    session, instance_name, flavor_row, image_row, request_spec,
                    user_data=user_data, properties=properties, key=key,
                    access_ips=access_ips, server_group=server_group,
                    existing=existing, boot_volume=boot_volume))
                row = session.get(models.Instance, ids[-1])
                for field, value in (fields or {}).items():
                    setattr(row, server_changes.SERVER_FIELDS[field], value)
                server_tags.replace(session, row.id, tags or ())
        return reservation_id, ids

    def _record_instance(self, session, name, flavor_row, image_row, request_spec, *,
                         user_data, properties, key, access_ips, server_group,
                         existing, boot_volume):
        """One instance's row, quota, group membership, boot volume and create
        action, in the caller's transaction; its id."""
        instance_id, flow_uuid = str(uuid.uuid4()), str(uuid.uuid4())
        instance = models.Instance(
            id=instance_id, name=name, project_id=self.context.project_id,
            user_id=self.context.user_id, flavor_id=flavor_row.id,
            image_id=image_row.id, user_data=user_data, request_spec=request_spec,
            properties=dict(properties) if properties is not None else None,
            key_name=key.name if key else None, key_data=key.public_key if key else None,
            vm_state=states.BUILDING, task_state=None, power_state=states.NOSTATE,
            flow_uuid=flow_uuid)
        server_changes.set_access_ips(instance, access_ips)
        session.add(instance)
        group_id = self._record_scheduling(session, instance_id, flavor_row,
                                           request_spec['volume_sizes'], server_group)
        if group_id is not None:
            instance.request_spec = dict(request_spec, server_group_id=group_id)
        if existing:
            instance.request_spec = dict(
                instance.request_spec, boot_volume=boot_volumes.reserve(
                    session, self.context, existing, instance_id))
        elif boot_volume is not None:
            instance.request_spec = dict(
                instance.request_spec, boot_volume=self._record_boot_volume(
                    session, instance_id, image_row, boot_volume))
        actions.record(session, self.context, instance_id, actions.CREATE, flow_uuid)
        return instance_id

    def _image_of_volume(self, session, volume_id, image):
        volume = boot_volumes.bootable(session, self.context, volume_id)
        if image and common.find(session, models.Image, image, 'Image').id != \
                volume.image_id:
            raise exception.Invalid(reason='volume %s was made from image %s, not %s: '
                                           'leave imageRef empty to boot from it'
                                           % (volume_id, volume.image_id, image))
        return volume.image_id

    def _record_boot_volume(self, session, instance_id, image_row, boot_volume):
        """The root volume's row (creating; the boot makes it on the chosen host),
        its gigabytes counted as any volume's; what the request spec keeps of it."""
        if not image_row.disk_path:
            raise exception.Invalid(reason='image %s has no disk to copy into a boot '
                                           'volume' % image_row.name)
        size = boot_volume['size']
        needed = max(image_row.min_disk_gib,
                     -(-(image_row.virtual_size or image_row.size_bytes) // 1024 ** 3))
        if not 1 <= size <= schemas.MAX_VOLUME_GIB or size < needed:
            raise exception.Invalid(reason='a boot volume of image %s needs %d to %d '
                                           'GiB, not %d' % (image_row.name, needed,
                                                            schemas.MAX_VOLUME_GIB, size))
        counters.count(session, self.context.project_id, {'volumes_gib': size},
                       self.context.project_name)
        volume_id = naming.boot_volume_id(instance_id)
        session.add(models.Volume(
            id=volume_id, instance_id=instance_id, project_id=self.context.project_id,
            user_id=self.context.user_id, name='', size_gib=size, status='creating',
            bootable=True, image_id=image_row.id, device=boot_volumes.ROOT_DEVICE,
            updated_at=models.utcnow()))
        return dict(boot_volume, id=volume_id)

    def run_boot(self, instance_id, progress=None, rollback=False):
        with db_api.transaction() as session:
            # Also the entry of `boot --no-wait`'s background half: check the caller.
            flow_uuid = self._find(session, instance_id, 'instance:boot').flow_uuid
        self._flows.run_boot(instance_id, flow_uuid, progress=progress,
                             rollback=rollback)
        return self._describe(instance_id)

    # -- resume, rollback, delete --------------------------------------------------

    def resumable(self, name_or_id, action):
        """The id of an interrupted boot, if policy allows ``action`` (resume, rollback).
        """
        with db_api.transaction() as session:
            row = self._find(session, name_or_id, 'instance:' + action)
            instance_id, vm_state, flow_uuid = row.id, row.vm_state, row.flow_uuid
        flow_state = self._flows.boot_flow_state(flow_uuid) if flow_uuid else None
        if vm_state != states.BUILDING or flow_state in (tf_states.SUCCESS,
                                                        tf_states.REVERTED):
            raise exception.Conflict(
                reason='Instance %s is %s: only an interrupted boot can be %s.%s'
                       % (name_or_id, vm_state, _PAST[action],
                          ' Delete it instead.' if vm_state == states.ERROR else ''))
        return instance_id

    def request(self, name_or_id, action):
        """Record a resume or rollback request of an interrupted boot; its id."""
        instance_id = self.resumable(name_or_id, action)
        with db_api.transaction() as session:
            flow_uuid = instances.get_row(session, instance_id).flow_uuid
            # Same flow as the boot: the steps run from now on are this action's
            # events, and it finishes when the boot flow does.
            actions.record(session, self.context, instance_id, action, flow_uuid)
        return instance_id

    def resume(self, name_or_id, progress=None):
        return self.run_boot(self.request(name_or_id, actions.RESUME), progress)

    def rollback(self, name_or_id, progress=None):
        instance_id = self.request(name_or_id, actions.ROLLBACK)
        return self.run_boot(instance_id, progress, rollback=True)

    def request_delete(self, name_or_id):
        """Record a delete (task_state deleting, a delete action); the instance id.

        The delete flow itself runs in the caller (CLI), a background thread
        (provisioner-api all-in-one) or an engine (distributed).
        """
        with db_api.transaction() as session:
            row = self._find(session, name_or_id, 'instance:delete')
            locks.check_unlocked(self.context, row)
            actions.record(session, self.context, row.id, actions.DELETE)
            if row.vm_state != states.BUILDING:
                # A boot in flight keeps its task_state until it ends; the delete
                # waits for it (run_delete) and then marks deleting itself.
                row.task_state = states.DELETING
            return row.id

    def delete(self, name_or_id, progress=None, on_wait=None):
        instance_id = self.request_delete(name_or_id)
        self._flows.run_delete(instance_id, progress, on_wait)
        return self._describe(instance_id)

    # -- power actions and rebuild -----------------------------------------------------

    def rebuild(self, name_or_id, image, **changes):
        """Record a rebuild onto ``image`` (provisioner.compute.rebuild);
        (instance id, action id)."""
        return rebuild.request(self, name_or_id, image, **changes)

    def live_migrate(self, name_or_id, host=None, force=False):
        """Record a live migration (provisioner.compute.migrations); (instance id,
        action id)."""
        return migrations.request(self, name_or_id, host=host, force=force)

    def power_action(self, name_or_id, action, hard=False):
        """Record a stop, start or reboot; (instance id, action id). Its flow is
        built from the action and the task_state (a hard reboot's is
        REBOOTING_HARD) by whoever runs it.

        The instance must be in a state the action applies to and have no task under
        way (Nova's 409 otherwise); the check and the new task_state are one
        conditional UPDATE, so two racing requests cannot both pass.
        """
        allowed, task_state = power.transition(action, hard)
        with db_api.transaction() as session:
            row = self._find(session, name_or_id, 'instance:%s' % action)
            locks.check_unlocked(self.context, row)
            instance_id = row.id
            taken = session.execute(
                sa.update(models.Instance)
                .where(models.Instance.id == instance_id,
                       models.Instance.vm_state.in_(allowed),
                       models.Instance.task_state.is_(None))
                .values(task_state=task_state))
            if taken.rowcount != 1:
                raise exception.Conflict(
                    reason="Cannot '%s' instance %s while it is in vm_state %s%s."
                           % (action, name_or_id, row.vm_state,
                              ', task_state %s' % row.task_state if row.task_state
                              else ''))
            flow_uuid = str(uuid.uuid4())
            action_id = actions.record(session, self.context, instance_id, action,
                                       flow_uuid)
        return instance_id, action_id
