"""Steps that create the instance's volumes (documented steps 25-27)."""

from provisioner.compute import instances
from provisioner.compute import states
from provisioner import naming
from provisioner.volume import api as volume_api
from provisioner.volume import volumes

from flows import constants
from flows.host import volume_steps
from flows.tasks import base


def volume_ids_payload(instance_id):
    """Every volume id the request asked for, made or not."""
    count = len(instances.build_request(instance_id).volume_sizes)
    return volume_steps.VolumeIdsPayload(
        instance_id, [naming.volume_id(instance_id, index) for index in range(count)])


class CreateVolumes(base.HostTask):
    """Create the requested volumes in the host's volume pool and record them.

    Reversion strategy: delete them by their deterministic ids (instance + position),
    so volumes made by an interrupted run are found too; then their rows.
    """

    default_provides = constants.VOLUMES
    step = volume_steps.CreateVolumes

    def before_run(self, instance_id):
        instances.advance_task_state(instance_id, states.BLOCK_DEVICE_MAPPING)

    def build_payload(self, instance_id):
        sizes = instances.build_request(instance_id).volume_sizes
        return volume_steps.CreateVolumesPayload(
            instance_id, [[naming.volume_id(instance_id, index), size_gib]
                          for index, size_gib in enumerate(sizes)])

    def record(self, result, instance_id):
        project_id = instances.build_request(instance_id).project_id
        for index, vol in enumerate(result):
            volumes.record(vol['id'], instance_id, project_id, index, vol['size_gib'],
                           vol['path'])
        return result

    def build_undo_payload(self, instance_id):
        return volume_ids_payload(instance_id)

    def record_undo(self, instance_id):
        volumes.delete_records(instance_id)


class DeleteVolumes(base.HostTask):
    """Delete the instance's volumes, then their rows; a root volume (boot from
    volume) only with delete_on_termination, else it becomes available. Volumes
    attached later are detached (available)."""

    deferrable = True
    step = volume_steps.DeleteVolumes

    def build_payload(self, instance_id):
        payload = volume_ids_payload(instance_id)
        boot_volume = instances.build_request(instance_id).boot_volume
        if boot_volume and boot_volume['delete_on_termination']:
            payload = volume_steps.VolumeIdsPayload(
                instance_id, payload.volume_ids + [boot_volume['id']])
        return payload

    def record(self, result, instance_id):
        volumes.delete_records(instance_id)
        boot_volume = instances.build_request(instance_id).boot_volume
        if boot_volume and boot_volume['delete_on_termination']:
            volume_api.forget_volume(boot_volume['id'])
        elif boot_volume:
            volumes.record_detached(boot_volume['id'])
