"""Steps that bring the image to the host and make the root disk (steps 19-21)."""

from provisioner.compute import instances
from provisioner.volume import volumes

from flows import constants
from flows.host import image_steps
from flows.tasks import base


class FetchImage(base.HostTask):
    """Bring the image's files into this host's cache (downloaded from the image
    API distributed), verifying their sha256.

    Reversion strategy: none; the cache is shared by every instance and kept.
    """

    default_provides = constants.IMAGE_FILES
    step = image_steps.FetchImage

    def build_payload(self, instance_id):
        image = instances.build_request(instance_id).image
        files = {'%s_%s' % (kind, what): image['%s_%s' % (kind, what)]
                 for kind in image_steps.IMAGE_FILES for what in ('path', 'sha256')}
        return image_steps.ImagePayload(
            instance_id=instance_id, image_id=image['id'],
            disk_format=image['disk_format'], cmdline=image['cmdline'], **files)


def _boot_volume_id(instance_id):
    boot_volume = instances.build_request(instance_id).boot_volume
    return boot_volume['id'] if boot_volume else None


class CreateRootDisk(base.HostTask):
    """Create the instance's root disk: a qcow2 overlay on the cached image, or for a
    boot from volume its root volume (a full copy of the image), then in-use.

    Reversion strategy: delete the overlay, or the root volume, by its
    deterministic name (the cached image stays); the volume is creating again.
    """

    default_provides = constants.ROOT_DISK
    step = image_steps.CreateRootDisk

    def build_payload(self, instance_id, image_files):
        req = instances.build_request(instance_id)
        return image_steps.RootDiskPayload(
            instance_id=instance_id, disk_gib=req.boot_volume['size'] if req.boot_volume
            else req.disk_gib, image_disk=image_files.get('disk'),
            disk_format=image_files.get('disk_format'),
            boot_volume_id=_boot_volume_id(instance_id))

    def record(self, result, instance_id, **arguments):
        volume_id = _boot_volume_id(instance_id)
        if volume_id:
            volumes.record_attached(volume_id, instances.host_of(instance_id),
                                    '/dev/vda')
        return result

    def build_undo_payload(self, instance_id):
        return image_steps.RootDiskUndoPayload(instance_id, _boot_volume_id(instance_id))

    def record_undo(self, instance_id, **arguments):
        volume_id = _boot_volume_id(instance_id)
        if volume_id:
            volumes.unbind(volume_id)


class DeleteRootDisk(base.HostTask):
    """Delete the instance's root disk."""

    deferrable = True
    step = image_steps.DeleteRootDisk
