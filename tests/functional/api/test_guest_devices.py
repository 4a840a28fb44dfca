"""What a real guest sees of two compute features: device tags (2.32/2.42) and
trigger_crash_dump (2.17).

One QEMU guest boots with a tagged NIC and a tagged blank volume. Its user-data
script prints, for the PCI address its config drive's meta_data.json gives each
tagged device, what the guest finds there (the NIC's MAC, the disk's serial), then
watches its kernel log for an NMI. The crash dump action injects one; the guest
says it saw it.
"""

import base64
import io
import json

import pycdlib

from tests.functional.api import conftest as api
from tests.functional.api.test_volumes import _wait
from tests.functional import conftest as base

_SCRIPT = r'''#!/bin/sh
for dev in /sys/bus/pci/devices/*; do
  a=${dev##*/}
  for n in $dev/virtio*/net/*; do
    [ -e "$n/address" ] && echo "PROVISIONER-GUEST: pci-$a=mac:$(cat $n/address)"
  done
  for b in $dev/virtio*/block/*; do
    [ -e "$b/serial" ] && echo "PROVISIONER-GUEST: pci-$a=serial:$(cat $b/serial)"
  done
done
echo "PROVISIONER-GUEST: pci=listed"
while sleep 1; do
  if dmesg | grep -q NMI; then echo "PROVISIONER-GUEST: nmi=seen"; break; fi
done
'''


def _markers(http, server_id):
    response = http.compute('POST', '/servers/%s/action' % server_id,
                            body={'os-getConsoleOutput': {}})
    return api.markers(response.json()['output']) if response.status_code == 200 else {}


def _id(http, path, key, name):
    [found] = [r for r in http.request('GET', path).json()[key] if r['name'] == name]
    return found['id']


def _drive_devices(api_cloud, server_id):
    iso = pycdlib.PyCdlib()
    iso.open(str(api_cloud.state_path / 'instances' / server_id / 'disk.config'))
    try:
        data = io.BytesIO()
        iso.get_file_from_iso_fp(data, rr_path='/openstack/latest/meta_data.json')
        return json.loads(data.getvalue())['devices']
    finally:
        iso.close()


def test_tagged_devices_are_where_the_guest_finds_them_and_it_gets_an_nmi(api_cloud):
    http = api_cloud.http
    body = {'server': {
        'name': 'tagged-vm', 'flavorRef': _id(http, '/compute/v2.1/flavors', 'flavors',
                                              'tiny'),
        'imageRef': _id(http, '/image/v2/images', 'images', 'guest'),
        'networks': [{'uuid': _id(http, '/network/v2.0/networks', 'networks', 'net1'),
                      'tag': 'frontend'}],
        'block_device_mapping_v2': [{'source_type': 'blank', 'volume_size': 1,
                                     'destination_type': 'volume', 'tag': 'data',
                                     'delete_on_termination': True}],
        'user_data': base64.b64encode(_SCRIPT.encode()).decode()}}
    created = http.compute('POST', '/servers', body=body,
                           headers={'OpenStack-API-Version': 'compute 2.42'})
    assert created.status_code == 202, created.text
    server_id = created.json()['server']['id']
    try:
        markers = _wait('the guest to list its PCI devices',
                        lambda: (lambda m: m.get('pci') and m)(_markers(http, server_id)),
                        timeout=base.CONSOLE_TIMEOUT)
        nic, disk = _drive_devices(api_cloud, server_id)
        assert (nic['type'], nic['tags'], disk['type'], disk['tags']) == (
            'nic', ['frontend'], 'disk', ['data'])
        assert markers['pci-' + nic['address']] == 'mac:' + nic['mac']
        # virtio keeps 20 characters of a serial
        assert markers['pci-' + disk['address']] == 'serial:' + disk['serial'][:20]

        dump = http.compute('POST', '/servers/%s/action' % server_id,
                            body={'trigger_crash_dump': None},
                            headers={'OpenStack-API-Version': 'compute 2.17'})
        assert dump.status_code == 202, dump.text
        _wait('the guest to see the NMI',
              lambda: _markers(http, server_id).get('nmi') == 'seen')
    finally:
        http.compute('DELETE', '/servers/' + server_id)
        _wait('the server to go', lambda: http.compute(
            'GET', '/servers/' + server_id).status_code == 404, timeout=120)
