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
from flows.host import base
from flows.host import configdrive_steps
from flows.host import domain_steps
from flows.host import image_steps
from flows.host import network_steps
from flows.host import power_steps
from flows.host import volume_steps

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
def image(tmp_path):
    kernel = tmp_path / 'vmlinuz'
    kernel.write_bytes(b'kernel image')
    return image_steps.ImagePayload(
        instance_id='x', image_id=str(uuid.uuid4()), cmdline='console=ttyS0',
        kernel_path=str(kernel), kernel_sha256=hashlib.sha256(b'kernel image').hexdigest())


def test_fetch_image_caches_the_verified_files(hypervisor, image, instance_id):
    cached = _twice(image_steps.FetchImage(), _wire(image))
    assert open(cached['kernel'], 'rb').read() == b'kernel image'
    assert cached['cmdline'] == 'console=ttyS0' and 'disk' not in cached


def test_fetch_image_refuses_a_file_whose_hash_differs(hypervisor, image):
    bad = image_steps.ImagePayload(**dict(base.to_wire(image), kernel_sha256='0' * 64))
    with pytest.raises(Exception, match='sha256|hash'):
        image_steps.FetchImage().run(bad)


def test_root_disk_then_its_undo(hypervisor, instance_id):
    step = image_steps.CreateRootDisk()
    payload = _wire(image_steps.RootDiskPayload(instance_id, disk_gib=1))
    assert _twice(step, payload)
    assert hypervisor.leftovers(instance_id)
    undo = step.UndoPayload(instance_id)
    assert step.undo(undo, None) is None
    step.undo(undo, None)
    assert hypervisor.leftovers(instance_id) == []


def test_volumes_then_their_undo(hypervisor, instance_id):
    ids = [naming.volume_id(instance_id, index) for index in range(2)]
    made = _twice(volume_steps.CreateVolumes(),
                  _wire(volume_steps.CreateVolumesPayload(instance_id,
                                                          [[ids[0], 1], [ids[1], 2]])))
    assert [(v['id'], v['size_gib']) for v in made] == [(ids[0], 1), (ids[1], 2)]
    assert len(hypervisor.leftovers(instance_id, ids)) == 2
    undo = _wire(volume_steps.VolumeIdsPayload(instance_id, ids + ['never-made']))
    volume_steps.CreateVolumes().undo(undo, made)
    assert hypervisor.leftovers(instance_id, ids) == []
    volume_steps.DeleteVolumes().run(undo)  # gone already: harmless


def test_dhcp_entries_then_their_undo(hypervisor, instance_id):
    payload = _wire(network_steps.DhcpPayload(instance_id, [PORT], 'vm1'))
    _twice(network_steps.ReserveDhcp(), payload)
    assert [e['mac'] for e in hypervisor.dhcp_hosts(NET)] == [PORT['mac']]
    network_steps.ReserveDhcp().undo(payload, None)
    assert hypervisor.dhcp_hosts(NET) == []
    network_steps.ReleaseDhcp().run(payload)


def test_config_drive_then_its_undo(hypervisor, instance_id):
    payload = _wire(configdrive_steps.ConfigDrivePayload(
        instance_id, {'uuid': instance_id}, {'links': []}, 'aGVsbG8='))
    path = _twice(configdrive_steps.BuildConfigDrive(), payload)
    assert path == hypervisor.config_drive_path(instance_id)
    configdrive_steps.BuildConfigDrive().undo(base.InstancePayload(instance_id), path)
    assert hypervisor.leftovers(instance_id) == []


def _domain(instance_id):
    """Its root disk and DHCP entry made first, as the boot's earlier steps do."""
    network_steps.ReserveDhcp().run(network_steps.DhcpPayload(instance_id, [PORT]))
    root_disk = image_steps.CreateRootDisk().run(
        image_steps.RootDiskPayload(instance_id, disk_gib=1))
    return domain_steps.DomainPayload(
        instance_id=instance_id, name='vm1', vcpus=1, ram_mib=128, root_disk=root_disk,
        image_files={}, volumes=[], config_drive=None, ports=[PORT])


def test_domain_define_start_wait_then_undo(hypervisor, instance_id):
    ref = base.InstancePayload(instance_id)
    _twice(domain_steps.DefineDomain(), _wire(_domain(instance_id)))
    with pytest.raises(domain_steps.DomainStopped):  # defined, never started
        domain_steps.WaitForBoot().run(ref)
    _twice(domain_steps.StartDomain(), ref)
    assert domain_steps.WaitForBoot().run(ref) == 'running'
    domain_steps.StartDomain().undo(ref, None)
    domain_steps.DefineDomain().undo(ref, None)
    image_steps.CreateRootDisk().undo(image_steps.CreateRootDisk.UndoPayload(instance_id),
                                      None)
    assert hypervisor.leftovers(instance_id) == []
    domain_steps.DestroyDomain().run(ref)  # gone already: harmless
    domain_steps.DeleteInstanceFiles().run(ref)


def test_power_steps_and_their_undos(hypervisor, instance_id):
    ref = base.InstancePayload(instance_id)
    domain_steps.DefineDomain().run(_domain(instance_id))
    power_steps.PowerOnDomain().run(ref)
    assert _twice(power_steps.PowerOffDomain(), ref) is True
    assert hypervisor.power_state(instance_id) == 'shutdown'
    power_steps.PowerOffDomain().undo(ref, True)
    assert hypervisor.power_state(instance_id) == 'running'
    power_steps.PowerOnDomain().undo(ref, None)
    assert hypervisor.power_state(instance_id) == 'shutdown'
    power_steps.RebootDomain().run(_wire(power_steps.RebootPayload(instance_id, True)))
    power_steps.RebootDomain().undo(ref, None)
    assert hypervisor.power_state(instance_id) == 'running'


def test_an_undo_reports_what_it_could_not_remove(hypervisor, instance_id, monkeypatch):
    def refuse(self, vol_id):
        raise RuntimeError('pool gone')

    monkeypatch.setattr(type(hypervisor), 'delete_volume', refuse)
    outcome = volume_steps.CreateVolumes().undo(
        volume_steps.VolumeIdsPayload(instance_id, ['v1']), None)
    assert outcome == {constants.CLEANUP_FAILED: ['delete volume v1: pool gone']}


def test_a_payload_with_unknown_fields_is_refused():
    with pytest.raises(TypeError):
        base.from_wire(base.InstancePayload, {'instance_id': 'x', 'user_data': 'y'})
