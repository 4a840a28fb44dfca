"""The device name of a volume attachment, reserved when the attach is asked for.

Nova reserves it within ``POST /servers/{id}/os-volume_attachments`` and answers it
(``"device": "/dev/vdb"``); so does provisioner, in the transaction that records the
attach: the first virtio name (vdb, vdc, ...) that none of the server's disks holds.
The attach flow hands it to the host, which plugs the volume in under it
(virt.libvirt.hotplug). The disks a server holds are those its domain was defined
with (virt.libvirt.designer: the root disk vda, the volumes made with the boot,
then the config drive when it is a virtio disk) and the volumes recorded on it with
a device.

A requested device is honoured when it is free; a malformed one is Nova's 400 (its
schema's pattern). One the server holds gets the next free name, as from Nova's
libvirt driver, which never honours a requested name (tempest asks for /dev/vdb,
which the config drive holds here).
"""

import re

import sqlalchemy as sa

from provisioner.conf import CONF
from provisioner.db import models
from provisioner import exception
from provisioner import naming

PREFIX = '/dev/vd'
# Nova's pattern of a device name (nova.block_device.match_device): prefix, letters.
PATTERN = '(^/dev/x{0,1}[a-z]{0,1}d{0,1})([a-z]+)[0-9]*$'
_PATTERN = re.compile(PATTERN)


def name(index):
    """/dev/vda for 0, /dev/vdb for 1, ... /dev/vdaa for 26."""
    return PREFIX + naming.disk_letters(index)


def _boot_disks(inst):
    """The names the domain's own disks may hold: the root, the volumes made with
    the boot, and the config drive after them if it is a virtio disk (a server
    booted without a root disk has each one name earlier: holding one more is
    harmless)."""
    count = 1 + len((inst.request_spec or {}).get('volume_sizes') or ())
    if CONF.libvirt.config_drive_bus == 'virtio':
        count += 1
    return {name(index) for index in range(count)}


def held(session, inst):
    """The device names the server's disks hold."""
    recorded = session.execute(
        sa.select(models.Volume.device)
        .where(models.Volume.instance_id == inst.id, models.Volume.device.is_not(None)))
    return _boot_disks(inst) | {device for device, in recorded}


def reserve(session, inst, requested=None):
    """The device for a new attachment to ``inst`` (its row, locked by the caller
    against a concurrent attach): ``requested`` if free, else the first free one."""
    taken = held(session, inst)
    if requested:
        found = _PATTERN.match(requested)
        if found is None:  # the API's schema says so first, in Nova's words
            raise exception.Invalid(reason='the supplied device path (%s) is invalid'
                                           % requested)
        wanted = PREFIX + found.group(2)
        if wanted not in taken:
            return wanted
    index = 1
    while name(index) in taken:
        index += 1
    return name(index)
