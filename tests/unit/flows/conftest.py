"""Fixtures for whole-flow tests: a test:/// hypervisor and a small catalog on it."""

import pytest

from provisioner.catalog import flavors
from provisioner.catalog import images
from provisioner.network import shared as networks
from provisioner.compute import api as compute_api
from provisioner import virt
from tests import probes


@pytest.fixture
def hypervisor(conf, tmp_path):
    """The real libvirt driver on a test:/// hypervisor private to this test."""
    node = tmp_path / 'node.xml'
    node.write_text('<node/>')
    conf.set_override('connection_uri', 'test://%s' % node, 'libvirt')
    conf.set_override('virt_type', 'qemu', 'libvirt')
    return virt.get_driver()


@pytest.fixture
def catalog(hypervisor, tmp_path):
    kernel, ramdisk = tmp_path / 'vmlinuz', tmp_path / 'initrd'
    kernel.write_bytes(b'kernel image')
    ramdisk.write_bytes(b'initramfs')
    flavors.create('tiny', 1, 128, 1)
    images.create('guest', kernel=str(kernel), ramdisk=str(ramdisk))
    networks.create(hypervisor, 'net1', '10.66.0.0/24')
    return {'kernel': kernel, 'ramdisk': ramdisk}


@pytest.fixture
def api(admin_context, catalog, deployment):
    return compute_api.ComputeAPI(admin_context, deployment)


def boot_request(api, name='vm1', volumes=(1,), user_data=b'hello'):
    return api.create_instance(name, 'tiny', 'guest', ['net1'], list(volumes), user_data)


def leftovers(hypervisor, api, instance_id):
    """What the instance still owns anywhere: hypervisor, IPAM, volumes, claim."""
    from provisioner import naming
    from provisioner.network import ipam
    from provisioner.volume import volumes
    found = hypervisor.leftovers(instance_id,
                                 [naming.volume_id(instance_id, i) for i in range(4)])
    found += ['port %s' % p['ip'] for p in ipam.ports_for(instance_id)]
    found += ['volume row %s' % v['id'] for v in volumes.for_instance(instance_id)]
    if probes.has_claim(instance_id):
        found.append('claim')
    return found


def atoms(flow):
    """Every atom of a flow, its sub-flows' included (not their retry controllers)."""
    for item, _meta in flow.iter_nodes():
        if hasattr(item, 'iter_nodes'):
            yield from atoms(item)
        else:
            yield item


def run_until(engine, step):
    """Run a loaded flow engine until ``step`` ends, then stop as a dying process would."""
    from taskflow import states as tf_states

    def stop(state, details):
        if details['task_name'] == step:
            engine.suspend()

    engine.atom_notifier.register(tf_states.SUCCESS, stop)
    engine.run()
    assert engine.storage.get_flow_state() == tf_states.SUSPENDED
