"""Steps that bring the image to the host and make the root disk (steps 19-21)."""

import logging

from provisioner.compute import instances

from flows import constants
from flows.tasks import base

LOG = logging.getLogger(__name__)

_IMAGE_FILES = ('disk', 'kernel', 'ramdisk')


class FetchImage(base.HostTask):
    """Copy the image's files into this host's cache, verifying their sha256.

    Reversion strategy: none; the cache is shared by every instance and kept.
    """

    default_provides = constants.IMAGE_FILES

    def execute(self, instance_id):
        image = instances.build_request(instance_id).image
        cached = {'disk_format': image['disk_format'], 'cmdline': image['cmdline']}
        for kind in _IMAGE_FILES:
            source = image['%s_path' % kind]
            if source:
                cached[kind] = base.driver().fetch_image(
                    image['id'], source, image['%s_sha256' % kind])
        return cached


def delete_root_disk(instance_id):
    base.driver().delete_root_disk(instance_id)


class CreateRootDisk(base.HostTask):
    """Create the instance's root disk: a qcow2 overlay on the cached image.

    Reversion strategy: delete the overlay by its deterministic name (the cached
    image stays).
    """

    default_provides = constants.ROOT_DISK

    def execute(self, instance_id, image_files):
        disk_gib = instances.build_request(instance_id).disk_gib
        return base.driver().create_root_disk(
            instance_id, image_files.get('disk'), image_files.get('disk_format'), disk_gib)

    def revert(self, instance_id, result, **kwargs):
        LOG.warning('Deleting the root disk of instance %s', instance_id)
        base.undo('delete root disk', delete_root_disk, instance_id)


class DeleteRootDisk(base.HostTask):
    """Delete the instance's root disk."""

    deferrable = True

    def execute(self, instance_id):
        delete_root_disk(instance_id)
