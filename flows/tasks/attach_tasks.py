"""Engine halves of the volume service's steps: attach, detach and delete a volume.

The guard reads the volume once and provides the host's payload (size, source
image, whether it is fresh), so a resumed flow sends the host what the first run
did. Host halves: flows.host.attach_steps.
"""

import dataclasses
import logging

from provisioner.compute import actions
from provisioner.compute import instances
from provisioner.volume import api as volume_api
from provisioner.volume import volumes

from flows import constants
from flows.host import attach_steps
from flows.tasks import base
from flows.tasks import lifecycle_tasks

LOG = logging.getLogger(__name__)


class VolumeActionGuard(base.ProvisionerTask):
    """First atom of an attach or detach: provides the host steps' payload.

    Reversion strategy: runs last in a rollback, once the host steps put the domain
    back; returns the volume to where the action found it (available, or in-use)
    and finishes the action with the fault as its message.
    """

    default_provides = constants.VOLUME_PAYLOAD

    def execute(self, instance_id, volume_id):
        return dataclasses.asdict(attach_steps.VolumePayload(
            instance_id=instance_id, volume_id=volume_id, **volumes.source(volume_id)))

    def revert(self, instance_id, action_id, volume_id, attached, *args,
               flow_failures=None, **kwargs):
        fault = lifecycle_tasks.describe_failures(flow_failures, 'Volume action')
        LOG.warning('Volume action %s on instance %s rolled back: %s', action_id,
                    instance_id, fault)
        volumes.restore(volume_id, attached)
        actions.finish(action_id, 'Error: %s' % fault)


class _VolumeHostTask(base.HostTask):
    def build_payload(self, volume_payload):
        return attach_steps.VolumePayload(**volume_payload)

    def build_undo_payload(self, volume_payload):
        return attach_steps.VolumePayload(**volume_payload)


class MakeVolume(_VolumeHostTask):
    """Make the volume's file on the server's host (blank, or the image copied
    whole), grown to the volume's size.

    Reversion strategy: delete the file, only if the volume had no bytes on any
    host before this flow (its ``fresh`` payload).
    """

    step = attach_steps.MakeVolume


class PlugVolume(_VolumeHostTask):
    """Hot-plug the volume into the server's domain (live and defined).

    Reversion strategy: unplug it again, waiting for the guest to let it go.
    """

    default_provides = 'device'
    step = attach_steps.AttachVolume


class UnplugVolume(_VolumeHostTask):
    """Unplug the volume from the server's domain; fails if the guest holds it.

    Reversion strategy: plug it back in; the volume stays attached (in-use).
    """

    step = attach_steps.DetachVolume


class RecordAttachment(base.ProvisionerTask):
    """The volume is in-use on the server, bound to its host from now on.

    Reversion strategy: none; it is the last step.
    """

    def execute(self, instance_id, volume_id, device):
        volumes.record_attached(volume_id, instances.host_of(instance_id), device)


class RecordDetachment(base.ProvisionerTask):
    """The volume is available again (its bytes stay on the host).

    Reversion strategy: none; it is the last step.
    """

    def execute(self, volume_id):
        volumes.record_detached(volume_id)


class DeleteVolumeFile(base.HostTask):
    """Delete a detached volume's file on the host holding it.

    Reversion strategy: none; a delete that failed leaves the volume
    error_deleting, and deleting it again is allowed.
    """

    step = attach_steps.DeleteVolume

    def build_payload(self, volume_id):
        return attach_steps.VolumeIdPayload(volume_id)


class ForgetVolume(base.ProvisionerTask):
    """Drop the volume's row and give its gigabytes back to the project."""

    def execute(self, volume_id):
        volume_api.forget_volume(volume_id)
