"""The host image cache: image files copied once and verified by sha256.

Cached files are named by their sha256, so two images with the same bytes share one
file and a name can never point at other content. Files are 0640 (group: the
hypervisor's) in 0750 directories because QEMU reads them as backing files.

One copy per image and host: concurrent boots of the same image (threads of one
worker, or several processes sharing the state path) wait on an flock of the
image's lock file while the first one copies; they then find the verified file.
A copy is written to a temporary file and renamed into place only after its hash
matched, so a half-written or corrupted file never becomes the cache entry.
Where the bytes come from is the caller's: a local file (all-in-one) or the image
API (provisioner.image.fetcher).
"""

import contextlib
import fcntl
import glob
import hashlib
import json
import os
import re

from provisioner import exception
from provisioner import fileperms

_CHUNK = 1024 * 1024
_SHA256 = re.compile(r'^[0-9a-f]{64}$')


class ImageCache:
    def __init__(self, base_dir):
        self.base_dir = base_dir

    def path_for(self, sha256):
        return os.path.join(self.base_dir, sha256)

    def _marker_path(self, sha256):
        return os.path.join(self.base_dir, '.%s.verified' % sha256)

    def fetch(self, image_id, source_path, sha256):
        """Return the cached, verified copy of the local file ``source_path``."""
        return self.ensure(image_id, sha256, lambda: _open_local(image_id, source_path),
                           source_path)

    def ensure(self, image_id, sha256, open_source, origin):
        """Return the cached, verified file of ``sha256``; copy it if needed.

        ``open_source()`` gives a context manager of a binary stream with the
        image's bytes (read only when the cache lacks them); ``origin`` names
        where they come from in errors.
        """
        sha256 = (sha256 or '').lower()
        if not _SHA256.fullmatch(sha256):
            raise exception.ImageInvalid(
                image=image_id, reason='its checksum %r is not a sha256 hex digest; '
                                       're-register it with a valid sha256' % sha256)
        fileperms.private_dir(self.base_dir)
        cached = self.path_for(sha256)
        if self._verified(cached, sha256):
            return cached
        with self._locked(sha256):
            if self._verified(cached, sha256):
                return cached  # another boot copied it while we waited
            if os.path.exists(cached):
                # Cached without a marker (crash, old cache): check it, don't trust it.
                if file_sha256(cached) == sha256:
                    self._mark_verified(cached, sha256)
                    return cached
                os.unlink(cached)
            self._remove_abandoned_copies(sha256)
            with open_source() as source:
                self._copy_verified(image_id, source, origin, sha256, cached)
            self._mark_verified(cached, sha256)
            return cached

    @contextlib.contextmanager
    def _locked(self, sha256):
        # flock conflicts between open file descriptions, so it serialises the
        # threads of one process as well as processes.
        fd = os.open(os.path.join(self.base_dir, '.%s.lock' % sha256),
                     os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # releases the lock

    def _verified(self, cached, sha256):
        # The marker records size and mtime of the file it vouches for: a file
        # changed behind our back is rehashed instead of trusted.
        try:
            with open(self._marker_path(sha256)) as f:
                marker = json.load(f)
            stat = os.stat(cached)
        except (OSError, ValueError):
            return False
        return marker == {'sha256': sha256, 'size': stat.st_size,
                          'mtime_ns': stat.st_mtime_ns}

    def _mark_verified(self, cached, sha256):
        stat = os.stat(cached)
        marker = self._marker_path(sha256)
        tmp = '%s.tmp-%d' % (marker, os.getpid())
        with open(tmp, 'w') as f:
            json.dump({'sha256': sha256, 'size': stat.st_size,
                       'mtime_ns': stat.st_mtime_ns}, f)
        os.replace(tmp, marker)

    def _remove_abandoned_copies(self, sha256):
        """Delete half-written copies: under the lock, no one else is writing one."""
        for tmp in glob.glob(os.path.join(self.base_dir, '.%s.tmp-*' % sha256)):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)

    def _copy_verified(self, image_id, source, origin, sha256, cached):
        tmp = os.path.join(self.base_dir, '.%s.tmp-%d' % (sha256, os.getpid()))
        try:
            digest = hashlib.sha256()
            with open(tmp, 'wb') as out:
                for chunk in iter(lambda: source.read(_CHUNK), b''):
                    digest.update(chunk)
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            if digest.hexdigest() != sha256:
                raise exception.ImageInvalid(
                    image=image_id,
                    reason='checksum mismatch for %s: expected sha256 %s, got %s; the '
                           'data changed since the image was registered or uploaded '
                           '(a corrupted file): upload the image again'
                           % (origin, sha256, digest.hexdigest()))
            fileperms.private_file(tmp)
            os.replace(tmp, cached)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


@contextlib.contextmanager
def _open_local(image_id, source_path):
    try:
        source = open(source_path, 'rb')
    except OSError as exc:
        raise exception.ImageInvalid(
            image=image_id, reason='its file %s cannot be read (%s); restore the '
                                   'file or re-register the image'
                                   % (source_path, exc.strerror)) from exc
    with source:
        yield source


def file_sha256(path):
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(_CHUNK), b''):
            digest.update(chunk)
    return digest.hexdigest()
