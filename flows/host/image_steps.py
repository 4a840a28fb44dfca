"""Host side of the image steps: cache the image's files, make the root disk."""

import dataclasses
import logging

from flows.host import base

LOG = logging.getLogger(__name__)

IMAGE_FILES = ('disk', 'kernel', 'ramdisk')


@dataclasses.dataclass(frozen=True)
class ImagePayload:
    """The image's files and what they must hash to (sha256).

    A distributed host downloads each file (disk, kernel, ramdisk) from the image
    API by image id and part; the paths are where the image row says the files
    are, read only all-in-one (provisioner.image.fetcher).
    """

    instance_id: str
    image_id: str
    disk_format: str | None = None
    cmdline: str | None = None
    disk_path: str | None = None
    disk_sha256: str | None = None
    kernel_path: str | None = None
    kernel_sha256: str | None = None
    ramdisk_path: str | None = None
    ramdisk_sha256: str | None = None


class FetchImage(base.HostStep):
    """Bring the image's files into this host's cache, verifying their sha256."""

    Payload = ImagePayload

    def run(self, payload):
        cached = {'disk_format': payload.disk_format, 'cmdline': payload.cmdline}
        for kind in IMAGE_FILES:
            source = getattr(payload, '%s_path' % kind)
            if source:
                cached[kind] = base.driver().fetch_image(
                    payload.image_id, source, getattr(payload, '%s_sha256' % kind),
                    part=kind)
        return cached


@dataclasses.dataclass(frozen=True)
class RootDiskPayload:
    instance_id: str
    disk_gib: int
    image_disk: str | None = None  # the cached image file the overlay sits on
    disk_format: str | None = None
    # A boot from volume: the root disk is this volume, a full copy of the image.
    boot_volume_id: str | None = None


@dataclasses.dataclass(frozen=True)
class RootDiskUndoPayload:
    instance_id: str
    boot_volume_id: str | None = None


def delete_root_disk(instance_id):
    base.driver().delete_root_disk(instance_id)


class CreateRootDisk(base.HostStep):
    """Create the instance's root disk: a qcow2 overlay on the cached image, or for
    a boot from volume the volume (a full copy of the image, grown to its size)."""

    Payload = RootDiskPayload
    UndoPayload = RootDiskUndoPayload

    def run(self, payload):
        if payload.boot_volume_id:
            return base.driver().make_volume(payload.boot_volume_id, payload.disk_gib,
                                             payload.image_disk, payload.disk_format)
        return base.driver().create_root_disk(payload.instance_id, payload.image_disk,
                                              payload.disk_format, payload.disk_gib)

    def undo(self, payload, result):
        LOG.warning('Deleting the root disk of instance %s', payload.instance_id)
        if payload.boot_volume_id:
            base.undo('delete boot volume %s' % payload.boot_volume_id,
                      base.driver().delete_volume, payload.boot_volume_id)
        base.undo('delete root disk', delete_root_disk, payload.instance_id)


class DeleteRootDisk(base.HostStep):
    def run(self, payload):
        delete_root_disk(payload.instance_id)
