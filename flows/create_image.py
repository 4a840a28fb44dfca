"""The create-image flow: a server's snapshot into a new image (Nova's createImage).

    guard -> capture the root disk (the guest paused meanwhile) -> upload it into
          the image -> delete the capture -> record

The request made the image (queued) and set task_state image_snapshot; the capture
sets image_pending_upload, the upload image_uploading, the record clears it. The
host steps run on the server's host (its worker, distributed); the upload goes
through the image service's own path (queued -> saving -> active). Any failure
undoes the capture (the guest runs on if it ran), then the guard deletes the image,
row and bytes, clears task_state and fails the action: the server stays as it was.
"""

from taskflow.patterns import linear_flow

from flows import constants as c
from flows.steps import image_snapshot


def create_flow():
    flow = linear_flow.Flow(c.CREATE_IMAGE_FLOW)
    flow.add(image_snapshot.ImageSnapshotGuard(c.IMAGE_SNAPSHOT_GUARD),
             image_snapshot.CaptureRootDisk(c.CAPTURE_ROOT_DISK),
             image_snapshot.UploadSnapshot(c.UPLOAD_SNAPSHOT),
             image_snapshot.DeleteCapture(c.DELETE_CAPTURE),
             image_snapshot.RecordImageSnapshot(c.RECORD_IMAGE_SNAPSHOT))
    return flow


def factory():
    """(flow name, factory, factory arguments), for save_factory_details."""
    return c.CREATE_IMAGE_FLOW, create_flow, []
