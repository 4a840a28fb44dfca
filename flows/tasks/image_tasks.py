"""Steps that bring the image to the host and make the root disk (steps 19-21)."""

from provisioner.compute import boot_volumes
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


def _boot_volume(instance_id):
    return instances.build_request(instance_id).boot_volume


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
    step = image_steps.CreateRootDisk

    def build_payload(self, instance_id, image_files):
        req = instances.build_request(instance_id)
        boot_volume = req.boot_volume
        copy_image = not boot_volume or _made_here(boot_volume)
        return image_steps.RootDiskPayload(
            instance_id=instance_id, disk_gib=boot_volume['size'] if boot_volume
            else req.disk_gib, image_disk=image_files.get('disk') if copy_image else None,
            disk_format=image_files.get('disk_format') if copy_image else None,
            boot_volume_id=boot_volume and boot_volume['id'])

    def record(self, result, instance_id, **arguments):
        boot_volume = _boot_volume(instance_id)
        if boot_volume:
            volumes.record_attached(boot_volume['id'], instances.host_of(instance_id),
                                    boot_volumes.ROOT_DEVICE)
        return result

    def build_undo_payload(self, instance_id):
        boot_volume = _boot_volume(instance_id)
        return image_steps.RootDiskUndoPayload(
            instance_id, boot_volume['id'] if boot_volume and _made_here(boot_volume)
            else None)

    def record_undo(self, instance_id, **arguments):
        boot_volume = _boot_volume(instance_id)
        if boot_volume:
            volumes.unbind(boot_volume['id'], existing=bool(boot_volume.get('existing')),
                           made_here=_made_here(boot_volume))


class DeleteRootDisk(base.HostTask):
    """Delete the instance's root disk."""

    deferrable = True
    step = image_steps.DeleteRootDisk
