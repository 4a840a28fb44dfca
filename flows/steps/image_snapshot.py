"""The steps of a server's snapshot into a new image (Nova's createImage).

The host halves find what they make by names derived from the instance's and the
image's ids (``instances/<uuid>/snapshot-<image id>.qcow2``, or the RBD image
``<images pool>/<image id>``), so a re-run adopts a finished capture and an undo
after a crash finds a partial one. The image itself is the engine's: made by the
request, filled by the upload, deleted by the guard's revert.
"""

import dataclasses
import logging

from provisioner.compute import states
from provisioner.image import fetcher

from flows import constants
from flows.steps import base

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class CapturePayload:
    instance_id: str
    image_id: str
    running: bool  # the guest runs: paused for the capture, running after
    direct_pool: str | None = None  # root disks and images in RBD: the images pool


@dataclasses.dataclass(frozen=True)
class UploadPayload:
    instance_id: str
    image_id: str
    captured: dict  # the capture's result


def _capture_payload(instance_id, image_snapshot):
    return CapturePayload(instance_id, image_snapshot['image_id'],
                          bool(image_snapshot['running']),
                          image_snapshot.get('direct_pool'))


class ImageSnapshotGuard(base.ProvisionerTask):
    """First atom of a snapshot: provides what the request recorded, read once.

    Reversion strategy: runs last in a rollback, once the host undid its capture
    (the guest running on); deletes the image (row and bytes), clears task_state,
    forgets the request and finishes the action with the fault.
    """

    default_provides = constants.IMAGE_SNAPSHOT

    def execute(self, instance_id, action_id):
        return self.records.snapshot_request(instance_id)

    def revert(self, instance_id, action_id, *args, flow_failures=None, **kwargs):
        fault = base.describe_failures(flow_failures, 'Snapshot')
        LOG.warning('Snapshot %s of instance %s rolled back: %s', action_id,
                    instance_id, fault)
        result = kwargs.get('result')
        image_id = result.get('image_id') if isinstance(result, dict) else None
        if image_id is not None:
            base.undo('delete image %s' % image_id, self.records.discard_snapshot_image,
                      image_id)
        self.records.restore_snapshotted(instance_id, action_id, fault)


class CaptureRootDiskOnHost(base.HostStep):
    name = 'image_snapshot.capture'
    Payload = UndoPayload = CapturePayload

    def run(self, payload):
        return base.driver().capture_root_disk(payload.instance_id, payload.image_id,
                                               payload.running, payload.direct_pool)

    def undo(self, payload, result):
        LOG.warning('Deleting the capture of instance %s for image %s',
                    payload.instance_id, payload.image_id)
        base.undo('delete capture', base.driver().delete_capture, payload.instance_id,
                  payload.image_id, payload.direct_pool)
        if payload.running:
            base.undo('resume guest', base.driver().resume_after_capture,
                      payload.instance_id)


class CaptureRootDisk(base.HostTask):
    """Capture the root disk on the server's host: a standalone qcow2 file, or
    (root disks and images in RBD) the image's own RBD image; a running guest is
    paused meanwhile.

    Reversion strategy: delete the capture (by its id-derived name, so one cut
    short by a crash is found too) and let a paused guest run on.
    """

    default_provides = constants.CAPTURED
    step = CaptureRootDiskOnHost

    def build_payload(self, instance_id, image_snapshot):
        return _capture_payload(instance_id, image_snapshot)

    build_undo_payload = build_payload

    def record(self, result, instance_id, **arguments):
        self.records.set_task_state(instance_id, states.IMAGE_PENDING_UPLOAD)
        return result


class UploadSnapshotOnHost(base.HostStep):
    """Upload a captured file through the image API (distributed); all-in-one
    (no image API to reach) the engine reads it. A direct snapshot is in place."""

    name = 'image_snapshot.upload'
    Payload = UploadPayload

    def run(self, payload):
        captured = payload.captured
        if 'location' in captured:
            return {'uploaded': False}
        return {'uploaded': fetcher.upload(payload.image_id, captured['path'])}


class UploadSnapshot(base.HostTask):
    """Fill the image with the capture: the file goes through the image service's
    upload path (checked, hashed, stored: queued -> saving -> active); a direct
    snapshot's RBD image becomes the image's location.

    Reversion strategy: none here; the guard deletes the image.
    """

    step = UploadSnapshotOnHost

    def before_run(self, instance_id, image_snapshot, captured):
        self.records.set_task_state(instance_id, states.IMAGE_UPLOADING)
        if 'location' not in captured:
            self.records.prepare_snapshot_upload(image_snapshot['image_id'],
                                                 captured['disk_format'])

    def build_payload(self, instance_id, image_snapshot, captured):
        return UploadPayload(instance_id, image_snapshot['image_id'], dict(captured))

    def record(self, result, instance_id, image_snapshot, captured):
        image_id = image_snapshot['image_id']
        if 'location' in captured:
            self.records.activate_snapshot_location(image_id, captured['location'],
                                                    captured)
        elif not result.get('uploaded'):
            self.records.upload_snapshot_file(image_id, captured['path'])
        return result


class DeleteCaptureOnHost(base.HostStep):
    name = 'image_snapshot.delete_capture'
    Payload = CapturePayload

    def run(self, payload):
        # A direct snapshot's RBD image is the image's data now: only a file goes.
        base.driver().delete_capture(payload.instance_id, payload.image_id)


class DeleteCapture(base.HostTask):
    """Delete the captured file: the image holds its data now.

    Reversion strategy: none; nothing after it can fail but the record.
    """

    step = DeleteCaptureOnHost

    def build_payload(self, instance_id, image_snapshot):
        return _capture_payload(instance_id, image_snapshot)


class RecordImageSnapshot(base.ProvisionerTask):
    """The snapshot is in: task_state cleared, the action finished, one write.

    Reversion strategy: none; it is the last step.
    """

    def execute(self, instance_id, action_id):
        self.records.conclude_snapshot(instance_id, action_id)
