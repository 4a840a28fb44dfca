"""Nova's createImage action through the WSGI app: what it answers by microversion,
the image it makes (queued at once, then active with Nova's snapshot properties),
the server's task states, and what a refused or failed snapshot leaves. Flows run
inline on libvirt's test:/// driver; the capture writes a real small qcow2 (the
test driver's disks are not files).
"""

import os
import subprocess
import types

import pytest

from provisioner.catalog import images
from provisioner.compute import instances
from provisioner import exception
from provisioner import virt
from provisioner.virt import image_snapshots

from tests.unit.api.test_rebuild import _actions
from tests.unit.api.test_rebuild import _server
from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture

V = '/compute/v2.1'


@pytest.fixture
def captures(monkeypatch):
    """Each capture's (source, format) and the task_state it saw; writes a qcow2."""
    seen = []

    def convert(source, source_format, target):
        seen.append((source, source_format))
        subprocess.run(['qemu-img', 'create', '-q', '-f', 'qcow2', target, '1M'],
                       check=True)

    monkeypatch.setattr(image_snapshots, '_convert', convert)
    return seen


def _action(application, server_id, body, token, version=None):  # noqa: F811
    headers = {'OpenStack-API-Version': 'compute %s' % version} if version else None
    return call(application, 'POST', V + '/servers/%s/action' % server_id, body, token,
                headers=headers)


def _snapshots():
    return [i for i in images.list_all() if (i['properties'] or {}).get('image_type')]


def test_create_image_makes_an_active_snapshot_with_novas_properties(
        application, cloud, captures):  # noqa: F811
    server_id = boot(application, cloud)
    response = _action(application, server_id, {'createImage': {
        'name': 'snap1', 'metadata': {'purpose': 'test'}}}, cloud['token'])
    assert response.status_int == 202, response.text
    assert response.body == b''
    image_id = response.headers['Location'].rsplit('/', 1)[1]
    assert response.headers['Location'].endswith('/image/images/' + image_id)
    shown = call(application, 'GET', '/image/v2/images/' + image_id,
                 token=cloud['token']).json
    assert (shown['status'], shown['name'], shown['disk_format'],
            shown['container_format'], shown['visibility']) == (
        'active', 'snap1', 'qcow2', 'bare', 'private')
    assert shown['checksum'] and shown['os_hash_value'] and shown['size'] > 0
    assert shown['instance_uuid'] == server_id
    assert shown['image_type'] == 'snapshot'
    assert shown['base_image_ref'] == cloud['image']
    assert shown['purpose'] == 'test'
    assert shown['owner'] == _server(application, server_id,
                                     cloud['token'])['tenant_id']
    # The registered kernel and ramdisk boot the snapshot as they booted the server.
    assert shown['kernel_id'] == shown['ramdisk_id'] == cloud['image']
    assert images.show(image_id)['kernel_path']
    server = _server(application, server_id, cloud['token'])
    assert (server['status'], server['OS-EXT-STS:task_state']) == ('ACTIVE', None)
    assert virt.get_driver().power_state(server_id) == 'running'
    assert captures and captures[0][1] == 'qcow2'
    made = _actions(application, server_id, cloud['token'])[0]
    assert made['action'] == 'createImage' and made['message'] is None
    events = call(application, 'GET', V + '/servers/%s/os-instance-actions/%s'
                  % (server_id, made['request_id']),
                  token=cloud['token']).json['instanceAction']['events']
    assert [e['event'] for e in events] == [
        'image-snapshot-guard', 'capture-root-disk', 'upload-snapshot',
        'delete-capture', 'record-image-snapshot']
    assert not os.path.exists(virt.get_driver().capture_path(server_id, image_id))


def test_from_2_45_the_answer_is_the_image_id_and_a_stopped_server_works(
        application, cloud, captures):  # noqa: F811
    server_id = boot(application, cloud)
    assert _action(application, server_id, {'os-stop': None},
                   cloud['token']).status_int == 202
    response = _action(application, server_id, {'createImage': {'name': 'snap'}},
                       cloud['token'], version='2.45')
    assert response.status_int == 202, response.text
    assert 'Location' not in response.headers
    assert images.show(response.json['image_id'])['status'] == 'active'
    assert _server(application, server_id, cloud['token'])['status'] == 'SHUTOFF'


def test_refused_snapshots_make_no_image(application, cloud, captures):  # noqa: F811
    server_id = boot(application, cloud)
    for body, status, words in (
            ({}, 400, 'name'),
            ({'name': ''}, 400, 'name'),
            ({'name': ' lead'}, 400, 'name'),
            ({'name': 'x' * 256}, 400, 'name'),
            ({'name': 'x', 'extra': 1}, 400, 'Additional properties'),
            ({'name': 'x', 'metadata': {'k': 1}}, 400, 'metadata'),
            ({'name': 'x', 'metadata': {'k%d' % i: 'v' for i in range(129)}}, 403,
             'metadata items')):
        response = _action(application, server_id, {'createImage': body},
                           cloud['token'])
        assert response.status_int == status, (body, response.text)
        assert words in response.text
    instances.update(server_id, task_state='powering-off')
    response = _action(application, server_id, {'createImage': {'name': 'x'}},
                       cloud['token'])
    assert response.status_int == 409, response.text
    instances.update(server_id, task_state=None, vm_state='error')
    response = _action(application, server_id, {'createImage': {'name': 'x'}},
                       cloud['token'])
    assert response.status_int == 409, response.text
    assert _snapshots() == []
    assert [a['action'] for a in _actions(application, server_id,
                                          cloud['token'])] == ['create']
    assert captures == []


def test_a_failed_upload_deletes_the_image_and_leaves_the_server_as_it_was(
        application, cloud, captures, monkeypatch):  # noqa: F811
    server_id = boot(application, cloud)

    def broken(image_id, stream, size=None):
        raise exception.Invalid(reason='the store is full')

    monkeypatch.setattr(images, 'upload', broken)
    response = _action(application, server_id, {'createImage': {'name': 'snap'}},
                       cloud['token'])
    assert response.status_int == 202, response.text
    image_id = response.headers['Location'].rsplit('/', 1)[1]
    with pytest.raises(exception.NotFound):
        images.show(image_id)
    server = _server(application, server_id, cloud['token'])
    assert (server['status'], server['OS-EXT-STS:task_state']) == ('ACTIVE', None)
    assert virt.get_driver().power_state(server_id) == 'running'
    assert not os.path.exists(virt.get_driver().capture_path(server_id, image_id))
    failed = _actions(application, server_id, cloud['token'])[0]
    assert failed['action'] == 'createImage'
    assert 'the store is full' in failed['message']


def test_novas_image_proxy_shows_lists_and_deletes_the_snapshot(
        application, cloud, captures):  # noqa: F811
    server_id = boot(application, cloud)
    response = _action(application, server_id, {'createImage': {
        'name': 'snap1', 'metadata': {'image_type': 'test'}}}, cloud['token'])
    image_id = response.headers['Location'].rsplit('/', 1)[1]
    shown = call(application, 'GET', V + '/images/' + image_id,
                 token=cloud['token']).json['image']
    assert (shown['name'], shown['status'], shown['progress']) == ('snap1', 'ACTIVE',
                                                                    100)
    assert shown['metadata']['image_type'] == 'test'  # the metadata given wins
    assert shown['server']['id'] == server_id
    assert shown['OS-EXT-IMG-SIZE:size'] > 0
    assert {link['rel'] for link in shown['links']} == {'self', 'bookmark',
                                                        'alternate'}
    base = call(application, 'GET', V + '/images/' + cloud['image'],
                token=cloud['token']).json['image']
    assert (base['minRam'], base['minDisk']) == (shown['minRam'], shown['minDisk'])
    assert 'server' not in base
    for query, wanted in (('server=%s' % server_id, [image_id]),
                          ('server=http://x/servers/%s' % server_id, [image_id]),
                          ('type=test', [image_id]), ('name=snap1', [image_id]),
                          ('status=ACTIVE', [image_id, cloud['image']]),
                          ('limit=1', [image_id])):
        for path in ('/images?', '/images/detail?'):
            listed = call(application, 'GET', V + path + query,
                          token=cloud['token']).json['images']
            assert [i['id'] for i in listed] == wanted, (path, query)
    gone = call(application, 'GET', V + '/images/' + image_id, token=cloud['token'],
                headers={'OpenStack-API-Version': 'compute 2.36'})
    assert gone.status_int == 404
    assert call(application, 'DELETE', V + '/images/' + image_id,
                token=cloud['token']).status_int == 204
    assert call(application, 'GET', V + '/images/' + image_id,
                token=cloud['token']).status_int == 404


def test_empty_image_ids_and_an_images_tasks(application, cloud):  # noqa: F811
    gone = call(application, 'DELETE', V + '/images/', token=cloud['token'])
    assert gone.status_int == 404, gone.text
    assert call(application, 'DELETE', V + '/images',
                token=cloud['token']).status_int == 405
    tasks = call(application, 'GET', '/image/v2/images/%s/tasks' % cloud['image'],
                 token=cloud['token'])
    assert (tasks.status_int, tasks.json) == (200, {'tasks': []})


def test_a_snapshot_inherits_what_nova_passes_on_and_the_kernel_it_booted():
    from provisioner.compute import image_snapshots as compute_snapshots
    aki = types.SimpleNamespace(
        id='k', container_format='aki', kernel_path='/k', ramdisk_path='/r',
        cmdline='console=ttyS0', arch=None, hypervisor_type=None,
        properties={'ramdisk_id': 'r', 'os_type': 'linux', 'img_signature': 'x',
                    'instance_uuid': 'another', 'os_glance_importing_to_stores': 'x'})
    assert compute_snapshots._inherited(aki) == {
        'ramdisk_id': 'r', 'os_type': 'linux', 'os_command_line': 'console=ttyS0',
        'kernel_id': 'k'}
    disk = types.SimpleNamespace(
        id='d', container_format='bare', kernel_path=None, ramdisk_path=None,
        cmdline=None, arch='x86_64', hypervisor_type=None, properties=None)
    assert compute_snapshots._inherited(disk) == {'architecture': 'x86_64'}
