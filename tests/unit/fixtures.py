"""What the unit tests build on: hosts, a flavor, an image, a network, an instance;
a deployment whose flows run in the test."""

import dataclasses
import uuid

from provisioner.catalog import hosts
from provisioner.compute import instances
from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.engine import deployments
from provisioner.engine import runner
from provisioner.engine import volume_flows


class InlineDispatcher:
    """Runs each accepted flow to its end inside the request, so a test sees the
    state a user would see once the flow is done."""

    def boot(self, instance_id, rollback=False):
        with db_api.transaction() as session:
            flow_uuid = instances.get_row(session, instance_id).flow_uuid
        runner.run_boot(instance_id, flow_uuid, rollback=rollback)

    def resume(self, instance_id):
        self.boot(instance_id)

    def rollback(self, instance_id):
        self.boot(instance_id, rollback=True)

    def delete(self, instance_id):
        runner.run_delete(instance_id)

    def run_action(self, instance_id, action_id):
        runner.run_action(instance_id, action_id)

    def volume_delete(self, volume_id):
        runner.run_volume_delete(volume_id)

    def volume_flow(self, kind, resource_id):
        volume_flows.run(kind, resource_id)


def deployment(dispatcher=None):
    """The test's all-in-one deployment: flows in this process, the hypervisor the
    test's libvirt driver (make it after the test set [libvirt] connection_uri)."""
    return dataclasses.replace(deployments.all_in_one(), dispatcher=dispatcher)


def with_dispatcher(application, dispatcher):
    """Have the API application hand its flows to ``dispatcher`` from now on."""
    application.deployment = dataclasses.replace(application.deployment,
                                                 dispatcher=dispatcher)


def add_host(name, vcpus=4, memory_mib=4096, disk_gib=100):
    hosts.report_capacity(name, {'vcpus': vcpus, 'memory_mib': memory_mib,
                                 'disk_gib': disk_gib, 'hypervisor_type': 'qemu',
                                 'arch': 'x86_64'})
    with db_api.transaction() as session:
        session.query(models.Host).filter_by(name=name).update(
            {'cpu_allocation_ratio': 1.0})


def add_network(name='net1', cidr='10.77.0.0/29', start='10.77.0.2', end='10.77.0.4'):
    net = models.Network(id=str(uuid.uuid4()), name=name)
    with db_api.transaction() as session:
        session.add(net)
        session.add(models.Subnet(id=str(uuid.uuid4()), network_id=net.id, cidr=cidr,
                                  gateway='10.77.0.1', dhcp_start=start, dhcp_end=end))
    return net.id


def add_instance(context, network_ids=(), volume_sizes=(), name='vm1'):
    """An instance row as the compute API records it, ready for a flow."""
    with db_api.transaction() as session:
        flavor = models.Flavor(id=str(uuid.uuid4()), name='f-' + name, vcpus=1,
                               ram_mib=128, disk_gib=1)
        image = models.Image(id=str(uuid.uuid4()), name='i-' + name, size_bytes=0)
        session.add_all([flavor, image])
        session.flush()
        instance = models.Instance(
            id=str(uuid.uuid4()), name=name, project_id=context.project_id,
            user_id=context.user_id, flavor_id=flavor.id, image_id=image.id,
            request_spec={'network_ids': list(network_ids),
                          'volume_sizes': list(volume_sizes)},
            vm_state=states.BUILDING, power_state=states.NOSTATE)
        session.add(instance)
    return instance.id
