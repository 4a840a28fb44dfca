"""`server create --boot-from-volume SIZE`: the root disk is a volume made from the
image on the chosen host (a full copy), bootable, kept or deleted with the server
as its delete_on_termination says. Flows run inline on libvirt's test:/// driver.
"""

import subprocess

import pytest

from provisioner.catalog import images
from provisioner import naming
from provisioner import virt

from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture
from tests import probes


@pytest.fixture
def disk_image(cloud, tmp_path):  # noqa: F811
    path = tmp_path / 'disk.qcow2'
    subprocess.run(['qemu-img', 'create', '-q', '-f', 'qcow2', str(path), '16M'],
                   check=True)
    return images.create('bootable', file=str(path))['id']


def _boot(application, cloud, image, delete_on_termination, name='bfv',  # noqa: F811
          size=2):
    body = {'server': {
        'name': name, 'imageRef': '', 'flavorRef': cloud['flavor'],
        'networks': [{'uuid': cloud['network']}],
        'block_device_mapping_v2': [{
            'uuid': image, 'boot_index': 0, 'source_type': 'image',
            'destination_type': 'volume', 'volume_size': size,
            'delete_on_termination': delete_on_termination}]}}
    response = call(application, 'POST', '/compute/v2.1/servers', body, cloud['token'])
    assert response.status_int == 202, response.text
    return response.json['server']['id']


def project_id(application, cloud):  # noqa: F811
    return call(application, 'GET', '/identity/v3/auth/tokens', token=cloud['token'],
                headers={'X-Subject-Token': cloud['token']}).json['token']['project']['id']


def _volumes(application, cloud):  # noqa: F811
    return call(application, 'GET', '/volume/v3/%s/volumes/detail'
                % project_id(application, cloud), token=cloud['token']).json['volumes']


@pytest.mark.parametrize('delete_on_termination', [False, True])
def test_boot_from_volume(application, cloud, disk_image,  # noqa: F811
                          delete_on_termination):
    server_id = _boot(application, cloud, disk_image, delete_on_termination)
    server = call(application, 'GET', '/compute/v2.1/servers/' + server_id,
                  token=cloud['token']).json['server']
    assert server['status'] == 'ACTIVE', server
    assert server['image'] == ''  # as Nova shows a server whose root is a volume
    volume_id = naming.boot_volume_id(server_id)
    assert {'id': volume_id} in server['os-extended-volumes:volumes_attached']
    [volume] = _volumes(application, cloud)
    assert (volume['id'], volume['status'], volume['bootable'], volume['size']) == \
        (volume_id, 'in-use', 'true', 2)
    assert volume['attachments'][0]['device'] == '/dev/vda'
    driver = virt.get_driver()
    assert probes.volume_attached(driver, server_id, volume_id) == '/dev/vda'  # the root disk

    assert call(application, 'DELETE', '/compute/v2.1/servers/' + server_id,
                token=cloud['token']).status_int == 204
    left = _volumes(application, cloud)
    if delete_on_termination:
        assert left == [] and not probes.volume_exists(driver, volume_id)
    else:
        assert [(v['id'], v['status'], v['attachments']) for v in left] == \
            [(volume_id, 'available', [])]
        assert probes.volume_exists(driver, volume_id)


def test_a_failed_boot_from_volume_deletes_the_new_volume(application, cloud,  # noqa
                                                          disk_image, conf):
    conf.set_override('fail_after_step', ['define-domain'], 'fault_injection')
    server_id = _boot(application, cloud, disk_image, False)
    conf.clear_override('fail_after_step', 'fault_injection')
    server = call(application, 'GET', '/compute/v2.1/servers/' + server_id,
                  token=cloud['token']).json['server']
    assert server['status'] == 'ERROR'
    volume_id = naming.boot_volume_id(server_id)
    [volume] = _volumes(application, cloud)
    assert (volume['id'], volume['status']) == (volume_id, 'creating')
    assert not probes.volume_exists(virt.get_driver(), volume_id)
    call(application, 'DELETE', '/compute/v2.1/servers/' + server_id,
         token=cloud['token'])
    assert [v['status'] for v in _volumes(application, cloud)] == ['available']


def test_boot_from_volume_bad_requests(application, cloud, disk_image):  # noqa: F811
    for bdm, why in (({'volume_size': 0}, 'volume_size'),
                     ({'boot_index': 1}, 'boot_index'),
                     ({'uuid': cloud['image']}, 'no disk')):
        mapping = {'uuid': disk_image, 'boot_index': 0, 'source_type': 'image',
                   'destination_type': 'volume', 'volume_size': 1}
        mapping.update(bdm)
        body = {'server': {'name': 'bad', 'imageRef': '', 'flavorRef': cloud['flavor'],
                           'networks': [{'uuid': cloud['network']}],
                           'block_device_mapping_v2': [mapping]}}
        response = call(application, 'POST', '/compute/v2.1/servers', body,
                        cloud['token'])
        assert response.status_int == 400 and why in response.text, response.text
    assert _volumes(application, cloud) == []


def test_a_boot_volume_meets_min_disk_not_the_flavor(application, cloud,  # noqa: F811
                                                     tmp_path):
    # The flavor has a 1 GiB disk, the image wants 3: a root volume of 3 GiB holds it
    # (Nova checks a volume-backed root by its size, not the flavor's disk).
    path = tmp_path / 'big.qcow2'
    subprocess.run(['qemu-img', 'create', '-q', '-f', 'qcow2', str(path), '16M'],
                   check=True)
    disk_image = images.create('needs-3g', file=str(path), min_disk_gib=3)['id']
    body = {'server': {'name': 'small', 'imageRef': '', 'flavorRef': cloud['flavor'],
                       'networks': [{'uuid': cloud['network']}],
                       'block_device_mapping_v2': [{
                           'uuid': disk_image, 'boot_index': 0, 'source_type': 'image',
                           'destination_type': 'volume', 'volume_size': 2}]}}
    response = call(application, 'POST', '/compute/v2.1/servers', body, cloud['token'])
    assert response.status_int == 400, response.text
    assert 'needs 3 to' in response.json['badRequest']['message']
    assert _volumes(application, cloud) == []
    server_id = _boot(application, cloud, disk_image, True, size=3)
    server = call(application, 'GET', '/compute/v2.1/servers/' + server_id,
                  token=cloud['token']).json['server']
    assert server['status'] == 'ACTIVE', server
    assert [v['size'] for v in _volumes(application, cloud)] == [3]
