"""Each host step alone, as a worker runs it: from its payload, on test:///.

No database row is made: a host step must work from the payload the engine built.
Each run is repeated (steps are sent again when unanswered) and each undo too.
"""

import hashlib
import uuid

import pytest

from provisioner import naming
from provisioner import virt

from flows import constants
from flows.steps import base
from flows.steps import configdrive
from flows.steps import domain
from flows.steps import image
from flows.steps import network
from flows.steps import power
from flows.steps import volume

NET = {'id': str(uuid.uuid4()), 'name': 'net1', 'cidr': '10.77.0.0/24',
       'gateway': '10.77.0.1', 'dhcp_start': '10.77.0.10', 'dhcp_end': '10.77.0.200',
       'enable_dhcp': True}
PORT = {'id': str(uuid.uuid4()), 'mac': 'fa:16:3e:00:00:01', 'ip': '10.77.0.10',
        'network': NET}


@pytest.fixture
def hypervisor(conf, tmp_path):
    node = tmp_path / 'node.xml'
    node.write_text('<node/>')
    conf.set_override('connection_uri', 'test://%s' % node, 'libvirt')
    conf.set_override('virt_type', 'qemu', 'libvirt')
    return virt.get_driver()


@pytest.fixture
def instance_id():
    return str(uuid.uuid4())


def _twice(step, payload):
    first = step.run(payload)
    assert step.run(payload) == first
    return first


def _wire(payload):
    """The payload as the worker gets it: through JSON's types."""
    return base.from_wire(type(payload), base.to_wire(payload))


@pytest.fixture
def image_payload(tmp_path):
    kernel = tmp_path / 'vmlinuz'
    kernel.write_bytes(b'kernel image')
    return image.ImagePayload(
        instance_id='x', image_id=str(uuid.uuid4()), cmdline='console=ttyS0',
        kernel_path=str(kernel), kernel_sha256=hashlib.sha256(b'kernel image').hexdigest())


def test_fetch_image_caches_the_verified_files(hypervisor, image_payload, instance_id):
    cached = _twice(image.FetchImageOnHost(), _wire(image_payload))
    assert open(cached['kernel'], 'rb').read() == b'kernel image'
    assert cached['cmdline'] == 'console=ttyS0' and 'disk' not in cached


def test_fetch_image_refuses_a_file_whose_hash_differs(hypervisor, image_payload):
    bad = image.ImagePayload(**dict(base.to_wire(image_payload), kernel_sha256='0' * 64))
    with pytest.raises(Exception, match='sha256|hash'):
        image.FetchImageOnHost().run(bad)


def test_root_disk_then_its_undo(hypervisor, instance_id):
    step = image.CreateRootDiskOnHost()
    payload = _wire(image.RootDiskPayload(instance_id, disk_gib=1))
    assert _twice(step, payload)
    assert hypervisor.leftovers(instance_id)
    undo = step.UndoPayload(instance_id)
    assert step.undo(undo, None) is None
    step.undo(undo, None)
    assert hypervisor.leftovers(instance_id) == []


def test_volumes_then_their_undo(hypervisor, instance_id):
    ids = [naming.volume_id(instance_id, index) for index in range(2)]
    made = _twice(volume.CreateVolumesOnHost(),
                  _wire(volume.CreateVolumesPayload(instance_id,
                                                    [[ids[0], 1], [ids[1], 2]])))
    assert [(v['id'], v['size_gib']) for v in made] == [(ids[0], 1), (ids[1], 2)]
    assert len(hypervisor.leftovers(instance_id, ids)) == 2
    undo = _wire(volume.VolumeIdsPayload(instance_id, ids + ['never-made']))
    volume.CreateVolumesOnHost().undo(undo, made)
    assert hypervisor.leftovers(instance_id, ids) == []
    volume.DeleteVolumesOnHost().run(undo)  # gone already: harmless


def test_dhcp_entries_then_their_undo(hypervisor, instance_id):
    payload = _wire(network.DhcpPayload(instance_id, [PORT], 'vm1'))
    _twice(network.ReserveDhcpOnHost(), payload)
    assert [e['mac'] for e in hypervisor.dhcp_hosts(NET)] == [PORT['mac']]
    network.ReserveDhcpOnHost().undo(payload, None)
    assert hypervisor.dhcp_hosts(NET) == []
    network.ReleaseDhcpOnHost().run(payload)


def test_config_drive_then_its_undo(hypervisor, instance_id):
    payload = _wire(configdrive.ConfigDrivePayload(
        instance_id, {'uuid': instance_id}, {'links': []}, 'aGVsbG8='))
    path = _twice(configdrive.BuildConfigDriveOnHost(), payload)
    assert path == hypervisor.config_drive_path(instance_id)
    configdrive.BuildConfigDriveOnHost().undo(base.InstancePayload(instance_id), path)
    assert hypervisor.leftovers(instance_id) == []


def _domain(instance_id):
    """Its root disk and DHCP entry made first, as the boot's earlier steps do."""
    network.ReserveDhcpOnHost().run(network.DhcpPayload(instance_id, [PORT]))
    root_disk = image.CreateRootDiskOnHost().run(
        image.RootDiskPayload(instance_id, disk_gib=1))
    return domain.DomainPayload(
        instance_id=instance_id, name='vm1', vcpus=1, ram_mib=128, root_disk=root_disk,
        image_files={}, volumes=[], config_drive=None, ports=[PORT])


def test_domain_define_start_wait_then_undo(hypervisor, instance_id):
    ref = base.InstancePayload(instance_id)
    _twice(domain.DefineDomainOnHost(), _wire(_domain(instance_id)))
    with pytest.raises(domain.DomainStopped):  # defined, never started
        domain.WaitForBootOnHost().run(ref)
    _twice(domain.StartDomainOnHost(), ref)
    assert domain.WaitForBootOnHost().run(ref) == 'running'
    domain.StartDomainOnHost().undo(ref, None)
    domain.DefineDomainOnHost().undo(ref, None)
    image.CreateRootDiskOnHost().undo(image.RootDiskUndoPayload(instance_id), None)
    assert hypervisor.leftovers(instance_id) == []
    domain.DestroyDomainOnHost().run(ref)  # gone already: harmless
    domain.DeleteInstanceFilesOnHost().run(ref)


def test_power_steps_and_their_undos(hypervisor, instance_id):
    ref = base.InstancePayload(instance_id)
    domain.DefineDomainOnHost().run(_domain(instance_id))
    power.PowerOnDomainOnHost().run(ref)
    assert _twice(power.PowerOffDomainOnHost(), ref) is True
    assert hypervisor.power_state(instance_id) == 'shutdown'
    power.PowerOffDomainOnHost().undo(ref, True)
    assert hypervisor.power_state(instance_id) == 'running'
    power.PowerOnDomainOnHost().undo(ref, None)
    assert hypervisor.power_state(instance_id) == 'shutdown'
    power.RebootDomainOnHost().run(_wire(power.RebootPayload(instance_id, True)))
    power.RebootDomainOnHost().undo(ref, None)
    assert hypervisor.power_state(instance_id) == 'running'


def test_an_undo_reports_what_it_could_not_remove(hypervisor, instance_id, monkeypatch):
    def refuse(self, vol_id):
        raise RuntimeError('pool gone')

    monkeypatch.setattr(type(hypervisor), 'delete_volume', refuse)
    outcome = volume.CreateVolumesOnHost().undo(
        volume.VolumeIdsPayload(instance_id, ['v1']), None)
    assert outcome == {constants.CLEANUP_FAILED: ['delete volume v1: pool gone']}


def test_a_payload_with_unknown_fields_is_refused():
    with pytest.raises(TypeError):
        base.from_wire(base.InstancePayload, {'instance_id': 'x', 'user_data': 'y'})
