"""The image store: hashed, atomic writes; content checks; nothing outside the store."""

import hashlib
import io
import os
import struct
import subprocess

import pytest

from provisioner import exception
from provisioner.image import store


def listing():
    return sorted(os.listdir(store.directory()))


def test_the_store_defaults_to_state_path_image_store(conf, tmp_path):
    # Not $state_path/images: that is the host's image cache.
    assert store.directory() == os.path.realpath(os.path.join(conf.state_path,
                                                              'image-store'))
    conf.set_override('store_directory', str(tmp_path / 'elsewhere'), group='image')
    assert store.directory() == str(tmp_path / 'elsewhere')


def test_write_hashes_and_commit_renames_into_place():
    data = os.urandom(store.CHUNK * 2 + 7)
    upload = store.write('img-1', io.BytesIO(data), expected_size=len(data))
    assert (upload.size, upload.md5, upload.sha256, upload.sha512) == (
        len(data), hashlib.md5(data).hexdigest(), hashlib.sha256(data).hexdigest(),
        hashlib.sha512(data).hexdigest())
    assert os.path.basename(upload.tmp_path).startswith('.img-1.upload-')
    assert oct(os.stat(upload.tmp_path).st_mode & 0o777) == '0o600'
    path = store.commit(upload, 'img-1')
    assert listing() == ['img-1'] and open(path, 'rb').read() == data
    assert oct(os.stat(store.directory()).st_mode & 0o777) == '0o700'
    assert b''.join(store.FileChunks(open(path, 'rb'))) == data


def test_a_short_stream_is_incomplete_and_leaves_nothing():
    with pytest.raises(store.Incomplete) as err:
        store.write('img-1', io.BytesIO(b'abc'), expected_size=10)
    assert 'after 3 of 10 bytes' in str(err.value)
    assert listing() == []


def test_a_stream_that_fails_leaves_nothing():
    class Broken(io.BytesIO):
        def read(self, size=-1):
            raise ConnectionResetError('peer went away')

    with pytest.raises(ConnectionResetError):
        store.write('img-1', Broken())
    assert listing() == []


def test_the_size_limit_holds_with_or_without_a_length(conf):
    conf.set_override('max_image_size', 10, group='image')
    with pytest.raises(store.TooLarge):
        store.write('img-1', io.BytesIO(b'x' * 11), expected_size=11)
    with pytest.raises(store.TooLarge):
        store.write('img-1', io.BytesIO(b'x' * 11))
    assert store.write('img-1', io.BytesIO(b'x' * 10)).size == 10


@pytest.mark.parametrize('name', ['../etc', '.hidden', 'a/b', '', 'x' * 300])
def test_names_cannot_leave_the_store(name):
    with pytest.raises(exception.Invalid):
        store.path_for(name)


def test_delete_never_touches_files_outside_the_store(tmp_path):
    outside = tmp_path / 'registered.qcow2'
    outside.write_bytes(b'mine')
    assert not store.contains(str(outside))
    assert store.delete(str(outside)) is False and outside.exists()
    path = store.commit(store.write('img-1', io.BytesIO(b'x')), 'img-1')
    assert store.contains(path) and store.delete(path) and listing() == []


def test_abandoned_uploads_are_removed():
    os.makedirs(store.directory(), exist_ok=True)
    for name in ('.img-1.upload-dead', '.img-2.upload-alive'):
        open(os.path.join(store.directory(), name), 'w').close()
    store.remove_abandoned_uploads('img-1')
    assert listing() == ['.img-2.upload-alive']


def _qcow2_header(backing_offset=0, version=3, incompatible=0):
    header = b'QFI\xfb' + struct.pack('>IQIIQ', version, backing_offset, 0, 16, 1 << 20)
    header = header.ljust(72, b'\0') + struct.pack('>Q', incompatible)
    return header.ljust(104, b'\0')


def _check(data, disk_format):
    upload = store.write('img-1', io.BytesIO(data))
    try:
        return store.check_content(upload, disk_format)
    finally:
        store.discard(upload.tmp_path)


def test_qcow2_headers_naming_host_files_are_refused(monkeypatch):
    monkeypatch.setattr(store.shutil, 'which', lambda name: None)  # header only
    assert _check(_qcow2_header(), 'qcow2').virtual_size is None
    with pytest.raises(store.BadContent, match='backing file'):
        _check(_qcow2_header(backing_offset=512), 'qcow2')
    with pytest.raises(store.BadContent, match='external data file'):
        _check(_qcow2_header(incompatible=1 << 2), 'qcow2')
    with pytest.raises(store.BadContent, match='truncated'):
        _check(b'QFI\xfb\0\0\0\3', 'qcow2')


def test_qemu_img_checks_a_real_qcow2(tmp_path):
    path = tmp_path / 'd.qcow2'
    subprocess.run(['qemu-img', 'create', '-f', 'qcow2', str(path), '2M'], check=True,
                   capture_output=True)
    assert _check(path.read_bytes(), 'qcow2').virtual_size == 2 * 1024 * 1024
    with pytest.raises(store.BadContent, match='qemu-img cannot read'):
        header = _qcow2_header()
        _check(header[:20] + b'\0\0\0\0' + header[24:], 'qcow2')  # cluster_bits 0


def test_raw_and_kernel_data_are_taken_as_they_are():
    assert _check(b'\0' * 100, 'raw').virtual_size == 100
    assert _check(b'QFI\xfb-ish kernel', 'aki').virtual_size is None
    with pytest.raises(store.BadContent, match='is a qcow2'):
        _check(_qcow2_header(), 'raw')
