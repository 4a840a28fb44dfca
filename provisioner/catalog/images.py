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
from provisioner import schemas

KIND = 'Image'
_QCOW2_MAGIC = b'QFI\xfb'


def detect_format(path):
    with open(path, 'rb') as f:
        return 'qcow2' if f.read(4) == _QCOW2_MAGIC else 'raw'


def create(name, file=None, kernel=None, ramdisk=None, disk_format=None, cmdline=None,
           arch=None, hypervisor_type=None, min_ram_mib=0, min_disk_gib=0):
    request = schemas.validate(schemas.IMAGE_CREATE, {
        'name': name, 'file': file, 'kernel': kernel, 'ramdisk': ramdisk,
        'disk_format': disk_format, 'cmdline': cmdline, 'arch': arch,
        'hypervisor_type': hypervisor_type, 'min_ram_mib': min_ram_mib,
        'min_disk_gib': min_disk_gib})
    if not file and not kernel:
        raise exception.Invalid(reason='an image needs --file (a disk image) or '
                                       '--kernel (with --ramdisk) for direct kernel boot')
    if ramdisk and not kernel:
        raise exception.Invalid(reason='--ramdisk needs --kernel')
    row = models.Image(id=str(uuid.uuid4()), name=name, cmdline=cmdline, size_bytes=0,
                       arch=arch, hypervisor_type=hypervisor_type,
                       min_ram_mib=request['min_ram_mib'] or 0,
                       min_disk_gib=request['min_disk_gib'] or 0)
    for kind, path in (('disk', request['file']), ('kernel', request['kernel']),
                       ('ramdisk', request['ramdisk'])):
        if path is None:
            continue
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
