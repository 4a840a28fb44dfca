"""The host image cache: verified copies, atomic, idempotent."""

import hashlib
import os
import stat

import pytest

from provisioner import exception
from provisioner.image import cache as image_cache
from provisioner.virt import fileperms

DATA = b'image bytes ' * 1000
SHA = hashlib.sha256(DATA).hexdigest()


@pytest.fixture
def source(tmp_path):
    path = tmp_path / 'source.img'
    path.write_bytes(DATA)
    return path


@pytest.fixture
def cache(tmp_path):
    return image_cache.ImageCache(str(tmp_path / 'images'))


def test_fetch_copies_and_verifies(cache, source):
    cached = cache.fetch('img', str(source), SHA)
    assert cached == os.path.join(cache.base_dir, SHA)
    with open(cached, 'rb') as f:
        assert f.read() == DATA
    # Only the owner and the hypervisor's group (QEMU reads base images) may read.
    assert stat.S_IMODE(os.stat(cached).st_mode) == 0o640
    assert stat.S_IMODE(os.stat(cache.base_dir).st_mode) == 0o750
    assert os.stat(cached).st_gid == fileperms.hypervisor_gid()


def test_second_fetch_trusts_the_marker(cache, source, monkeypatch):
    cache.fetch('img', str(source), SHA)
    os.unlink(source)  # neither the source nor a rehash is needed any more
    monkeypatch.setattr(image_cache, 'file_sha256', lambda path: pytest.fail('rehash'))
    assert cache.fetch('img', str(source), SHA.upper()) == cache.path_for(SHA)


def test_cached_file_changed_behind_our_back_is_replaced(cache, source):
    cached = cache.fetch('img', str(source), SHA)
    with open(cached, 'wb') as f:
        f.write(b'corrupted')
    assert cache.fetch('img', str(source), SHA) == cached
    with open(cached, 'rb') as f:
        assert f.read() == DATA


def test_checksum_mismatch_raises_and_leaves_nothing(cache, source):
    wrong = hashlib.sha256(b'other').hexdigest()
    with pytest.raises(exception.ImageInvalid, match='checksum mismatch'):
        cache.fetch('img', str(source), wrong)
    assert os.listdir(cache.base_dir) == []


def test_missing_source_raises(cache, tmp_path):
    with pytest.raises(exception.ImageInvalid, match='cannot be read'):
        cache.fetch('img', str(tmp_path / 'gone.img'), SHA)
    assert os.listdir(cache.base_dir) == []


def test_malformed_checksum_raises(cache, source):
    with pytest.raises(exception.ImageInvalid, match='not a sha256'):
        cache.fetch('img', str(source), '../../etc/passwd')


def test_a_copy_orphaned_by_a_killed_process_is_removed(tmp_path):
    import subprocess
    source = tmp_path / 'src.img'
    source.write_bytes(b'image bytes')
    sha = image_cache.file_sha256(str(source))
    cache = image_cache.ImageCache(str(tmp_path / 'cache'))
    dead = subprocess.Popen(['true'])  # a pid that no longer runs
    dead.wait()
    os.makedirs(cache.base_dir, exist_ok=True)
    orphan = os.path.join(cache.base_dir, '.%s.tmp-%d' % (sha, dead.pid))
    with open(orphan, 'wb') as f:
        f.write(b'half')
    cache.fetch('img', str(source), sha)
    assert not os.path.exists(orphan)
