"""Steps that create the instance's volumes (documented steps 25-27)."""

import logging

from provisioner.compute import instances
from provisioner.compute import states
from provisioner import naming
from provisioner.volume import volumes

from flows import constants
from flows.tasks import base

LOG = logging.getLogger(__name__)


def delete_volumes(instance_id):
    """Delete every volume the request asked for, made or not, then their rows."""
    count = len(instances.build_request(instance_id).volume_sizes)
    for index in range(count):
        vol_id = naming.volume_id(instance_id, index)
        base.undo('delete volume %s' % vol_id, base.driver().delete_volume, vol_id)
    volumes.delete_records(instance_id)


class CreateVolumes(base.HostTask):
    """Create the requested volumes in the host's volume pool and record them.

    Reversion strategy: delete them by their deterministic ids (instance + position),
    so volumes made by an interrupted run are found too.
    """

    default_provides = constants.VOLUMES

    def execute(self, instance_id):
        instances.advance_task_state(instance_id, states.BLOCK_DEVICE_MAPPING)
        req = instances.build_request(instance_id)
        created = []
        for index, size_gib in enumerate(req.volume_sizes):
            vol_id = naming.volume_id(instance_id, index)
            path = base.driver().create_volume(vol_id, size_gib)
            volumes.record(vol_id, instance_id, req.project_id, index, size_gib, path)
            created.append({'id': vol_id, 'path': path, 'size_gib': size_gib})
        return created

    def revert(self, instance_id, result, **kwargs):
        LOG.warning('Deleting the volumes of instance %s', instance_id)
        base.undo('delete volumes', delete_volumes, instance_id)


class DeleteVolumes(base.HostTask):
    """Delete the instance's volumes."""

    deferrable = True

    def execute(self, instance_id):
        delete_volumes(instance_id)
