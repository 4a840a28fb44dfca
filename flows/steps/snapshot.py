"""The snapshot and copy steps of the volume service: snapshot a volume's file,
delete a snapshot's file, make a volume's file from a snapshot or another volume.

Each host half finds what it makes by a name derived from the snapshot's or the
new volume's id, so a re-run adopts it and an undo after a crash finds it.
"""

import dataclasses
import logging

from flows.steps import base

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class SnapshotPayload:
    snapshot_id: str
    volume_id: str


@dataclasses.dataclass(frozen=True)
class SnapshotIdPayload:
    snapshot_id: str


@dataclasses.dataclass(frozen=True)
class CopyPayload:
    volume_id: str
    size_gib: int
    source_snapshot_id: str | None = None
    source_volume_id: str | None = None


@dataclasses.dataclass(frozen=True)
class VolumeIdPayload:
    volume_id: str


def _delete_snapshot(snapshot_id):
    base.undo('delete snapshot %s' % snapshot_id,
              base.driver().delete_volume_snapshot, snapshot_id)


class SnapshotGuard(base.ProvisionerTask):
    """First atom of a snapshot's creation.

    Reversion strategy: runs last in a rollback, once the host dropped the copy;
    the snapshot is ``error`` (Cinder's), to be deleted by its owner.
    """

    def execute(self, snapshot_id):
        pass

    def revert(self, snapshot_id, *args, flow_failures=None, **kwargs):
        LOG.warning('Snapshot %s failed: %s', snapshot_id,
                    base.describe_failures(flow_failures, 'Snapshot'))
        self.records.mark_snapshot(snapshot_id, 'error')


class SnapshotVolumeFileOnHost(base.HostStep):
    """Copy the volume's file whole into the snapshot's; returns its path. Undo
    deletes the copy."""

    name = 'snapshot.create'
    Payload = SnapshotPayload
    UndoPayload = SnapshotIdPayload

    def run(self, payload):
        return base.driver().snapshot_volume(payload.volume_id, payload.snapshot_id)

    def undo(self, payload, result):
        _delete_snapshot(payload.snapshot_id)


class SnapshotVolumeFile(base.HostTask):
    """Copy the volume's file into the snapshot's on the host holding it.

    Reversion strategy: delete the snapshot's file (by its id-derived name, so a
    copy cut short by a crash is found too).
    """

    step = SnapshotVolumeFileOnHost

    def build_payload(self, snapshot_id, volume_id):
        return SnapshotPayload(snapshot_id, volume_id)

    def build_undo_payload(self, snapshot_id):
        return SnapshotIdPayload(snapshot_id)


class RecordSnapshot(base.ProvisionerTask):
    """The snapshot is available. Reversion strategy: none; it is the last step."""

    def execute(self, snapshot_id):
        self.records.mark_snapshot(snapshot_id, 'available')


class DeleteSnapshotFileOnHost(base.HostStep):
    """Delete a snapshot's file; an absent one is fine."""

    name = 'snapshot.delete'
    Payload = SnapshotIdPayload

    def run(self, payload):
        base.driver().delete_volume_snapshot(payload.snapshot_id)


class DeleteSnapshotFile(base.HostTask):
    """Delete the snapshot's file on its host.

    Reversion strategy: none; a failed delete leaves the snapshot error_deleting,
    and deleting it again is allowed.
    """

    step = DeleteSnapshotFileOnHost

    def build_payload(self, snapshot_id):
        return SnapshotIdPayload(snapshot_id)


class ForgetSnapshot(base.ProvisionerTask):
    """Drop the snapshot's row and give its gigabytes back."""

    def execute(self, snapshot_id):
        self.records.forget_snapshot(snapshot_id)


class CopyGuard(base.ProvisionerTask):
    """First atom of a volume's copy (from a snapshot or a volume): provides the
    host's payload, read once.

    Reversion strategy: runs last in a rollback; the volume is ``error``
    (Cinder's), its gigabytes counted until its owner deletes it.
    """

    default_provides = 'copy_payload'

    def execute(self, volume_id):
        return dataclasses.asdict(CopyPayload(volume_id=volume_id,
                                              **self.records.copy_source(volume_id)))

    def revert(self, volume_id, *args, flow_failures=None, **kwargs):
        LOG.warning('Copy into volume %s failed: %s', volume_id,
                    base.describe_failures(flow_failures, 'Volume copy'))
        self.records.mark_volume(volume_id, 'error')


class CopyVolumeFileOnHost(base.HostStep):
    """Make the volume's file a full copy of the snapshot's or the source
    volume's, grown to its size; returns its path. Undo deletes it."""

    name = 'snapshot.copy_volume'
    Payload = CopyPayload
    UndoPayload = VolumeIdPayload

    def run(self, payload):
        return base.driver().copy_volume(
            payload.volume_id, payload.size_gib,
            source_snapshot_id=payload.source_snapshot_id,
            source_volume_id=payload.source_volume_id)

    def undo(self, payload, result):
        LOG.warning('Deleting the copy %s', payload.volume_id)
        base.undo('delete volume %s' % payload.volume_id,
                  base.driver().delete_volume, payload.volume_id)


class CopyVolumeFile(base.HostTask):
    """Copy the source's file into the new volume's on the host holding it.

    Reversion strategy: delete the new volume's file (its id-derived name finds a
    copy cut short by a crash too).
    """

    step = CopyVolumeFileOnHost

    def build_payload(self, copy_payload):
        return CopyPayload(**copy_payload)

    def build_undo_payload(self, volume_id):
        return VolumeIdPayload(volume_id)


class RecordVolumeCopy(base.ProvisionerTask):
    """The volume is available, its bytes on the host. Reversion strategy: none."""

    def execute(self, volume_id):
        self.records.mark_volume(volume_id, 'available')
