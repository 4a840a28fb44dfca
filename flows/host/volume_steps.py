"""Host side of the volume steps: create and delete volumes in the host's pool."""

import dataclasses
import logging

from flows.host import base

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


class CreateVolumes(base.HostStep):
    """Create the volumes; returns [{'id', 'path', 'size_gib'}] for the engine to record.

    Undo deletes them by their deterministic ids, so volumes made by an interrupted
    run are found too.
    """

    Payload = CreateVolumesPayload
    UndoPayload = VolumeIdsPayload

    def run(self, payload):
        return [{'id': vol_id, 'size_gib': size_gib,
                 'path': base.driver().create_volume(vol_id, size_gib)}
                for vol_id, size_gib in payload.volumes]

    def undo(self, payload, result):
        LOG.warning('Deleting the volumes of instance %s', payload.instance_id)
        delete_volumes(payload)


class DeleteVolumes(base.HostStep):
    Payload = VolumeIdsPayload

    def run(self, payload):
        delete_volumes(payload)
