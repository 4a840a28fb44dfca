"""`server create --volume VOL`: an existing volume (made from an image by the volume
service) is the server's root disk. It is reserved by the request, pinned to the host
holding its bytes, never detached while it is the root, and outlives the server.
Flows run inline on libvirt's test:/// driver.
"""

import pytest

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import virt

from tests.unit.api.test_boot_from_volume import _volumes
from tests.unit.api.test_boot_from_volume import disk_image  # noqa: F401 - fixture
from tests.unit.api.test_boot_from_volume import project_id
from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture
from tests.unit.api.test_servers import instance_count
from tests import probes

SERVERS = '/compute/v2.1/servers'


def _create_volume(application, cloud, **volume):  # noqa: F811
    response = call(application, 'POST', '/volume/v3/%s/volumes'
                    % project_id(application, cloud), {'volume': volume},
                    cloud['token'])
    assert response.status_int == 202, response.text
    return response.json['volume']['id']


def _boot_from(application, cloud, volume_id, name='from-volume',  # noqa: F811
               image_ref='', **bdm):
    mapping = {'uuid': volume_id, 'boot_index': 0, 'source_type': 'volume',
               'destination_type': 'volume', 'delete_on_termination': False}
    mapping.update(bdm)
    body = {'server': {'name': name, 'imageRef': image_ref, 'flavorRef': cloud['flavor'],
                       'networks': [{'uuid': cloud['network']}],
                       'block_device_mapping_v2': [mapping]}}
    return call(application, 'POST', SERVERS, body, cloud['token'])


def _server(application, cloud, server_id):  # noqa: F811
    return call(application, 'GET', '%s/%s' % (SERVERS, server_id),
                token=cloud['token']).json['server']


def _volume(application, cloud, volume_id):  # noqa: F811
    [volume] = [v for v in _volumes(application, cloud) if v['id'] == volume_id]
    return volume


def _delete(application, cloud, server_id):  # noqa: F811
    assert call(application, 'DELETE', '%s/%s' % (SERVERS, server_id),
                token=cloud['token']).status_int == 204


def test_a_server_boots_from_a_volume_that_outlives_it_and_boots_again(
        application, cloud, disk_image):  # noqa: F811
    volume_id = _create_volume(application, cloud, size=1, imageRef=disk_image)
    response = _boot_from(application, cloud, volume_id)
    assert response.status_int == 202, response.text
    server_id = response.json['server']['id']
    server = _server(application, cloud, server_id)
    assert server['status'] == 'ACTIVE', server
    assert server['image'] == ''  # as Nova shows a server whose root is a volume
    assert {'id': volume_id} in server['os-extended-volumes:volumes_attached']
    volume = _volume(application, cloud, volume_id)
    assert (volume['status'], volume['attachments'][0]['server_id'],
            volume['attachments'][0]['device']) == ('in-use', server_id, '/dev/vda')
    driver = virt.get_driver()
    assert probes.volume_attached(driver, server_id, volume_id) == '/dev/vda'

    # Nova's answers: the root cannot be detached, nor booted by a second server.
    detach = call(application, 'DELETE', '%s/%s/os-volume_attachments/%s'
                  % (SERVERS, server_id, volume_id), token=cloud['token'])
    assert detach.status_int == 400, detach.text
    assert 'Cannot detach a root device volume' in detach.text
    second = _boot_from(application, cloud, volume_id, name='second')
    assert second.status_int == 400 and "must be 'available'" in second.text, \
        second.text
    assert instance_count() == 1

    _delete(application, cloud, server_id)
    volume = _volume(application, cloud, volume_id)
    assert (volume['status'], volume['attachments']) == ('available', [])
    assert probes.volume_exists(driver, volume_id)  # its data stays, on its host

    again = _boot_from(application, cloud, volume_id, name='again')
    assert again.status_int == 202, again.text
    server_id = again.json['server']['id']
    assert _server(application, cloud, server_id)['status'] == 'ACTIVE'
    assert probes.volume_attached(driver, server_id, volume_id) == '/dev/vda'
    _delete(application, cloud, server_id)
    assert _volume(application, cloud, volume_id)['status'] == 'available'


def test_the_root_volume_of_a_boot_from_image_to_volume_is_not_detached(
        application, cloud, disk_image):  # noqa: F811
    body = {'server': {'name': 'bfv', 'imageRef': '', 'flavorRef': cloud['flavor'],
                       'networks': [{'uuid': cloud['network']}],
                       'block_device_mapping_v2': [{
                           'uuid': disk_image, 'boot_index': 0, 'source_type': 'image',
                           'destination_type': 'volume', 'volume_size': 1}]}}
    server_id = call(application, 'POST', SERVERS, body,
                     cloud['token']).json['server']['id']
    [volume] = _volumes(application, cloud)
    detach = call(application, 'DELETE', '%s/%s/os-volume_attachments/%s'
                  % (SERVERS, server_id, volume['id']), token=cloud['token'])
    assert detach.status_int == 400, detach.text
    assert 'Cannot detach a root device volume' in detach.text
    assert _volumes(application, cloud)[0]['status'] == 'in-use'


@pytest.mark.parametrize('bdm, why', [
    ({'uuid': 'no-such-volume'}, 'no-such-volume'),
    ({'boot_index': 1}, 'boot_index 1'),
    ({'delete_on_termination': True}, 'outlives the server'),
    ({'uuid': ''}, "volume's uuid"),
])
def test_bad_boots_from_a_volume_are_refused_and_change_nothing(
        application, cloud, disk_image, bdm, why):  # noqa: F811
    volume_id = _create_volume(application, cloud, size=1, imageRef=disk_image)
    response = _boot_from(application, cloud, volume_id, **bdm)
    assert response.status_int == 400 and why in response.text, response.text
    assert instance_count() == 0
    assert _volume(application, cloud, volume_id)['status'] == 'available'


def test_a_volume_not_made_from_an_image_or_of_another_image_is_refused(
        application, cloud, disk_image):  # noqa: F811
    blank = _create_volume(application, cloud, size=1)
    response = _boot_from(application, cloud, blank)
    assert response.status_int == 400 and 'not bootable' in response.text, \
        response.text
    volume_id = _create_volume(application, cloud, size=1, imageRef=disk_image)
    response = _boot_from(application, cloud, volume_id, image_ref=cloud['image'])
    assert response.status_int == 400 and 'was made from image' in response.text, \
        response.text
    assert instance_count() == 0
    assert {v['status'] for v in _volumes(application, cloud)} == {'available'}


def test_a_failed_boot_gives_the_volume_back_once_the_server_is_deleted(
        application, cloud, disk_image, conf):  # noqa: F811
    volume_id = _create_volume(application, cloud, size=1, imageRef=disk_image)
    conf.set_override('fail_after_step', ['define-domain'], 'fault_injection')
    server_id = _boot_from(application, cloud, volume_id).json['server']['id']
    conf.clear_override('fail_after_step', 'fault_injection')
    assert _server(application, cloud, server_id)['status'] == 'ERROR'
    # Still the failed server's (Nova keeps it attached until the delete); the
    # bytes the boot copied from the image are gone with the rollback.
    assert _volume(application, cloud, volume_id)['status'] == 'attaching'
    assert not probes.volume_exists(virt.get_driver(), volume_id)
    _delete(application, cloud, server_id)
    assert _volume(application, cloud, volume_id)['status'] == 'available'
    retry = _boot_from(application, cloud, volume_id, name='retry')
    assert _server(application, cloud, retry.json['server']['id'])['status'] == \
        'ACTIVE'


def test_a_volume_whose_bytes_are_on_another_host_pins_the_server_there(
        application, cloud, disk_image):  # noqa: F811
    volume_id = _create_volume(application, cloud, size=1, imageRef=disk_image)
    with db_api.transaction() as session:
        session.get(models.Volume, volume_id).host = 'elsewhere'
    server_id = _boot_from(application, cloud, volume_id).json['server']['id']
    server = _server(application, cloud, server_id)
    assert server['status'] == 'ERROR'
    assert 'VolumeHostFilter removed 1' in server['fault']['message']
    _delete(application, cloud, server_id)
    with db_api.transaction() as session:
        row = session.get(models.Volume, volume_id)
        assert (row.status, row.host, row.instance_id) == ('available', 'elsewhere',
                                                            None)
