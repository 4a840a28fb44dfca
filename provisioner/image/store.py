"""The image store: uploaded images' bytes, one file per image in one directory.

An upload is written to a temporary file next to its final name while it is hashed
(Glance's md5 ``checksum`` and sha512 ``os_hash_value``, plus the sha256 the host
image cache verifies), and renamed into place only once it is complete and its
content has been checked: a reader never sees a partial file, and an upload cut
off half-way leaves nothing behind. Files are the API's own (0600 in a 0700
directory): hosts copy them into their caches, QEMU never opens them here.

With [image] store = rbd (Glance's rbd store) a checked disk image (raw, or qcow2
converted to raw once here) goes on from its temporary file into an RBD image of
[image] rbd_pool with a protected snapshot (provisioner.image.rbd_store); its
location (rbd://fsid/pool/id/snap) takes the file's place in the image row, and the
hashes are those of the raw bytes a download sends.
"""

import contextlib
import dataclasses
import glob
import hashlib
import json
import logging
import os
import re
import shutil
import struct
import subprocess
import uuid

from provisioner.conf import CONF
from provisioner import disk_formats
from provisioner import exception
from provisioner.image import rbd_store

LOG = logging.getLogger(__name__)

CHUNK = 1024 * 1024
HASH_ALGO = 'sha512'  # Glance's default [DEFAULT] hashing_algorithm
_QCOW2_EXTERNAL_DATA_FILE = 1 << 2  # incompatible feature bit (qcow2 v3)
_SAFE_NAME = re.compile(r'^[A-Za-z0-9._-]{1,255}$')
_QEMU_IMG_TIMEOUT = 30


class TooLarge(exception.Invalid):
    http_status = 413
    msg_fmt = 'The image is larger than the limit of %(limit)d bytes ([image] ' \
              'max_image_size).'


class Incomplete(exception.Invalid):
    msg_fmt = 'The upload ended after %(received)d of %(expected)d bytes; nothing ' \
              'was stored. Upload the image again.'


class BadContent(exception.Invalid):
    msg_fmt = 'The image data is refused: %(reason)s'


@dataclasses.dataclass
class Upload:
    """A complete, hashed upload waiting in its temporary file to be committed."""

    tmp_path: str
    size: int
    md5: str
    sha256: str
    sha512: str
    virtual_size: int | None = None
    disk_format: str | None = None  # set when the store converted the data


class Digests:
    """Glance's md5 checksum, its sha512 os_hash_value and the caches' sha256."""

    def __init__(self):
        self.md5 = hashlib.md5(usedforsecurity=False)
        self.sha256, self.sha512 = hashlib.sha256(), hashlib.sha512()

    def update(self, chunk):
        for digest in (self.md5, self.sha256, self.sha512):
            digest.update(chunk)

    def upload(self, path, size, **fields):
        return Upload(path, size, self.md5.hexdigest(), self.sha256.hexdigest(),
                      self.sha512.hexdigest(), **fields)


def directory():
    return os.path.realpath(CONF.image.store_directory
                            or os.path.join(CONF.state_path, 'image-store'))


def path_for(name):
    """The store's file for ``name`` (an image id); never a path outside the store."""
    if not _SAFE_NAME.fullmatch(name) or name.startswith('.'):
        raise exception.Invalid(reason='%r cannot name a file in the image store'
                                       % name)
    return os.path.join(directory(), name)


def contains(path):
    """Whether ``path`` is a file of the store (not a registered image's file)."""
    if not path:
        return False
    store = directory()
    return os.path.dirname(os.path.realpath(path)) == store


def _ensure_directory():
    store = directory()
    os.makedirs(store, mode=0o700, exist_ok=True)
    return store


def write(name, stream, expected_size=None, limit=None):
    """Copy ``stream`` into a temporary file of the store, hashing it on the way.

    Reads at most ``limit`` bytes (default [image] max_image_size) in chunks of 1
    MiB: TooLarge beyond it, Incomplete if fewer than ``expected_size`` bytes
    came (the client went away). On any failure the temporary file is removed.
    """
    limit = CONF.image.max_image_size if limit is None else limit
    if expected_size is not None and expected_size > limit:
        raise TooLarge(limit=limit)
    store = _ensure_directory()
    path_for(name)  # validates the name
    tmp = os.path.join(store, '.%s.upload-%s' % (name, uuid.uuid4().hex))
    digests = Digests()
    size = 0
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, 'wb') as out:
            while True:
                wanted = CHUNK if expected_size is None \
                    else min(CHUNK, expected_size - size)
                if wanted <= 0:
                    break
                chunk = stream.read(wanted)
                if not chunk:
                    break
                size += len(chunk)
                if size > limit:
                    raise TooLarge(limit=limit)
                digests.update(chunk)
                out.write(chunk)
            if expected_size is not None and size < expected_size:
                raise Incomplete(received=size, expected=expected_size)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        discard(tmp)
        raise
    return digests.upload(tmp, size)


def commit(upload, name):
    """Rename a checked upload into place (atomic); return the store's path."""
    final = path_for(name)
    os.replace(upload.tmp_path, final)
    return final


def uses_rbd(disk_format):
    """Whether an upload of ``disk_format`` goes to RBD ([image] store = rbd)."""
    return CONF.image.store == 'rbd' and disk_format in ('raw', 'qcow2')


def commit_rbd(upload, name, disk_format):
    """Import a checked upload into RBD as raw (a qcow2 converted first); return its
    location and the Upload of the raw bytes. The temporary files are removed;
    nothing stays in RBD if the import fails."""
    raw = upload.tmp_path
    try:
        if disk_format == 'qcow2':
            raw = upload.tmp_path + '.raw'
            _qemu_img(['convert', '-f', 'qcow2', '-O', 'raw', upload.tmp_path, raw],
                      'converting the qcow2 image to raw failed', timeout=3600)
        size = os.path.getsize(raw)
        digests = Digests()
        try:
            with open(raw, 'rb') as f:
                rbd_store.import_raw(CONF.image.rbd_pool, name, f, size,
                                     on_chunk=digests.update)
            where = rbd_store.location(rbd_store.fsid(), CONF.image.rbd_pool, name)
        except BaseException:
            with contextlib.suppress(Exception):
                rbd_store.remove(CONF.image.rbd_pool, name)
            raise
    finally:
        discard(raw)
        discard(upload.tmp_path)
    return where, digests.upload(None, size, virtual_size=size, disk_format='raw')


def discard(path):
    if rbd_store.is_location(path):
        pool, name, _ = rbd_store.parse_location(path)
        rbd_store.remove(pool, name)
        return
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def delete(path, image_id=None):
    """Delete a store file or RBD image; a path outside the store is left alone (and
    logged). ImageInUse (409) while an RBD image has clones."""
    if rbd_store.is_location(path):
        pool, name, _ = rbd_store.parse_location(path)
        return rbd_store.remove(pool, name, image_id=image_id)
    if not contains(path):
        LOG.warning('Not deleting %s: it is not in the image store %s', path,
                    directory())
        return False
    discard(path)
    return True


def remove_abandoned_uploads(name):
    """Delete temporary files of earlier uploads of ``name`` (a crashed server's);
    an RBD image of that name is replaced by the import itself."""
    for tmp in glob.glob(os.path.join(directory(), '.%s.upload-*' % glob.escape(name))):
        discard(tmp)


class FileChunks:
    """An open file as a WSGI app_iter: chunks of CHUNK bytes, closed by the server
    when the response ends (sent or not)."""

    def __init__(self, f, chunk=CHUNK):
        self.file, self.chunk = f, chunk

    def __iter__(self):
        return iter(lambda: self.file.read(self.chunk), b'')

    def close(self):
        self.file.close()


# -- content checks --------------------------------------------------------------

def check_content(upload, disk_format):
    """Refuse data that is not what ``disk_format`` says, or that names host files.

    A qcow2 image with a backing file or an external data file would make QEMU
    (and qemu-img on this host) open a file the uploader chose: refused. Records
    the virtual size on ``upload``.
    """
    with open(upload.tmp_path, 'rb') as f:
        header = f.read(104)
    is_qcow2 = header[:4] == disk_formats.QCOW2_MAGIC
    if disk_format == 'qcow2':
        if not is_qcow2:
            raise BadContent(reason='disk_format is qcow2 but the data is not a qcow2 '
                                    'image (no QFI\\xfb magic); give the right '
                                    '--disk-format (raw?)')
        _check_qcow2_header(header)
        upload.virtual_size = _qemu_img_virtual_size(upload.tmp_path)
    elif disk_format == 'raw':
        if is_qcow2:
            raise BadContent(reason='disk_format is raw but the data is a qcow2 image; '
                                    'create the image with --disk-format qcow2')
        upload.virtual_size = upload.size
    return upload


def _check_qcow2_header(header):
    if len(header) < 72:
        raise BadContent(reason='the qcow2 header is truncated')
    version, backing_offset = struct.unpack('>IQ', header[4:16])
    if backing_offset:
        raise BadContent(reason='the qcow2 image has a backing file; upload a '
                                'standalone image (qemu-img convert -O qcow2)')
    if version >= 3 and len(header) >= 80:
        incompatible = struct.unpack('>Q', header[72:80])[0]
        if incompatible & _QCOW2_EXTERNAL_DATA_FILE:
            raise BadContent(reason='the qcow2 image has an external data file; '
                                    'upload a standalone image')


def _qemu_img_virtual_size(path):
    """``qemu-img info`` of a qcow2, under CPU and memory limits (a hostile header
    must not exhaust the host); refuses backing and external data files."""
    if shutil.which('qemu-img') is None:
        LOG.warning('qemu-img is not installed: %s was checked by its header only',
                    path)
        return None
    result = _qemu_img(['info', '--output', 'json', '-f', 'qcow2', path],
                       'qemu-img cannot read it as qcow2')
    try:
        info = json.loads(result.stdout)
    except ValueError:
        raise BadContent(reason='qemu-img info gave no JSON') from None
    if info.get('format') != 'qcow2':
        raise BadContent(reason='qemu-img sees format %s, not qcow2' % info.get('format'))
    if info.get('backing-filename') or info.get('full-backing-filename'):
        raise BadContent(reason='the qcow2 image has a backing file; upload a '
                                'standalone image (qemu-img convert -O qcow2)')
    data = (info.get('format-specific') or {}).get('data') or {}
    if data.get('data-file'):
        raise BadContent(reason='the qcow2 image has an external data file; upload a '
                                'standalone image')
    return info.get('virtual-size')


def _qemu_img(args, doing, timeout=_QEMU_IMG_TIMEOUT):
    """Run qemu-img under CPU and memory limits (a hostile header must not exhaust
    the host); BadContent if it fails."""
    qemu_img = shutil.which('qemu-img')
    if qemu_img is None:
        raise BadContent(reason='qemu-img is not installed: %s is impossible' % doing)
    limits = 'ulimit -v %d -t %d; exec "$@"' % (1024 * 1024, timeout)
    try:
        result = subprocess.run(['/bin/sh', '-c', limits, 'qemu-img', qemu_img] + args,
                                capture_output=True, timeout=timeout + 5, check=False)
    except subprocess.TimeoutExpired:
        raise BadContent(reason='qemu-img %s did not finish in %d s'
                                % (args[0], timeout)) from None
    if result.returncode != 0:
        raise BadContent(reason='%s: %s' % (
            doing, result.stderr.decode(errors='replace').strip()[:500]))
    return result
