"""The volume steps: create the instance's volumes in the host's pool, and delete
them (documented steps 25-27, and the delete flow's delete-volumes)."""

import dataclasses
import logging

from provisioner.compute import states
from provisioner import naming

from flows import constants
from flows.steps import base

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class CreateVolumesPayload:
    instance_id: str
    volumes: list  # [volume id, size in GiB] per requested volume, in order


@dataclasses.dataclass(frozen=True)
class VolumeIdsPayload:
    instance_id: str
    volume_ids: list  # every id the request asked for, made or not


def delete_volumes(payload):
    for vol_id in payload.volume_ids:
        base.undo('delete volume %s' % vol_id, base.driver().delete_volume, vol_id)


def volume_ids_payload(records, instance_id):
    """Every volume id the request asked for, made or not."""
    count = len(records.build_request(instance_id).volume_sizes)
    return VolumeIdsPayload(
        instance_id, [naming.volume_id(instance_id, index) for index in range(count)])


class CreateVolumesOnHost(base.HostStep):
    """Create the volumes; returns [{'id', 'path', 'size_gib'}] for the engine to record.

    Undo deletes them by their deterministic ids, so volumes made by an interrupted
    run are found too.
    """

    name = 'volume.create'
    Payload = CreateVolumesPayload
    UndoPayload = VolumeIdsPayload

    def run(self, payload):
        return [{'id': vol_id, 'size_gib': size_gib,
                 'path': base.driver().create_volume(vol_id, size_gib)}
                for vol_id, size_gib in payload.volumes]

    def undo(self, payload, result):
        LOG.warning('Deleting the volumes of instance %s', payload.instance_id)
        delete_volumes(payload)


class CreateVolumes(base.HostTask):
    """Create the requested volumes in the host's volume pool and record them.

    Reversion strategy: delete them by their deterministic ids (instance + position),
    so volumes made by an interrupted run are found too; then their rows.
    """

    default_provides = constants.VOLUMES
    step = CreateVolumesOnHost

    def before_run(self, instance_id):
        self.records.advance_task_state(instance_id, states.BLOCK_DEVICE_MAPPING)

    def build_payload(self, instance_id):
        sizes = self.records.build_request(instance_id).volume_sizes
        return CreateVolumesPayload(
            instance_id, [[naming.volume_id(instance_id, index), size_gib]
                          for index, size_gib in enumerate(sizes)])

    def record(self, result, instance_id):
        project_id = self.records.build_request(instance_id).project_id
        for index, vol in enumerate(result):
            self.records.record_volume(vol['id'], instance_id, project_id, index,
                                       vol['size_gib'], vol['path'])
        return result

    def build_undo_payload(self, instance_id):
        return volume_ids_payload(self.records, instance_id)

    def record_undo(self, instance_id):
        self.records.delete_volume_records(instance_id)


class DeleteVolumesOnHost(base.HostStep):
    name = 'volume.delete'
    Payload = VolumeIdsPayload

    def run(self, payload):
        delete_volumes(payload)


class DeleteVolumes(base.HostTask):
    """Delete the instance's volumes, then their rows; a root volume (boot from
    volume) only with delete_on_termination, else it becomes available. Volumes
    attached later are detached (available)."""

    deferrable = True
    step = DeleteVolumesOnHost

    def build_payload(self, instance_id):
        payload = volume_ids_payload(self.records, instance_id)
        boot_volume = self.records.build_request(instance_id).boot_volume
        if boot_volume and boot_volume['delete_on_termination']:
            payload = VolumeIdsPayload(
                instance_id, payload.volume_ids + [boot_volume['id']])
        return payload

    def record(self, result, instance_id):
        self.records.delete_volume_records(instance_id)
        boot_volume = self.records.build_request(instance_id).boot_volume
        if boot_volume and boot_volume['delete_on_termination']:
            self.records.forget_volume(boot_volume['id'])
        elif boot_volume:
            self.records.record_detached(boot_volume['id'])
