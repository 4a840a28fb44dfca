"""Hosts fetch images from the image API as the service user, into their cache.

provisioner-api's identity and image services serve on a loopback port from a
cheroot thread; the fetcher downloads through it as a host's worker does.
"""

import hashlib
import os
import socket
import threading
import time

import pytest

from provisioner.api import app as api_app
from provisioner.api import identity
from provisioner.api import image
from provisioner.catalog import api as catalog_api
from provisioner.catalog import images
from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import service as identity_service
from provisioner.image import cache as image_cache
from provisioner.image import fetcher
from provisioner.image import store
from provisioner import redact
from tests.unit.api.conftest import Client

SERVICE_PASSWORD = 'service-secret-123'
OCTET = {'Content-Type': 'application/octet-stream'}


@pytest.fixture
def api_url(conf):
    from cheroot import wsgi as cheroot_wsgi
    app = api_app.Application(None, {'/identity': identity.SERVICE,
                                      '/image': image.SERVICE})
    server = cheroot_wsgi.Server(('127.0.0.1', 0), app, numthreads=4)
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield 'http://127.0.0.1:%d' % server.bind_addr[1]
    finally:
        server.stop()
        thread.join(10)


@pytest.fixture
def as_host(conf, api_url, admin_context):
    """This process configured as a distributed host: the service user's settings."""
    identity_service.bootstrap('provisioner-service', SERVICE_PASSWORD, 'service',
                               role='service')
    conf.set_override('auth_url', api_url + '/identity', group='image_service')
    conf.set_override('password', SERVICE_PASSWORD, group='image_service')
    return image_cache.ImageCache(os.path.join(conf.state_path, 'host-cache'))


def _private_image(make_token, data, disk_format='raw'):
    """A private image of project demo, uploaded through the API's WSGI app."""
    client = Client(api_app.Application(None, {'/image': image.SERVICE}),
                    make_token('demo-member', 'member', 'demo'))
    created = client.post('/image/v2/images', {
        'name': 'private-img', 'disk_format': disk_format,
        'container_format': 'bare'}).json
    assert client.put('/image/v2/images/%s/file' % created['id'], raw=data,
                      headers=OCTET).status_int == 204
    return images.show(created['id'])


def test_a_host_downloads_a_private_image_once_and_verifies_it(as_host, make_token,
                                                               caplog):
    data = os.urandom(1024 * 1024 + 17)
    image_row = _private_image(make_token, data)
    wanted = fetcher.ImageFile(image_row['id'], 'disk', image_row['disk_sha256'],
                               path='/nonexistent/never-read')
    with caplog.at_level('INFO', logger=fetcher.__name__):
        cached = fetcher.fetch(as_host, wanted)
    assert open(cached, 'rb').read() == data
    assert 'Downloading the disk of image %s' % image_row['id'] in caplog.text
    os.unlink(image_row['store_path'])  # a cache hit needs no API or store
    assert fetcher.fetch(as_host, wanted) == cached


def test_registered_images_kernel_and_ramdisk_are_served_to_the_host(
        as_host, admin_context, tmp_path):
    kernel, ramdisk = tmp_path / 'vmlinuz', tmp_path / 'initrd'
    kernel.write_bytes(b'kernel bytes')
    ramdisk.write_bytes(b'ramdisk bytes')
    registered = catalog_api.CatalogAPI(admin_context, None).create_image(
        'by-path', kernel=str(kernel), ramdisk=str(ramdisk))
    for part, path in (('kernel', kernel), ('ramdisk', ramdisk)):
        cached = fetcher.fetch(as_host, fetcher.ImageFile(
            registered['id'], part, registered['%s_sha256' % part]))
        assert open(cached, 'rb').read() == path.read_bytes()
    with pytest.raises(exception.ImageInvalid, match='has no disk'):
        fetcher.fetch(as_host, fetcher.ImageFile(registered['id'], 'disk',
                                                 hashlib.sha256(b'-').hexdigest()))


def test_a_corrupted_store_file_is_refused_by_its_hash(as_host, make_token):
    image_row = _private_image(make_token, b'good bytes' * 1000)
    with open(image_row['store_path'], 'r+b') as f:
        f.write(b'BAD')
    with pytest.raises(exception.ImageInvalid) as err:
        fetcher.fetch(as_host, fetcher.ImageFile(image_row['id'], 'disk',
                                                 image_row['disk_sha256']))
    message = str(err.value)
    assert image_row['id'] in message and 'checksum mismatch' in message
    assert image_row['disk_sha256'] in message
    assert not os.path.exists(as_host.path_for(image_row['disk_sha256']))


def test_a_wrong_service_password_is_a_clear_error(as_host, conf, make_token):
    image_row = _private_image(make_token, b'x' * 10)
    conf.set_override('password', 'wrong-password', group='image_service')
    with pytest.raises(fetcher.ImageUnavailable, match='cannot log in'):
        fetcher.fetch(as_host, fetcher.ImageFile(image_row['id'], 'disk',
                                                 image_row['disk_sha256']))


def test_only_the_service_role_downloads_other_projects_images(as_host, make_token):
    image_row = _private_image(make_token, b'private' * 10)
    app = api_app.Application(None, {'/image': image.SERVICE})
    path = '/image/v2/images/%s/file' % image_row['id']
    stranger = Client(app, make_token('other-member', 'member', 'other'))
    assert stranger.get(path).status_int == 404
    service = Client(app, identity_service.authenticate(
        'provisioner-service', SERVICE_PASSWORD, 'service'))
    assert service.get(path).body == b'private' * 10
    assert service.get(path + '?part=nonsense').status_int == 400
    assert service.get('/image/v2/images').status_int == 403  # downloads only


def test_all_in_one_reads_the_local_file(conf, tmp_path):
    source = tmp_path / 'disk.img'
    source.write_bytes(b'local bytes')
    sha = hashlib.sha256(b'local bytes').hexdigest()
    cache = image_cache.ImageCache(str(tmp_path / 'cache'))
    assert open(fetcher.fetch(cache, fetcher.ImageFile('img', 'disk', sha,
                                                       str(source))), 'rb').read() \
        == b'local bytes'


def test_an_image_whose_file_a_live_instance_uses_is_not_deleted(as_host, make_token):
    """Nova's hosts keep a cached copy, Glance deletes anyway; here the image a
    building or running instance was booted from is refused (409), as its row
    and file are what a reschedule, a rebuild or another host would fetch."""
    image_row = _private_image(make_token, b'in use' * 100)
    token = make_token('demo-member', 'member', 'demo')
    with db_api.transaction() as session:
        session.add(models.Flavor(id='f1', name='tiny', vcpus=1, ram_mib=64,
                                  disk_gib=0))
        session.add(models.Instance(
            id='11111111-2222-4333-8444-555555555555', name='busy',
            project_id=identity_service.validate(token).project_id,
            user_id=identity_service.validate(token).user_id, flavor_id='f1',
            image_id=image_row['id'], request_spec={}, vm_state=states.BUILDING,
            power_state=states.NOSTATE))
    client = Client(api_app.Application(None, {'/image': image.SERVICE}), token)
    response = client.delete('/image/v2/images/' + image_row['id'])
    assert response.status_int == 409 and 'in use by busy' in response.json['message']
    assert os.path.exists(image_row['store_path'])
    assert images.show(image_row['id'])['status'] == 'active'


def _wait_while(image_id, status):
    deadline = time.monotonic() + 10
    while images.show(image_id)['status'] == status:
        assert time.monotonic() < deadline, 'the image stayed %s' % status
        time.sleep(0.02)


def test_an_upload_whose_client_dies_half_way_stays_queued(api_url, make_token):
    """Over a real socket (cheroot, as provisioner-api serves): the client sends
    half the bytes it announced and closes the connection."""
    client = Client(api_app.Application(None, {'/image': image.SERVICE}),
                    make_token('demo-member', 'member', 'demo'))
    created = client.post('/image/v2/images', {
        'name': 'cut', 'disk_format': 'raw', 'container_format': 'bare'}).json
    port = int(api_url.rsplit(':', 1)[1])
    with socket.create_connection(('127.0.0.1', port)) as sock:
        sock.sendall(('PUT /image/v2/images/%s/file HTTP/1.1\r\nHost: x\r\n'
                      'X-Auth-Token: %s\r\nContent-Type: application/octet-stream\r\n'
                      'Content-Length: %d\r\n\r\n'
                      % (created['id'], client.token, 4 * 1024 * 1024)).encode())
        sock.sendall(os.urandom(1024 * 1024))
        _wait_while(created['id'], 'queued')  # the server is reading the body
    _wait_while(created['id'], 'saving')  # ... until it saw the client go
    assert images.show(created['id'])['status'] == 'queued'
    assert images.show(created['id'])['store_path'] is None
    assert not os.listdir(store.directory())  # no file, no half-written temporary


def test_an_uploaded_kernel_and_its_linked_ramdisk_are_fetched_by_part(as_host,
                                                                       make_token):
    """aki and ari images linked by ramdisk_id: a host fetches both through the
    kernel image's id, as its boot reads them."""
    client = Client(api_app.Application(None, {'/image': image.SERVICE}),
                    make_token('demo-member', 'member', 'demo'))

    def uploaded(name, disk_format, data, **properties):
        created = client.post('/image/v2/images', dict(
            name=name, disk_format=disk_format, container_format='bare',
            **properties)).json
        assert client.put('/image/v2/images/%s/file' % created['id'], raw=data,
                          headers=OCTET).status_int == 204
        return created['id']

    ramdisk_id = uploaded('initrd', 'ari', b'ramdisk bytes')
    kernel = images.show(uploaded('vmlinuz', 'aki', b'kernel bytes',
                                  ramdisk_id=ramdisk_id))
    for part, data in (('kernel', b'kernel bytes'), ('ramdisk', b'ramdisk bytes')):
        cached = fetcher.fetch(as_host, fetcher.ImageFile(
            kernel['id'], part, kernel['%s_sha256' % part]))
        assert open(cached, 'rb').read() == data


def test_a_renewed_service_token_replaces_the_old_one_among_the_secrets(as_host):
    client = fetcher.service_client()
    client._credentials(renew=True)
    held = len(redact._secrets)
    for _ in range(5):
        client._credentials(renew=True)
    token, _endpoint = client._credentials()
    assert redact.redact(token) == redact.MASK and len(redact._secrets) == held


def test_a_host_uploads_a_snapshot_into_a_queued_image_of_any_project(
        as_host, make_token, tmp_path):
    """A server's snapshot, distributed: the host's worker PUTs its capture through
    the image API as the service user, into the server's project's image."""
    client = Client(api_app.Application(None, {'/image': image.SERVICE}),
                    make_token('demo-member', 'member', 'demo'))
    created = client.post('/image/v2/images', {
        'name': 'snap', 'disk_format': 'raw', 'container_format': 'bare',
        'visibility': 'private'}).json
    data = os.urandom(65536)
    capture = tmp_path / 'capture'
    capture.write_bytes(data)
    assert fetcher.upload(created['id'], str(capture)) is True
    uploaded = images.show(created['id'])
    assert (uploaded['status'], uploaded['size_bytes']) == ('active', len(data))
    assert uploaded['disk_sha256'] == hashlib.sha256(data).hexdigest()
    # Only a queued image takes data: a second upload is the image API's 409.
    with pytest.raises(fetcher.ImageUploadFailed, match='queued'):
        fetcher.upload(created['id'], str(capture))


def test_all_in_one_a_host_leaves_the_upload_to_its_caller(conf, tmp_path):
    assert fetcher.upload('any', str(tmp_path / 'never-read')) is False
