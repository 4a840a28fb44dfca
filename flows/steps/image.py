"""The image steps: bring the image to the host and make the root disk (documented
steps 19-21, and the delete flow's delete-root-disk)."""

import dataclasses
import logging

from flows import constants
from flows.steps import base

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


class FetchImageOnHost(base.HostStep):
    """Bring the image's files into this host's cache, verifying their sha256."""

    name = 'image.fetch'
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


class FetchImage(base.HostTask):
    """Bring the image's files into this host's cache (downloaded from the image
    API distributed), verifying their sha256.

    Reversion strategy: none; the cache is shared by every instance and kept.
    """

    default_provides = constants.IMAGE_FILES
    step = FetchImageOnHost

    def _request(self, instance_id):
        return self.records.build_request(instance_id)

    def build_payload(self, instance_id):
        image = self._request(instance_id).image
        files = {'%s_%s' % (kind, what): image['%s_%s' % (kind, what)]
                 for kind in IMAGE_FILES for what in ('path', 'sha256')}
        return ImagePayload(
            instance_id=instance_id, image_id=image['id'],
            disk_format=image['disk_format'], cmdline=image['cmdline'], **files)


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


class CreateRootDiskOnHost(base.HostStep):
    """Create the instance's root disk: a qcow2 overlay on the cached image, or for
    a boot from volume the volume (a full copy of the image, grown to its size)."""

    name = 'image.create_root_disk'
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


def _made_here(boot_volume):
    """Whether the step makes the root volume's bytes (so undoing deletes them): a
    boot's own volume, or an existing one that had no bytes on any host."""
    return not boot_volume.get('existing') or boot_volume.get('fresh')


class CreateRootDisk(base.HostTask):
    """Create the instance's root disk: a qcow2 overlay on the cached image, or for a
    boot from volume its root volume (a full copy of the image, unless an existing
    volume already has its bytes on this host), then in-use.

    Reversion strategy: delete the overlay, or the root volume if this step made it,
    by its deterministic name (the cached image stays); a boot's own volume is
    creating again, an existing one reserved for the boot again.
    """

    default_provides = constants.ROOT_DISK
    step = CreateRootDiskOnHost

    def _boot_volume(self, instance_id):
        return self.records.build_request(instance_id).boot_volume

    def build_payload(self, instance_id, image_files):
        req = self.records.build_request(instance_id)
        boot_volume = req.boot_volume
        copy_image = not boot_volume or _made_here(boot_volume)
        return RootDiskPayload(
            instance_id=instance_id, disk_gib=boot_volume['size'] if boot_volume
            else req.disk_gib, image_disk=image_files.get('disk') if copy_image else None,
            disk_format=image_files.get('disk_format') if copy_image else None,
            boot_volume_id=boot_volume and boot_volume['id'])

    def record(self, result, instance_id, **arguments):
        boot_volume = self._boot_volume(instance_id)
        if boot_volume:
            self.records.record_attached(boot_volume['id'],
                                         self.records.host_of(instance_id),
                                         self.records.ROOT_DEVICE)
        return result

    def build_undo_payload(self, instance_id):
        boot_volume = self._boot_volume(instance_id)
        return RootDiskUndoPayload(
            instance_id, boot_volume['id'] if boot_volume and _made_here(boot_volume)
            else None)

    def record_undo(self, instance_id, **arguments):
        boot_volume = self._boot_volume(instance_id)
        if boot_volume:
            self.records.unbind_volume(boot_volume['id'],
                                       existing=bool(boot_volume.get('existing')),
                                       made_here=_made_here(boot_volume))


class DeleteRootDiskOnHost(base.HostStep):
    name = 'image.delete_root_disk'

    def run(self, payload):
        delete_root_disk(payload.instance_id)


class DeleteRootDisk(base.HostTask):
    """Delete the instance's root disk."""

    deferrable = True
    step = DeleteRootDiskOnHost
