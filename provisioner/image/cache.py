"""The host image cache: registered image files copied once and verified by sha256.

Cached files are named by their sha256, so two images with the same bytes share one
file and a name can never point at other content. Files are 0644 and directories
0755 because QEMU runs as libvirt-qemu and reads them as backing files.
"""

import contextlib
import glob
import hashlib
import json
import os
import re

from provisioner import exception
from provisioner.virt import fileperms

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
        """Return the cached, verified copy of ``source_path``; copy it if needed."""
        sha256 = (sha256 or '').lower()
        if not _SHA256.fullmatch(sha256):
            raise exception.ImageInvalid(
                image=image_id, reason='its checksum %r is not a sha256 hex digest; '
                                       're-register it with a valid sha256' % sha256)
        fileperms.private_dir(self.base_dir)
        cached = self.path_for(sha256)
        if self._verified(cached, sha256):
            return cached
        if os.path.exists(cached):
            # Cached without a marker (crash, old cache): check it rather than trust it.
            if file_sha256(cached) == sha256:
                self._mark_verified(cached, sha256)
                return cached
            os.unlink(cached)
        self._copy_verified(image_id, source_path, sha256, cached)
        self._mark_verified(cached, sha256)
        return cached

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

    def _remove_orphaned_copies(self, sha256):
        """Delete half-copied files whose writer was killed (named after its pid)."""
        for tmp in glob.glob(os.path.join(self.base_dir, '.%s.tmp-*' % sha256)):
            try:
                os.kill(int(tmp.rsplit('-', 1)[1]), 0)
            except ProcessLookupError:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
            except (ValueError, PermissionError):
                pass  # not ours to judge: a malformed name, or a live process

    def _copy_verified(self, image_id, source_path, sha256, cached):
        try:
            source = open(source_path, 'rb')
        except OSError as exc:
            raise exception.ImageInvalid(
                image=image_id, reason='its file %s cannot be read (%s); restore the '
                                       'file or re-register the image'
                                       % (source_path, exc.strerror)) from exc
        self._remove_orphaned_copies(sha256)
        tmp = os.path.join(self.base_dir, '.%s.tmp-%d' % (sha256, os.getpid()))
        try:
            digest = hashlib.sha256()
            with source, open(tmp, 'wb') as out:
                for chunk in iter(lambda: source.read(_CHUNK), b''):
                    digest.update(chunk)
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
            if digest.hexdigest() != sha256:
                raise exception.ImageInvalid(
                    image=image_id,
                    reason='checksum mismatch for %s: expected sha256 %s, got %s; the '
                           'file changed since it was registered'
                           % (source_path, sha256, digest.hexdigest()))
            fileperms.private_file(tmp)
            os.replace(tmp, cached)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def file_sha256(path):
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(_CHUNK), b''):
            digest.update(chunk)
    return digest.hexdigest()
