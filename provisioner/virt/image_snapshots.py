"""A server's root disk captured for a new image (Nova's createImage), a mixin of
LibvirtDriver.

A running guest is paused for the capture: QEMU stops its vCPUs and flushes every
disk as it pauses (vm_stop drains and flushes the block layer), so the disk is then
consistent, as after a clean power cut, and stays still while it is read; the
guest runs on as soon as the copy (a file backend) or the snapshot (RBD) is made.
Nova's cold snapshot does the same with a managed save, slower; its live snapshot
(a blockRebase into a temporary overlay) needs no pause but a second copy of the
disk and a QEMU job to watch: for the small disks of this project the pause of a
local copy is shorter than the job's set-up.

    file root disk  -> ``qemu-img convert -U`` of the overlay chain into one
                       standalone qcow2, ``instances/<uuid>/snapshot-<image>.qcow2``,
                       which the engine uploads through the image service
    RBD root disk   -> with the image store in RBD too: Nova's direct snapshot
                       (provisioner.virt.ceph.copy_root_disk_to_image), hashed here;
                       else ``qemu-img convert`` of the RBD image into that file

Every call is idempotent: a finished capture is adopted, a partial one made again.
"""

import contextlib
import os
import subprocess

from provisioner import exception
from provisioner.image import rbd_store
from provisioner.image import store
from provisioner.virt import ceph

CAPTURE_FORMAT = 'qcow2'


class ImageSnapshots:
    """Needs the driver's instance_dir, _guest and _root_disk_path."""

    def capture_path(self, instance_uuid, image_id):
        rbd_store.check_name(image_id)
        return os.path.join(self.instance_dir(instance_uuid),
                            'snapshot-%s.%s' % (image_id, CAPTURE_FORMAT))

    @contextlib.contextmanager
    def _paused(self, instance_uuid, running):
        """The guest paused for as long as the context lasts, if it should run;
        unpaused after, whatever happened (a re-run finds it paused: the same)."""
        guest = self._guest(instance_uuid) if running else None
        if guest is not None:
            guest.pause()
        try:
            yield
        finally:
            if guest is not None:
                guest.unpause()

    def resume_after_capture(self, instance_uuid):
        """A paused guest (a capture cut short) runs on."""
        guest = self._guest(instance_uuid)
        if guest is not None:
            guest.unpause()

    def capture_root_disk(self, instance_uuid, image_id, running, direct_pool=None):
        """The root disk, captured: {'path', 'disk_format'} of a standalone file,
        or with ``direct_pool`` (root disks and images in RBD) {'location', 'size',
        'md5', 'sha256', 'sha512'} of the image's RBD image."""
        if direct_pool:
            where = ceph.copy_root_disk_to_image(
                instance_uuid, direct_pool, image_id,
                lambda: self._paused(instance_uuid, running))
            return dict(_digests(where), location=where)
        path = self.capture_path(instance_uuid, image_id)
        if os.path.exists(path):
            return {'path': path, 'disk_format': CAPTURE_FORMAT}
        if ceph.images_in_rbd():
            source, source_format = ceph.root_disk_qemu_source(instance_uuid), 'raw'
        else:
            source, source_format = self._root_disk_path(instance_uuid), 'qcow2'
        if not source:
            raise exception.HypervisorError(
                reason='instance %s has no root disk on this host to snapshot'
                       % instance_uuid)
        partial = path + '.part'
        with self._paused(instance_uuid, running):
            _convert(source, source_format, partial)
        os.chmod(partial, 0o600)
        os.replace(partial, path)
        return {'path': path, 'disk_format': CAPTURE_FORMAT}

    def delete_capture(self, instance_uuid, image_id, direct_pool=None):
        """What a capture made on this host (its file, or its RBD image and the
        root disk's snapshot); absent is fine."""
        if direct_pool:
            ceph.delete_image_copy(instance_uuid, direct_pool, image_id)
        path = self.capture_path(instance_uuid, image_id)
        for leftover in (path, path + '.part'):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(leftover)


def _convert(source, source_format, target):
    """One standalone qcow2 of the whole chain (-U: QEMU holds the source open)."""
    command = ['qemu-img', 'convert', '-U', '-f', source_format, '-O', CAPTURE_FORMAT,
               source, target]
    try:
        subprocess.run(command, check=True, capture_output=True, timeout=3600)
    except subprocess.CalledProcessError as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target)
        raise exception.HypervisorError(
            reason='capturing the root disk %s failed: %s'
                   % (source.split(':id=')[0],
                      exc.stderr.decode(errors='replace').strip()))


def _digests(location):
    """Size and Glance's hashes of an RBD image's bytes, as a download sends them."""
    digests = store.Digests()
    size = 0
    with rbd_store.Reader(location) as reader:
        for chunk in reader:
            digests.update(chunk)
            size += len(chunk)
    return {'size': size, 'md5': digests.md5.hexdigest(),
            'sha256': digests.sha256.hexdigest(), 'sha512': digests.sha512.hexdigest()}
