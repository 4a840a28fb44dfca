"""Ceph RBD as the image store, root disks and volumes use it (fake bindings)."""

import base64
import hashlib
import io
import os
import subprocess

import pytest

from provisioner import exception
from provisioner.image import rbd_store
from provisioner.image import store
from tests.unit import fake_ceph

MIB = 1024 * 1024
KEY = base64.b64encode(b'0123456789abcdef').decode()


@pytest.fixture
def cluster(conf, monkeypatch, tmp_path):
    (tmp_path / 'ceph.conf').write_text(
        '[global]\nfsid = x\nmon host = [v2:10.9.0.2:3300,v1:10.9.0.2:6789]\n'
        '[client.provisioner]\nkeyring = %s\n' % (tmp_path / 'client.keyring'))
    (tmp_path / 'client.keyring').write_text('[client.provisioner]\n\tkey = %s\n' % KEY)
    conf.set_override('conf_file', str(tmp_path / 'ceph.conf'), 'ceph')
    conf.set_override('store', 'rbd', 'image')
    return fake_ceph.install(monkeypatch)


def test_an_import_is_sparse_snapshotted_and_protected(cluster):
    data = bytes(4 * MIB) + b'boot' + bytes(MIB)
    seen = []
    rbd_store.import_raw('images', 'img', io.BytesIO(data), len(data),
                         on_chunk=seen.append)
    image = cluster.pools['images']['img']
    assert (image.size, image.snaps, image.writes) == (len(data), {'snap': True}, 1)
    assert b''.join(seen) == data
    location = rbd_store.location(rbd_store.fsid(), 'images', 'img')
    assert location == 'rbd://%s/images/img/snap' % cluster.fsid
    reader = rbd_store.Reader(location, chunk=MIB)
    assert b''.join(reader) == data and reader.size == len(data)
    reader.close()
    # Every connection names the user and the conf, never a key.
    assert all(user == 'provisioner' and conf.endswith('ceph.conf')
               and 'key' not in options for user, conf, options in cluster.connections)


def test_a_clone_is_grown_adopted_and_blocks_the_image_delete(cluster):
    rbd_store.import_raw('images', 'img', io.BytesIO(b'x' * MIB), MIB)
    location = rbd_store.location('f', 'images', 'img')
    assert rbd_store.clone(location, 'vms', 'i1_disk', 8 * MIB) == 'rbd:vms/i1_disk'
    assert rbd_store.clone(location, 'vms', 'i1_disk', 8 * MIB) == 'rbd:vms/i1_disk'
    assert cluster.pools['vms']['i1_disk'].size == 8 * MIB
    assert cluster.pools['vms']['i1_disk'].parent == ('images', 'img', 'snap')
    with pytest.raises(rbd_store.ImageInUse) as refused:
        store.delete(location, image_id='img-id')
    assert isinstance(refused.value, exception.Conflict)
    assert 'vms/i1_disk' in str(refused.value)
    assert cluster.images('images') == ['img']
    assert rbd_store.remove('vms', 'i1_disk') and not rbd_store.remove('vms', 'i1_disk')
    assert store.delete(location) and cluster.images('images') == []


def test_a_cluster_that_is_down_fails_with_a_fault_naming_ceph(cluster):
    cluster.down = True
    with pytest.raises(rbd_store.CephUnavailable) as down:
        rbd_store.clone('rbd://f/images/img/snap', 'vms', 'i1_disk', MIB)
    assert 'Ceph cluster' in str(down.value) and down.value.http_status == 503
    assert not down.value.reschedulable  # every host shares the one cluster


def test_monitors_and_key_come_from_this_hosts_files(cluster, conf, tmp_path):
    assert rbd_store.monitors() == [('10.9.0.2', '6789')]
    assert rbd_store.key() == b'0123456789abcdef'
    conf.set_override('keyring', str(tmp_path / 'none'), 'ceph')
    with pytest.raises(rbd_store.CephUnavailable):
        rbd_store.key()


@pytest.mark.parametrize('bad', ['rbd://f/images/../x/snap', 'rbd://f/images/x',
                                 '/var/lib/x', 'rbd://f/im ages/x/snap'])
def test_only_well_formed_locations_name_images(bad):
    with pytest.raises(exception.Invalid):
        rbd_store.parse_location(bad)


def test_a_qcow2_upload_is_stored_raw_with_the_raw_bytes_hashes(cluster, tmp_path):
    raw = os.urandom(MIB)
    (tmp_path / 'd.raw').write_bytes(raw)
    subprocess.run(['qemu-img', 'convert', '-f', 'raw', '-O', 'qcow2',
                    str(tmp_path / 'd.raw'), str(tmp_path / 'd.qcow2')], check=True)
    upload = store.write('img-1', io.BytesIO((tmp_path / 'd.qcow2').read_bytes()))
    store.check_content(upload, 'qcow2')
    assert store.uses_rbd('qcow2') and not store.uses_rbd('aki')
    location, stored = store.commit_rbd(upload, 'img-1', 'qcow2')
    assert location == 'rbd://%s/images/img-1/snap' % cluster.fsid
    assert (stored.disk_format, stored.size, stored.virtual_size) == ('raw', MIB, MIB)
    assert (stored.md5, stored.sha256) == (hashlib.md5(raw).hexdigest(),
                                           hashlib.sha256(raw).hexdigest())
    assert os.listdir(store.directory()) == []  # no temporary file stays
    assert b''.join(rbd_store.Reader(location)) == raw


def test_a_failed_import_leaves_nothing(cluster, monkeypatch):
    upload = store.write('img-2', io.BytesIO(b'y' * MIB))
    monkeypatch.setattr(rbd_store, 'fsid', lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        store.commit_rbd(upload, 'img-2', 'raw')
    assert cluster.images('images') == [] and os.listdir(store.directory()) == []
