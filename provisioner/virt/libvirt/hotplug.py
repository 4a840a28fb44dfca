"""Volumes plugged into and out of a domain while it runs (and in its definition).

A volume's disk is a virtio disk whose serial is the volume id (as Nova's, cut to
the 20 characters virtio keeps), so a guest finds it under /dev/disk/by-id. The
target name is the one the attach reserved (the API answered it), else, or if a
disk of the domain (live or defined) holds it, the first vdX none uses; a volume
already plugged in is found by its source file and adopted, so a step run again
after a crash attaches nothing twice.
"""

import logging
import time

from provisioner import exception
from provisioner.virt.libvirt import config
from provisioner.virt.libvirt import designer

LOG = logging.getLogger(__name__)

SERIAL_LENGTH = 20  # virtio-blk keeps this many characters of a serial
# A guest still booting (its ACPI hotplug handler not yet loaded) ignores an unplug
# request: it is sent again this often while the guest holds the disk, as Nova's
# libvirt driver retries a detach.
DETACH_RESEND_S = 5.0


def _targets(guest):
    live, defined = guest.disks(live=True), guest.disks(live=False)
    return {**defined, **live}


def target_of(guest, path):
    """The target dev of the disk backed by ``path``, live or defined; or None."""
    for target, source in _targets(guest).items():
        if source == path:
            return target
    return None


def free_target(guest):
    used = set(_targets(guest))
    index = 0
    while designer.dev_name('virtio', index) in used:
        index += 1
    return designer.dev_name('virtio', index)


def disk_xml(path, target, volume_id, readonly=False, rbd=None):
    return config.GuestDisk(path, target, serial=volume_id[:SERIAL_LENGTH],
                            readonly=readonly, rbd=rbd,
                            pci_slot=designer.disk_pci_slot(target)).to_xml()


def _target(guest, path, wanted):
    """The target the volume's file is plugged in (or is to be): where it already
    is, else ``wanted`` if no disk holds it, else the first free one."""
    target = target_of(guest, path)
    if target is not None:
        return target
    if wanted and wanted not in _targets(guest):
        return wanted
    if wanted:
        LOG.warning('Target %s of %s holds another disk: %s goes in as the first '
                    'free target instead', wanted, guest.name, path)
    return free_target(guest)


def attach(guest, path, volume_id, readonly=False, rbd=None, target=None):
    """Plug the volume's file in (``readonly``: as a read-only disk), live (if the
    domain runs) and in the definition, as ``target`` (vdc) if free; its target
    dev. A half-plugged volume (live only, or defined only) is completed.
    """
    live, defined = guest.disks(live=True), guest.disks(live=False)
    target = _target(guest, path, target)
    xml = disk_xml(path, target, volume_id, readonly, rbd)
    if defined.get(target) != path:
        guest.attach_device(xml, live=False)
    if guest.is_active() and live.get(target) != path:
        guest.attach_device(xml, persistent=False)
    return target


def detach(guest, path, volume_id, timeout, interval=0.2, rbd=None):
    """Unplug the volume's file and wait until the running guest let it go.

    The definition loses the disk at once; the running guest has ``timeout`` s to
    release it (it must, for data it cached to be written). Raises HypervisorError
    when it did not; absent already is success.
    """
    target = target_of(guest, path)
    if target is None:
        return
    xml = disk_xml(path, target, volume_id, rbd=rbd)
    if guest.disks(live=False).get(target) == path:
        guest.detach_device(xml, live=False)
    if not guest.is_active() or guest.disks(live=True).get(target) != path:
        return
    guest.detach_device(xml, persistent=False)
    started = time.monotonic()
    deadline, resend_at = started + timeout, started + DETACH_RESEND_S
    while guest.is_active() and guest.disks(live=True).get(target) == path:
        now = time.monotonic()
        if now >= deadline:
            raise exception.HypervisorError(
                reason='the guest of %s did not release disk %s within %d s'
                       % (guest.name, target, timeout))
        if now >= resend_at:
            resend_at = now + DETACH_RESEND_S
            _request_unplug_again(guest, xml, target)
        time.sleep(interval)


def _request_unplug_again(guest, xml, target):
    """Ask once more; a refusal (libvirt: the unplug is still pending) only means
    the first request stands, and the wait goes on."""
    try:
        guest.detach_device(xml, persistent=False)
    except exception.HypervisorError as exc:
        LOG.debug('Unplug of %s from %s asked again: %s', target, guest.name, exc)
