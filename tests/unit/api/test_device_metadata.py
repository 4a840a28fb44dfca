"""Device tags reach the guest (Nova's device metadata): the config drive's
meta_data.json lists each tagged NIC and disk with the PCI address the domain gives
it, and the instance's record (for the metadata service) adds tagged attachments.
Flows run inline on libvirt's test:/// driver."""

import io
import json

from lxml import etree
import pycdlib

from provisioner.compute import device_metadata
from provisioner import naming
from provisioner import virt
from provisioner.virt.libvirt import guest as libvirt_guest

from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture
from tests.unit.api.test_servers import server_body
from tests.unit.api.test_volume_service import attachments_path
from tests.unit.api.test_volume_service import boot as boot_row
from tests.unit.api.test_volume_service import call
from tests.unit.api.test_volume_service import create
from tests.unit.api.test_volume_service import vcloud  # noqa: F401 - fixture

V242 = {'OpenStack-API-Version': 'compute 2.42'}


def _drive_meta_data(instance_id):
    iso = pycdlib.PyCdlib()
    iso.open(virt.get_driver().config_drive_path(instance_id))
    try:
        data = io.BytesIO()
        iso.get_file_from_iso_fp(data, rr_path='/openstack/latest/meta_data.json')
        return json.loads(data.getvalue())
    finally:
        iso.close()


def _domain_addresses(instance_id):
    """{mac or disk target: 'slot'} of the defined domain."""
    domain = etree.fromstring(libvirt_guest.Guest(
        virt.get_driver().connection().lookupByUUIDString(instance_id)).xml())
    found = {}
    for device in domain.find('devices'):
        address = device.find('address')
        key = (device.find('mac').get('address') if device.tag == 'interface'
               else device.find('target').get('dev') if device.tag == 'disk' else None)
        if key and address is not None:
            found[key] = address.get('slot')
    return found


def test_tagged_nics_and_disks_are_listed_at_their_domain_addresses(
        application, cloud):  # noqa: F811
    body = server_body(
        cloud, networks=[{'uuid': cloud['network'], 'tag': 'frontend'}],
        block_device_mapping_v2=[
                         {'uuid': cloud['image'], 'boot_index': 0,
                          'source_type': 'image', 'destination_type': 'local',
                          'tag': 'os'},
                         {'source_type': 'blank', 'destination_type': 'volume',
                          'volume_size': 1, 'delete_on_termination': True},
                         {'source_type': 'blank', 'destination_type': 'volume',
                          'volume_size': 1, 'delete_on_termination': True,
                          'tag': 'data'}])
    created = call(application, 'POST', '/compute/v2.1/servers', body, cloud['token'],
                   headers=V242)
    assert created.status_int == 202, created.text
    server_id = created.json['server']['id']
    shown = call(application, 'GET', '/compute/v2.1/servers/%s' % server_id,
                 token=cloud['token']).json['server']
    [address] = shown['addresses']['net1']
    mac = address['OS-EXT-IPS-MAC:mac_addr']
    devices = _drive_meta_data(server_id)['devices']
    assert devices == [
        {'type': 'nic', 'mac': mac, 'vf_trusted': False, 'bus': 'pci',
         'address': '0000:00:03.0', 'tags': ['frontend']},
        {'type': 'disk', 'serial': None, 'bus': 'pci', 'address': '0000:00:10.0',
         'tags': ['os']},
        {'type': 'disk', 'serial': naming.volume_id(server_id, 1), 'bus': 'pci',
         'address': '0000:00:12.0', 'tags': ['data']}]
    assert _domain_addresses(server_id) == {mac: '0x03', 'vda': '0x10',
                                            'vdb': '0x11', 'vdc': '0x12',
                                            'vdd': '0x13'}  # vdd: the drive
    assert device_metadata.for_instance(server_id) == devices


def test_untagged_servers_list_no_devices(application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    assert _drive_meta_data(server_id)['devices'] == []


def test_a_tagged_attachment_is_added_and_leaves_with_its_detach(
        application, vcloud):  # noqa: F811
    server_id = boot_row(vcloud)
    volume = create(application, vcloud, size=1)
    response = call(application, 'POST', attachments_path(server_id),
                    {'volumeAttachment': {'volumeId': volume['id'], 'tag': 'logs'}},
                    vcloud['token'], headers={'OpenStack-API-Version': 'compute 2.49'})
    assert response.status_int == 200, response.text
    device = call(application, 'GET', attachments_path(server_id, volume['id']),
                  token=vcloud['token']).json['volumeAttachment']['device']
    assert device_metadata.for_instance(server_id) == [
        {'type': 'disk', 'serial': volume['id'], 'bus': 'pci',
         'address': '0000:00:%02x.0' % (0x10 + ord(device[-1]) - ord('a')),
         'tags': ['logs']}]
    assert call(application, 'DELETE', attachments_path(server_id, volume['id']),
                token=vcloud['token']).status_int == 202
    assert device_metadata.for_instance(server_id) == []
