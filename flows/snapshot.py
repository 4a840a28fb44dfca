"""The volume service's snapshot and copy flows (no instance: each runs on the
host holding the bytes, and is found again by its resource's status).

    create-snapshot: guard -> copy the volume's file -> record available
    delete-snapshot: delete the snapshot's file -> forget the snapshot
    copy-volume:     guard -> copy a snapshot's or volume's file -> record available
"""

from taskflow.patterns import linear_flow

from flows import constants as c
from flows.steps import snapshot


def create_flow():
    flow = linear_flow.Flow(c.CREATE_SNAPSHOT_FLOW)
    flow.add(snapshot.SnapshotGuard(c.SNAPSHOT_GUARD),
             snapshot.SnapshotVolumeFile(c.SNAPSHOT_VOLUME_FILE),
             snapshot.RecordSnapshot(c.RECORD_SNAPSHOT))
    return flow


def delete_flow():
    flow = linear_flow.Flow(c.DELETE_SNAPSHOT_FLOW)
    flow.add(snapshot.DeleteSnapshotFile(c.DELETE_SNAPSHOT_FILE),
             snapshot.ForgetSnapshot(c.FORGET_SNAPSHOT))
    return flow


def copy_flow():
    flow = linear_flow.Flow(c.COPY_VOLUME_FLOW)
    flow.add(snapshot.CopyGuard(c.COPY_GUARD),
             snapshot.CopyVolumeFile(c.COPY_VOLUME_FILE),
             snapshot.RecordVolumeCopy(c.RECORD_VOLUME_COPY))
    return flow
