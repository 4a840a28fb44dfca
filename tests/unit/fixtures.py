"""Rows the unit tests build on: hosts, a flavor, an image, a network, an instance."""

import uuid

from provisioner.catalog import hosts
from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner.db import models


def add_host(name, vcpus=4, memory_mib=4096, disk_gib=100):
    hosts.report_capacity(name, {'vcpus': vcpus, 'memory_mib': memory_mib,
                                 'disk_gib': disk_gib, 'hypervisor_type': 'qemu',
                                 'arch': 'x86_64'})
    with db_api.transaction() as session:
        session.query(models.Host).filter_by(name=name).update(
            {'cpu_allocation_ratio': 1.0})


def add_network(name='net1', cidr='10.77.0.0/29', start='10.77.0.2', end='10.77.0.4'):
    net = models.Network(id=str(uuid.uuid4()), name=name, cidr=cidr, gateway='10.77.0.1',
                         dhcp_start=start, dhcp_end=end)
    with db_api.transaction() as session:
        session.add(net)
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
