"""Image v2 uploads: create, upload (streamed), download, update, delete, visibility."""

import hashlib
import io
import json
import os
import subprocess

import pytest
import webob

from provisioner.api import app as api_app
from provisioner.api import identity
from provisioner.api import image
from provisioner.catalog import images
from provisioner.compute import api as compute_api
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import service as identity_service
from provisioner.image import cache as image_cache
from provisioner.image import store
from tests.unit.api.conftest import Client
from tests.unit import fixtures

PATCH_TYPE = 'application/openstack-images-v2.1-json-patch'
OCTET = {'Content-Type': 'application/octet-stream'}


@pytest.fixture
def app():
    return api_app.Application(None, {'/identity': identity.SERVICE,
                                      '/image': image.SERVICE})


@pytest.fixture
def other_client(app, make_token):
    """A member of another project."""
    return Client(app, make_token('other-member', 'member', 'other'))


def qcow2(tmp_path, name='disk.qcow2', backing=None):
    path = tmp_path / name
    command = ['qemu-img', 'create', '-f', 'qcow2', str(path), '1M']
    if backing:
        command[4:4] = ['-b', str(backing), '-F', 'raw']
    subprocess.run(command, check=True, capture_output=True)
    return path.read_bytes()


def create(client, name='img', **fields):
    body = dict({'name': name, 'disk_format': 'raw', 'container_format': 'bare'},
                **fields)
    response = client.post('/image/v2/images', body)
    assert response.status_int == 201, response.text
    return response.json


def upload(client, image_id, data):
    return client.put('/image/v2/images/%s/file' % image_id, raw=data, headers=OCTET)


def row(image_id):
    with db_api.transaction() as session:
        return images.common.to_dict(session.get(models.Image, image_id))


def store_files():
    directory = store.directory()
    return sorted(os.listdir(directory)) if os.path.isdir(directory) else []


def test_create_upload_show_download_round_trip(member_client, make_token):
    data = os.urandom(3 * store.CHUNK + 12345)
    created = create(member_client, 'blob', min_ram=64, os_command_line='console=ttyS0',
                     hw_foo='bar')
    project = identity_service.validate(make_token('demo-member')).project_id
    # Glance's default visibility: shared (the project's until it adds members).
    assert (created['status'], created['visibility'], created['owner']) == \
        ('queued', 'shared', project)
    assert created['size'] is None and created['checksum'] is None
    assert (created['min_ram'], created['hw_foo'], created['os_command_line']) == \
        (64, 'bar', 'console=ttyS0')
    no_data = member_client.get('/image/v2/images/%s/file' % created['id'])
    assert no_data.status_int == 204

    assert upload(member_client, created['id'], data).status_int == 204
    shown = member_client.get('/image/v2/images/' + created['id']).json
    assert shown['status'] == 'active' and shown['size'] == len(data)
    assert shown['checksum'] == hashlib.md5(data).hexdigest()
    assert shown['os_hash_algo'] == 'sha512'
    assert shown['os_hash_value'] == hashlib.sha512(data).hexdigest()
    assert shown['virtual_size'] == len(data)

    response = member_client.get('/image/v2/images/%s/file' % created['id'])
    assert response.status_int == 200 and response.body == data
    assert response.headers['Content-MD5'] == shown['checksum']
    assert int(response.headers['Content-Length']) == len(data)
    assert response.content_type == 'application/octet-stream'

    # The boot path reads the row: a file in the store and its sha256.
    stored = row(created['id'])
    assert stored['disk_path'] == os.path.join(store.directory(), created['id'])
    assert stored['disk_sha256'] == hashlib.sha256(data).hexdigest()
    assert image_cache.file_sha256(stored['disk_path']) == stored['disk_sha256']
    assert store_files() == [created['id']]
    assert store.directory() not in json.dumps(shown)  # no server path is shown

    again = upload(member_client, created['id'], b'more')
    assert again.status_int == 409 and 'queued' in again.json['message']


def test_upload_is_streamed_in_chunks(member_client, monkeypatch):
    created = create(member_client)
    reads = []
    real_write = store.write

    def spying_write(name, stream, expected_size=None, limit=None):
        real_read = stream.read

        def read(size=-1):
            reads.append(size)
            return real_read(size)

        stream.read = read
        return real_write(name, stream, expected_size, limit)

    monkeypatch.setattr(store, 'write', spying_write)
    data = os.urandom(2 * store.CHUNK + 1)
    assert upload(member_client, created['id'], data).status_int == 204
    assert reads and max(reads) <= store.CHUNK and -1 not in reads


def test_an_upload_cut_off_half_way_leaves_it_queued_and_no_file(app, member_client):
    created = create(member_client)
    data = os.urandom(store.CHUNK + 100)
    req = webob.Request.blank('/image/v2/images/%s/file' % created['id'], method='PUT')
    req.headers['X-Auth-Token'] = member_client.token
    req.content_type = 'application/octet-stream'
    req.environ['wsgi.input'] = io.BytesIO(data[:len(data) // 2])  # then the client died
    req.environ['CONTENT_LENGTH'] = str(len(data))
    response = req.get_response(app)
    assert response.status_int == 400 and 'cut off' in response.json['message']
    assert member_client.get('/image/v2/images/' + created['id']).json['status'] == \
        'queued'
    assert store_files() == []
    # It can be uploaded again.
    assert upload(member_client, created['id'], data).status_int == 204


def test_a_qcow2_with_a_backing_file_is_refused(member_client, tmp_path):
    secret = tmp_path / 'secret'
    secret.write_bytes(b'host secrets')
    created = create(member_client, disk_format='qcow2')
    response = upload(member_client, created['id'], qcow2(tmp_path, backing=secret))
    assert response.status_int == 400 and 'backing file' in response.json['message']
    assert member_client.get('/image/v2/images/' + created['id']).json['status'] == \
        'queued'
    assert store_files() == []


def test_a_qcow2_image_is_checked_and_sized(member_client, tmp_path):
    created = create(member_client, disk_format='qcow2')
    assert upload(member_client, created['id'], qcow2(tmp_path)).status_int == 204
    shown = member_client.get('/image/v2/images/' + created['id']).json
    assert shown['virtual_size'] == 1024 * 1024 and shown['disk_format'] == 'qcow2'


def test_disk_format_must_match_the_data(member_client, tmp_path):
    says_qcow2 = create(member_client, 'a', disk_format='qcow2')
    response = upload(member_client, says_qcow2['id'], b'\0' * 4096)
    assert response.status_int == 400 and 'not a qcow2' in response.json['message']
    says_raw = create(member_client, 'b', disk_format='raw')
    response = upload(member_client, says_raw['id'], qcow2(tmp_path))
    assert response.status_int == 400 and 'is a qcow2' in response.json['message']
    assert store_files() == []
    bad = member_client.post('/image/v2/images', {'name': 'c', 'disk_format': 'floppy'})
    assert bad.status_int == 400 and 'disk_format' in bad.json['message']


def test_an_upload_over_the_size_limit_is_413(member_client, conf):
    conf.set_override('max_image_size', 1000, group='image')
    created = create(member_client)
    response = upload(member_client, created['id'], b'x' * 1001)
    assert response.status_int == 413 and 'max_image_size' in response.json['message']
    assert row(created['id'])['status'] == 'queued' and store_files() == []
    # Without a Content-Length (chunked), the limit holds while reading.
    with pytest.raises(store.TooLarge):
        store.write('x', io.BytesIO(b'x' * 1001))
    assert store_files() == []


def test_a_private_image_is_not_found_by_another_project(member_client, other_client,
                                                         admin_client):
    created = create(member_client, 'mine', visibility='private')
    assert upload(member_client, created['id'], b'data').status_int == 204
    path = '/image/v2/images/' + created['id']
    for response in (other_client.get(path), other_client.get(path + '/file'),
                     other_client.delete(path),
                     other_client.patch(path, raw=b'[]',
                                        headers={'Content-Type': PATCH_TYPE}),
                     upload(other_client, created['id'], b'x')):
        assert response.status_int == 404, response.text
    assert other_client.get('/image/v2/images?name=mine').json['images'] == []
    assert [i['id'] for i in member_client.get('/image/v2/images?visibility=private')
            .json['images']] == [created['id']]
    assert admin_client.get(path).status_int == 200  # admins see every image
    owner = created['owner']
    assert [i['name'] for i in admin_client.get('/image/v2/images?owner=' + owner)
            .json['images']] == ['mine']


def test_only_an_admin_makes_an_image_public(member_client, admin_client,
                                             other_client):
    refused = member_client.post('/image/v2/images', {'name': 'p', 'disk_format': 'raw',
                                                      'visibility': 'public'})
    assert refused.status_int == 403
    mine = create(member_client, 'mine')
    patch = [{'op': 'replace', 'path': '/visibility', 'value': 'public'}]
    response = member_client.patch('/image/v2/images/' + mine['id'],
                                   raw=json.dumps(patch).encode(),
                                   headers={'Content-Type': PATCH_TYPE})
    assert response.status_int == 403
    public = create(admin_client, 'pub', visibility='public')
    assert other_client.get('/image/v2/images/' + public['id']).status_int == 200
    # Seen is not owned: another project cannot change or delete it.
    assert other_client.delete('/image/v2/images/' + public['id']).status_int == 403


def test_patch_properties_and_attributes(member_client):
    created = create(member_client, 'p1', hw_a='1')
    path = '/image/v2/images/' + created['id']

    def patch(ops, content_type=PATCH_TYPE):
        return member_client.patch(path, raw=json.dumps(ops).encode(),
                                   headers={'Content-Type': content_type})

    response = patch([{'op': 'add', 'path': '/hw_b', 'value': '2'},
                      {'op': 'replace', 'path': '/hw_a', 'value': '3'},
                      {'op': 'replace', 'path': '/name', 'value': 'p2'},
                      {'op': 'replace', 'path': '/min_disk', 'value': 2},
                      {'op': 'add', 'path': '/os_command_line', 'value': 'quiet'}])
    assert response.status_int == 200, response.text
    body = response.json
    assert (body['name'], body['hw_a'], body['hw_b'], body['min_disk'],
            body['os_command_line']) == ('p2', '3', '2', 2, 'quiet')
    assert row(created['id'])['cmdline'] == 'quiet'
    body = patch([{'op': 'remove', 'path': '/hw_a'}]).json
    assert 'hw_a' not in body and body['hw_b'] == '2'
    assert patch([{'op': 'remove', 'path': '/hw_zz'}]).status_int == 409
    assert patch([{'op': 'replace', 'path': '/status', 'value': 'active'}]) \
        .status_int == 403
    assert patch([{'op': 'replace', 'path': '/name', 'value': 'x'}],
                 'application/json').status_int == 415
    assert patch([{'op': 'add', 'path': '/hw_c', 'value': 5}]).status_int == 400
    assert patch({'op': 'add'}).status_int == 400
    # A patch with one bad operation changes nothing, the good ones included.
    refused = patch([{'op': 'replace', 'path': '/name', 'value': 'p3'},
                     {'op': 'add', 'path': '/tags', 'value': ['']}])
    assert refused.status_int == 400, refused.text
    assert member_client.get(path).json['name'] == 'p2'


def test_delete_removes_the_store_file_only(member_client, admin_client, tmp_path,
                                            admin_context):
    created = create(member_client)
    assert upload(member_client, created['id'], b'bytes').status_int == 204
    assert store_files() == [created['id']]
    assert member_client.delete('/image/v2/images/' + created['id']).status_int == 204
    assert store_files() == []
    # An image registered by path keeps its file: it was never the store's.
    disk = tmp_path / 'registered.raw'
    disk.write_bytes(b'\0' * 512)
    registered = images.create('reg', file=str(disk))
    assert admin_client.delete('/image/v2/images/' + registered['id']).status_int == 204
    assert disk.exists()


def test_protected_images_are_not_deleted(member_client):
    created = create(member_client, protected=True)
    response = member_client.delete('/image/v2/images/' + created['id'])
    assert response.status_int == 403 and 'protected' in response.json['message']


def test_kernel_and_ramdisk_images_link_for_direct_kernel_boot(member_client):
    ramdisk = create(member_client, 'initrd', disk_format='ari')
    kernel = create(member_client, 'vmlinuz', disk_format='aki',
                    ramdisk_id=ramdisk['id'], os_command_line='console=ttyS0')
    assert upload(member_client, kernel['id'], b'kernel').status_int == 204
    assert row(kernel['id'])['ramdisk_path'] is None  # the ramdisk has no data yet
    assert upload(member_client, ramdisk['id'], b'initrd').status_int == 204
    linked = row(kernel['id'])
    assert linked['kernel_path'] == os.path.join(store.directory(), kernel['id'])
    assert linked['kernel_sha256'] == hashlib.sha256(b'kernel').hexdigest()
    assert linked['ramdisk_path'] == os.path.join(store.directory(), ramdisk['id'])
    assert linked['ramdisk_sha256'] == hashlib.sha256(b'initrd').hexdigest()
    assert linked['disk_path'] is None and linked['cmdline'] == 'console=ttyS0'
    shown = member_client.get('/image/v2/images/' + kernel['id']).json
    assert shown['provisioner_boot'] == 'kernel' and shown['ramdisk_id'] == ramdisk['id']
    # The kernel boots with the ramdisk's file: it cannot go first.
    response = member_client.delete('/image/v2/images/' + ramdisk['id'])
    assert response.status_int == 409 and 'vmlinuz' in response.json['message']
    assert member_client.delete('/image/v2/images/' + kernel['id']).status_int == 204
    assert member_client.delete('/image/v2/images/' + ramdisk['id']).status_int == 204
    assert store_files() == []


def test_only_active_visible_images_boot(member_client, other_client, make_token,
                                         admin_context, deployment):
    created = create(member_client, 'empty')
    fixtures.add_network()
    with db_api.transaction() as session:
        session.add(models.Flavor(id='f1', name='tiny', vcpus=1, ram_mib=64,
                                  disk_gib=0))
    member = identity_service.validate(make_token('demo-member'))
    with pytest.raises(exception.Invalid) as err:
        compute_api.ComputeAPI(member, deployment).create_instance(
            'vm', 'tiny', created['id'], ['net1'])
    assert 'queued, not active' in str(err.value)
    other = identity_service.validate(make_token('other-member', project='other'))
    with pytest.raises(exception.NotFound):
        compute_api.ComputeAPI(other, deployment).create_instance(
            'vm', 'tiny', created['id'], ['net1'])


def test_create_refuses_read_only_and_bad_fields(member_client):
    for body, status in (({'name': 'x', 'status': 'active'}, 403),
                         ({'name': 'x', 'owner': 'someone'}, 403),
                         ({'name': 'x', 'id': 'not-a-uuid'}, 400),
                         ({'name': 'x', 'min_ram': -1}, 400),
                         ({'name': 'x', 'visibility': 'community'}, 400),
                         ({'name': 'x', 'tags': 't1'}, 400),
                         ({'name': 'x', 'tags': ['x' * 256]}, 400),
                         ({'name': 'x' * 256}, 400),
                         ({'name': 'x', 'disk_format': 'floppy'}, 400),
                         ({'name': 'x', 'container_format': 'zip'}, 400)):
        response = member_client.post('/image/v2/images', body)
        assert response.status_int == status, (body, response.text)
    fixed = '8a1b2c3d-0000-4000-8000-000000000001'
    assert create(member_client, 'fixed', id=fixed)['id'] == fixed
    assert member_client.post('/image/v2/images', {'name': 'dup', 'id': fixed}) \
        .status_int == 409
    # Names are Glance's: two images may share one.
    assert member_client.post('/image/v2/images', {'name': 'fixed'}).status_int == 201


def test_schemas(member_client):
    schema = member_client.get('/image/v2/schemas/image').json
    assert schema['name'] == 'image' and 'disk_format' in schema['properties']
    assert member_client.get('/image/v2/schemas/images').json['name'] == 'images'


def test_upload_needs_octet_stream(member_client):
    created = create(member_client)
    response = member_client.put('/image/v2/images/%s/file' % created['id'],
                                 raw=b'x', headers={'Content-Type': 'text/plain'})
    assert response.status_int == 415


def test_a_shared_name_is_ambiguous_where_a_name_is_taken_for_an_id(member_client):
    from provisioner.catalog import images
    from provisioner import exception
    twins = [create(member_client, 'twin')['id'] for _ in range(2)]
    with pytest.raises(exception.Conflict, match='give its id'):
        images.show('twin')
    assert images.show(twins[1])['id'] == twins[1]
