"""The device of a volume attachment: reserved by POST os-volume_attachments (Nova's
reservation), then shown by the list, the volume and the domain alike."""

import types
import uuid

import pytest

from provisioner.db import api as db_api
from provisioner import exception
from provisioner import virt
from provisioner.volume import devices
from tests.unit.api.test_servers import call
from tests.unit.api.test_volume_service import application  # noqa: F401 (fixture)
from tests.unit.api.test_volume_service import attach
from tests.unit.api.test_volume_service import attachments_path
from tests.unit.api.test_volume_service import boot
from tests.unit.api.test_volume_service import create
from tests.unit.api.test_volume_service import show
from tests.unit.api.test_volume_service import vcloud  # noqa: F401 (fixture)
from tests import probes


def test_attach_reserves_the_device(application, vcloud):  # noqa: F811
    """POST answers the device (Nova's reservation), which the list, the volume and
    the domain then show: the first free vdX (vda the root, vdb the config drive),
    or the one asked for if free; a malformed one is 400 and changes nothing."""
    server_id = boot(vcloud)
    first, second, third, fourth = (create(application, vcloud, size=1)['id']
                                    for _ in range(4))
    driver = virt.get_driver()
    bad = attach(application, vcloud, server_id, first, device='/mnt/x')
    assert bad.status_int == 400 and 'device' in bad.json['badRequest']['message']
    assert show(application, vcloud, first)['status'] == 'available'
    answers = [attach(application, vcloud, server_id, first),
               attach(application, vcloud, server_id, second, device='/dev/vdf'),
               attach(application, vcloud, server_id, third, device='/dev/sdc'),
               attach(application, vcloud, server_id, fourth, device='/dev/vdf')]
    devices = [a.json['volumeAttachment']['device'] for a in answers]
    # vdc is taken by the first, vdf by the second: asked for again, the next free.
    assert devices == ['/dev/vdc', '/dev/vdf', '/dev/vdd', '/dev/vde']
    listed = call(application, 'GET', attachments_path(server_id),
                  token=vcloud['token']).json['volumeAttachments']
    assert {a['volumeId']: a['device'] for a in listed} == dict(
        zip((first, second, third, fourth), devices))
    for volume_id, device in zip((first, second, third, fourth), devices):
        assert probes.volume_attached(driver, server_id, volume_id) == device
        assert show(application, vcloud, volume_id)['attachments'][0]['device'] \
            == device
    # Detached, its device is free again for the next attach.
    call(application, 'DELETE', attachments_path(server_id, first),
         token=vcloud['token'])
    again = attach(application, vcloud, server_id, first)
    assert again.json['volumeAttachment']['device'] == '/dev/vdc'


def test_the_boot_volumes_and_a_virtio_config_drive_are_held(conf):
    """vda the root, vdb and vdc the volumes made with the boot, vdd the config
    drive (on virtio only); a requested name takes the root's prefix, as Nova's."""
    inst = types.SimpleNamespace(id=str(uuid.uuid4()),
                                 request_spec={'volume_sizes': [1, 2]})
    with db_api.transaction() as session:
        assert devices.reserve(session, inst) == '/dev/vde'
        assert devices.reserve(session, inst, '/dev/vdb') == '/dev/vde'
        assert devices.reserve(session, inst, '/dev/xvdz1') == '/dev/vdz'
        with pytest.raises(exception.Invalid):
            devices.reserve(session, inst, 'vdb')
    conf.set_override('config_drive_bus', 'ide', 'libvirt')
    with db_api.transaction() as session:
        assert devices.reserve(session, inst) == '/dev/vdd'
