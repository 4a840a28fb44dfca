"""Images: a disk image (qcow2 or raw), or a kernel + ramdisk with an optional disk.

Registration records each file's absolute path and sha256; a host copies the file into
its cache and verifies the checksum there, so a file changed after registration is
refused at boot.
"""

import os
import uuid

from provisioner.catalog import common
from provisioner.db import models
from provisioner.image import cache as image_cache
from provisioner import exception
from provisioner import validation

KIND = 'Image'
_QCOW2_MAGIC = b'QFI\xfb'


def detect_format(path):
    with open(path, 'rb') as f:
        return 'qcow2' if f.read(4) == _QCOW2_MAGIC else 'raw'


def create(name, file=None, kernel=None, ramdisk=None, disk_format=None, cmdline=None):
    validation.name(name, 'image name')
    if not file and not kernel:
        raise exception.Invalid(reason='an image needs --file (a disk image) or '
                                       '--kernel (with --ramdisk) for direct kernel boot')
    if ramdisk and not kernel:
        raise exception.Invalid(reason='--ramdisk needs --kernel')
    if cmdline is not None and len(cmdline) > 1024:
        raise exception.Invalid(reason='the kernel command line is limited to 1024 '
                                       'characters')
    row = models.Image(id=str(uuid.uuid4()), name=name, cmdline=cmdline, size_bytes=0)
    for kind, path in (('disk', file), ('kernel', kernel), ('ramdisk', ramdisk)):
        if path is None:
            continue
        path = validation.readable_file(path, '--%s' % ('file' if kind == 'disk' else kind))
        setattr(row, '%s_path' % kind, path)
        setattr(row, '%s_sha256' % kind, image_cache.file_sha256(path))
        row.size_bytes += os.path.getsize(path)
    if file:
        detected = detect_format(row.disk_path)
        if disk_format and disk_format != detected:
            raise exception.Invalid(reason='--disk-format %s does not match the file, '
                                           'which is %s' % (disk_format, detected))
        row.disk_format = detected
    return common.add_unique(row, KIND)


_catalog = common.Catalog(models.Image, KIND,
                          common.instances_using(models.Instance.image_id))
list_all = _catalog.list_all
show = _catalog.show
delete = _catalog.delete
