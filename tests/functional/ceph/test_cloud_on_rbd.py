"""A cloud on Ceph: provisioner-api all-in-one with every service in RBD, against the
run's one-node cluster ([image] store = rbd, [libvirt] images_type = rbd, [volume]
backend = rbd), driven by the real `openstack` CLI.

An uploaded qcow2 image becomes a raw RBD image with a protected snapshot; a server
boots from a copy-on-write clone of it (nothing copied into the host's image cache)
through the real libvirtd, with the key as a libvirt secret; an RBD volume is
hot-plugged, the guest writes to it and prints what it reads back, and the bytes are
in Ceph. Deleting the server and the volume leaves no RBD image but the image's, and
deleting the image leaves none.
"""

import hashlib
import subprocess
import uuid

import pytest

from tests import ceph
from tests.functional.api import conftest as api
from tests.functional.api.test_volumes import _markers
from tests.functional.api.test_volumes import _wait
from tests.functional import conftest as base
from tests import netutil

libvirt = pytest.importorskip('libvirt')

WRITTEN = 'rbd-volume-written'
# Runs in the guest at boot: waits for a disk that was not there (the volume, once
# hot-plugged), writes to it, and prints what it reads back.
USER_DATA = '''#!/bin/sh
before=" $(ls /sys/block | tr '\\n' ' ') "
new=
while [ -z "$new" ]; do
  for d in $(ls /sys/block); do
    case "$before" in *" $d "*) ;; *) new=$d ;; esac
  done
  sleep 1
done
printf '%s' | dd of=/dev/$new bs=512 conv=sync,fsync 2>/dev/null
echo "PROVISIONER-GUEST: volume=$new:$(dd if=/dev/$new bs=%d count=1 2>/dev/null)"
''' % (WRITTEN, len(WRITTEN))


@pytest.fixture(scope='module')
def rbd_cloud(shared_cluster, guest_image, tmp_path_factory):
    """provisioner-api on Ceph (its own deployment; the secret removed at the end)."""
    base._libvirt_connection().close()
    api.client_program('openstack')
    root = api.new_root('rbd')
    cloud = api.ApiCloud(root, netutil.free_cidr(), tmp_path_factory.mktemp('clients'))
    secret_uuid = str(uuid.uuid4())
    with open(cloud.config_file, 'a') as conf:
        conf.write('[ceph]\nconf_file = %s\nuser = %s\nkeyring = %s\nsecret_uuid = %s\n'
                   'connect_timeout = 5\n'
                   '[image]\nstore = rbd\n[libvirt]\nimages_type = rbd\n'
                   '[volume]\nbackend = rbd\n'
                   % (shared_cluster.client_conf, shared_cluster.client,
                      shared_cluster.keyring, secret_uuid))
    cloud.secret_uuid = secret_uuid
    try:
        cloud.seed(guest_image)
        cloud.start_api()
        yield cloud
        problems = cloud.take_down()
        assert not problems, problems
    finally:
        cloud.dispose(tmp_path_factory.mktemp('rbd-logs'))
        _undefine_secret(secret_uuid)


def _undefine_secret(secret_uuid):
    conn = base._libvirt_connection()
    try:
        conn.secretLookupByUUIDString(secret_uuid).undefine()
    except libvirt.libvirtError:
        pass
    finally:
        conn.close()


def _rbd_ls(cluster, pool):
    return sorted(cluster.rbd('ls', pool).stdout.split())


def _read(cluster, pool, name, length):
    rados, rbd = ceph.import_bindings()
    with rados.Rados(conffile=cluster.client_conf, rados_id=cluster.client) as conn:
        with conn.open_ioctx(pool) as io, rbd.Image(io, name, read_only=True) as image:
            return image.read(0, length)


def _domain_disks(server_id):
    conn = base._libvirt_connection()
    try:
        xml = conn.lookupByUUIDString(server_id).XMLDesc(0)
    finally:
        conn.close()
    from lxml import etree
    return [(disk.get('type'), {key: disk.find('source').get(key)
                                for key in ('protocol', 'name')},
             disk.find('auth/secret').get('uuid') if disk.find('auth') is not None
             else None)
            for disk in etree.fromstring(xml).iterfind('./devices/disk')
            if disk.find('source') is not None]


def test_image_root_disk_and_volume_in_rbd(rbd_cloud, shared_cluster, guest_disk,
                                           tmp_path):
    cluster, openstack, http = shared_cluster, rbd_cloud.openstack, rbd_cloud.http
    image = openstack.json('image', 'create', '--disk-format', 'qcow2',
                           '--container-format', 'bare', '--file', str(guest_disk),
                           'rbd-guest')
    try:
        # Stored raw (converted once), with the protected snapshot clones come from.
        assert image['status'] == 'active' and image['disk_format'] == 'raw'
        assert _rbd_ls(cluster, 'images') == [image['id']]
        assert [(s['name'], s['protected']) for s in cluster.rbd_json(
            'snap', 'ls', 'images/' + image['id'])] == [('snap', 'true')]
        raw = tmp_path / 'guest.raw'
        subprocess.run(['qemu-img', 'convert', '-f', 'qcow2', '-O', 'raw',
                        str(guest_disk), str(raw)], check=True)
        # The download streams the raw bytes from RBD (the client checks their md5).
        openstack.run('image', 'save', '--file', str(tmp_path / 'saved'), image['id'])
        assert hashlib.sha256((tmp_path / 'saved').read_bytes()).digest() \
            == hashlib.sha256(raw.read_bytes()).digest()

        _boot_attach_and_delete(rbd_cloud, cluster, openstack, http, image, tmp_path)
        assert _rbd_ls(cluster, 'vms') == [] and _rbd_ls(cluster, 'volumes') == []
        assert _rbd_ls(cluster, 'images') == [image['id']]
    finally:
        openstack.run('image', 'delete', image['id'], check=False)
    assert _rbd_ls(cluster, 'images') == []


def test_a_boot_while_ceph_is_down_fails_naming_ceph_and_leaves_nothing(
        rbd_cloud, shared_cluster, tmp_path):
    cluster, openstack, http = shared_cluster, rbd_cloud.openstack, rbd_cloud.http
    raw = tmp_path / 'tiny.raw'
    raw.write_bytes(b'\xeb' + bytes(1024 ** 2 - 1))
    image = openstack.json('image', 'create', '--disk-format', 'raw',
                           '--container-format', 'bare', '--file', str(raw), 'tiny')
    server = None
    link = cluster.netns + 'i'  # the cluster's end of its veth pair
    try:
        subprocess.run(['ip', '-n', cluster.netns, 'link', 'set', link, 'down'],
                       check=True)
        try:
            server = openstack.json('server', 'create', '--flavor', 'tiny', '--image',
                                    image['id'], '--network', 'net1', 'no-ceph')
            shown = _wait('the boot to fail',
                          lambda: _server_in(http, server['id'], 'ERROR'), 180)
        finally:
            subprocess.run(['ip', '-n', cluster.netns, 'link', 'set', link, 'up'],
                           check=True)
        assert 'Ceph' in shown['fault']['message'], shown['fault']
        assert _rbd_ls(cluster, 'vms') == []
        assert rbd_cloud.leftovers(dict(shown, volumes=[], addresses=[])) == []
    finally:
        if server is not None:
            openstack.run('server', 'delete', '--wait', server['id'], check=False)
        openstack.run('image', 'delete', image['id'], check=False)
    assert _rbd_ls(cluster, 'images') == [] and _rbd_ls(cluster, 'vms') == []


def _server_in(http, server_id, status):
    shown = http.compute('GET', '/servers/' + server_id).json()['server']
    return shown if shown['status'] == status else None


def _boot_attach_and_delete(cloud, cluster, openstack, http, image, tmp_path):
    user_data = tmp_path / 'user-data'
    user_data.write_text(USER_DATA)
    server = openstack.json('server', 'create', '--flavor', 'tiny', '--image',
                            image['id'], '--network', 'net1', '--user-data',
                            str(user_data), 'rbd-vm')
    volume = None
    try:
        _wait('the guest to boot from its clone',
              lambda: _markers(http, server['id']).get('ready'),
              base.CONSOLE_TIMEOUT * 3)
        root = 'vms/%s_disk' % server['id']
        info = cluster.rbd_json('info', root)
        assert (info['parent']['pool'], info['parent']['image'],
                info['parent']['snapshot']) == ('images', image['id'], 'snap')
        assert info['size'] == 1024 ** 3  # grown to the flavor's disk
        cache = cloud.state_path / 'images'
        assert not cache.exists() or not any(cache.iterdir()), \
            'an image file was copied into the host cache: %s' % list(cache.iterdir())
        disks = _domain_disks(server['id'])
        assert disks[0] == ('network', {'protocol': 'rbd', 'name': root},
                            cloud.secret_uuid)
        assert _key_nowhere(cloud, cluster.key)

        volume = openstack.json('volume', 'create', '--size', '1', 'rbd-vol')
        openstack.run('server', 'add', 'volume', server['id'], volume['id'])
        marker = _wait('the guest to write to the volume',
                       lambda: _markers(http, server['id']).get('volume'), 180)
        assert marker.endswith(':' + WRITTEN), marker
        name = 'volume-%s' % volume['id']
        assert name in _rbd_ls(cluster, 'volumes')
        assert ('network', {'protocol': 'rbd', 'name': 'volumes/' + name},
                cloud.secret_uuid) in _domain_disks(server['id'])
        assert _read(cluster, 'volumes', name, len(WRITTEN)) == WRITTEN.encode()
        # The image is in use by the server: 409, and it stays.
        refused = openstack.run('image', 'delete', image['id'], check=False)
        assert refused.returncode != 0 and _rbd_ls(cluster, 'images') == [image['id']]
    finally:
        openstack.run('server', 'delete', '--wait', server['id'], check=False)
        if volume is not None:
            openstack.run('volume', 'delete', volume['id'], check=False)
            _wait('the volume to go', lambda: http.request(
                'GET', '/volume/v3/%s/volumes/%s' % (http.project_id, volume['id'])
            ).status_code == 404, 120)


def _key_nowhere(cloud, key):
    """The cephx key is in no file of the deployment: logs, database, flow store."""
    for path in cloud.root.rglob('*'):
        if path.is_file():
            assert key.encode() not in path.read_bytes(), 'the key is in %s' % path
    return True


def test_snapshot_of_a_server_on_rbd_is_a_flat_rbd_image_that_boots(
        rbd_cloud, shared_cluster, guest_disk):
    """Nova's direct snapshot: the root disk's RBD snapshot cloned into the images
    pool and flattened, with Glance's protected snapshot; a server boots from it."""
    cluster, openstack, http = shared_cluster, rbd_cloud.openstack, rbd_cloud.http
    image = openstack.json('image', 'create', '--disk-format', 'qcow2',
                           '--container-format', 'bare', '--file', str(guest_disk),
                           'rbd-snap-base')
    server = snapshot = copy = None
    try:
        server = openstack.json('server', 'create', '--flavor', 'tiny', '--image',
                                image['id'], '--network', 'net1', '--wait', 'rbd-src')
        _wait('the guest to boot', lambda: _markers(http, server['id']).get('ready'),
              base.CONSOLE_TIMEOUT * 3)
        snapshot = openstack.json('server', 'image', 'create', '--name', 'rbd-snap',
                                  '--wait', server['id'])
        shown = openstack.json('image', 'show', snapshot['id'])
        assert (shown['status'], shown['disk_format']) == ('active', 'raw')
        assert shown['checksum'] and shown['size'] == 1024 ** 3
        assert shown['properties']['image_type'] == 'snapshot'
        info = cluster.rbd_json('info', 'images/' + snapshot['id'])
        assert 'parent' not in info  # flattened: independent of the root disk
        assert [(s['name'], s['protected']) for s in cluster.rbd_json(
            'snap', 'ls', 'images/' + snapshot['id'])] == [('snap', 'true')]
        # The root disk's own snapshot is gone again.
        assert cluster.rbd_json('snap', 'ls', 'vms/%s_disk' % server['id']) == []
        assert openstack.json('server', 'show', server['id'])['status'] == 'ACTIVE'
        copy = openstack.json('server', 'create', '--flavor', 'tiny', '--image',
                              snapshot['id'], '--network', 'net1', '--wait', 'rbd-copy')
        _wait('the copy to boot', lambda: _markers(http, copy['id']).get('ready'),
              base.CONSOLE_TIMEOUT * 3)
        parent = cluster.rbd_json('info', 'vms/%s_disk' % copy['id'])['parent']
        assert (parent['pool'], parent['image']) == ('images', snapshot['id'])
    finally:
        for made in (copy, server):
            if made is not None:
                openstack.run('server', 'delete', '--wait', made['id'], check=False)
        for made in (snapshot, image):
            if made is not None:
                openstack.run('image', 'delete', made['id'], check=False)
    assert _rbd_ls(cluster, 'images') == [] and _rbd_ls(cluster, 'vms') == []
