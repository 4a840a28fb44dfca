"""The host image cache: verified copies, atomic, idempotent."""

import concurrent.futures
import contextlib
import hashlib
import io
import os
import stat
import threading
import time

import pytest

from provisioner import exception
from provisioner import fileperms
from provisioner.image import cache as image_cache

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


def _entries(cache):
    """What the cache holds besides lock files (kept: removing one races a locker)."""
    return [n for n in os.listdir(cache.base_dir) if not n.endswith('.lock')]


def test_checksum_mismatch_raises_and_leaves_nothing(cache, source):
    wrong = hashlib.sha256(b'other').hexdigest()
    with pytest.raises(exception.ImageInvalid, match='checksum mismatch'):
        cache.fetch('img', str(source), wrong)
    assert _entries(cache) == []


def test_missing_source_raises(cache, tmp_path):
    with pytest.raises(exception.ImageInvalid, match='cannot be read'):
        cache.fetch('img', str(tmp_path / 'gone.img'), SHA)
    assert _entries(cache) == []


def test_concurrent_fetches_share_one_copy(cache):
    """Boots of one image at once: one reads the source, the others wait for it."""
    opened = []
    release = threading.Event()

    @contextlib.contextmanager
    def open_source():
        opened.append(1)
        release.wait(5)  # the others arrive while this copy is under way
        yield io.BytesIO(DATA)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(cache.ensure, 'img', SHA, open_source, 'test')
                   for _ in range(4)]
        time.sleep(0.2)
        release.set()
        results = {f.result() for f in futures}
    assert results == {cache.path_for(SHA)}
    assert len(opened) == 1


def test_a_copy_cut_off_half_way_never_becomes_the_entry(cache):
    class Broken(io.BytesIO):
        def read(self, size=-1):
            if self.tell():
                raise OSError('connection reset')
            return super().read(5)

    with pytest.raises(OSError):
        cache.ensure('img', SHA, lambda: contextlib.nullcontext(Broken(DATA)), 'test')
    assert _entries(cache) == []
    assert cache.ensure('img', SHA, lambda: contextlib.nullcontext(io.BytesIO(DATA)),
                        'test') == cache.path_for(SHA)


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
