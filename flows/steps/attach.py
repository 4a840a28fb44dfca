"""The volume service's steps: attach, detach and delete a volume.

A volume of the volume service gets its bytes on the host of the first server it is
attached to (``MakeVolume``, blank or a full copy of an image) and keeps them there.
The guard reads the volume once and provides the host's payload (size, source
image, whether it is fresh), so a resumed flow sends the host what the first run
did.
"""

import dataclasses
import logging

from provisioner.conf import CONF

from flows import constants
from flows.steps import base

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class VolumePayload:
    """One volume of one server: what the host needs to make and plug it."""

    instance_id: str
    volume_id: str
    size_gib: int
    # The volume had no bytes on any host before this flow: undoing its making
    # deletes them. A volume made earlier keeps its data whatever happens.
    fresh: bool = False
    image_id: str | None = None  # the image a fresh volume is a copy of
    image_path: str | None = None
    image_sha256: str | None = None
    image_format: str | None = None
    readonly: bool = False  # Cinder's read-only flag: plugged in as a read-only disk
    # The device the attach reserved (/dev/vdc): the host plugs the volume in under
    # it. None from a flow of the previous release: the host chooses.
    device: str | None = None


@dataclasses.dataclass(frozen=True)
class VolumeIdPayload:
    volume_id: str


class VolumeActionGuard(base.ProvisionerTask):
    """First atom of an attach or detach: provides the host steps' payload.

    Reversion strategy: runs last in a rollback, once the host steps put the domain
    back; returns the volume to where the action found it (available, or in-use)
    and finishes the action with the fault as its message.
    """

    default_provides = constants.VOLUME_PAYLOAD

    def execute(self, instance_id, volume_id):
        return dataclasses.asdict(VolumePayload(
            instance_id=instance_id, volume_id=volume_id,
            **self.records.volume_source(volume_id)))

    def revert(self, instance_id, action_id, volume_id, attached, *args,
               flow_failures=None, **kwargs):
        fault = base.describe_failures(flow_failures, 'Volume action')
        LOG.warning('Volume action %s on instance %s rolled back: %s', action_id,
                    instance_id, fault)
        self.records.restore_volume(volume_id, attached)
        self.records.finish_action(action_id, 'Error: %s' % fault)


def _detach(payload):
    base.driver().detach_volume(payload.instance_id, payload.volume_id,
                                CONF.compute.volume_detach_timeout)


def _attach(payload):
    return base.driver().attach_volume(payload.instance_id, payload.volume_id,
                                       readonly=payload.readonly,
                                       device=payload.device)


class _VolumeHostTask(base.HostTask):
    def build_payload(self, volume_payload):
        return VolumePayload(**volume_payload)

    def build_undo_payload(self, volume_payload):
        return VolumePayload(**volume_payload)


class MakeVolumeOnHost(base.HostStep):
    """Make the volume's file if absent (blank, or the cached image copied whole),
    grown to its size; returns its path. Undo deletes it only if it was fresh."""

    name = 'attach.make_volume'
    Payload = VolumePayload

    def run(self, payload):
        image = None
        if payload.fresh and payload.image_id:
            image = base.driver().fetch_image(payload.image_id, payload.image_path,
                                              payload.image_sha256)
        return base.driver().make_volume(payload.volume_id, payload.size_gib, image,
                                         payload.image_format)

    def undo(self, payload, result):
        if payload.fresh:
            LOG.warning('Deleting the new volume %s', payload.volume_id)
            base.undo('delete volume %s' % payload.volume_id,
                      base.driver().delete_volume, payload.volume_id)


class MakeVolume(_VolumeHostTask):
    """Make the volume's file on the server's host (blank, or the image copied
    whole), grown to the volume's size.

    Reversion strategy: delete the file, only if the volume had no bytes on any
    host before this flow (its ``fresh`` payload).
    """

    step = MakeVolumeOnHost


class PlugVolumeOnHost(base.HostStep):
    """Hot-plug the volume into the server's domain under the device the attach
    reserved; returns its device (/dev/vdc). Undo unplugs it again."""

    name = 'attach.plug'
    Payload = VolumePayload

    def run(self, payload):
        return _attach(payload)

    def undo(self, payload, result):
        LOG.warning('Detaching volume %s from instance %s again', payload.volume_id,
                    payload.instance_id)
        base.undo('detach volume %s' % payload.volume_id, _detach, payload)


class PlugVolume(_VolumeHostTask):
    """Hot-plug the volume into the server's domain (live and defined).

    Reversion strategy: unplug it again, waiting for the guest to let it go.
    """

    default_provides = 'device'
    step = PlugVolumeOnHost


class UnplugVolumeOnHost(base.HostStep):
    """Unplug the volume, waiting for the guest to release it ([compute]
    volume_detach_timeout). Undo plugs it back in (a detach that failed half-way
    leaves the volume attached, as its in-use status says)."""

    name = 'attach.unplug'
    Payload = VolumePayload

    def run(self, payload):
        _detach(payload)

    def undo(self, payload, result):
        LOG.warning('Attaching volume %s to instance %s again', payload.volume_id,
                    payload.instance_id)
        base.undo('attach volume %s' % payload.volume_id, _attach, payload)


class UnplugVolume(_VolumeHostTask):
    """Unplug the volume from the server's domain; fails if the guest holds it.

    Reversion strategy: plug it back in; the volume stays attached (in-use).
    """

    step = UnplugVolumeOnHost


class RecordAttachment(base.ProvisionerTask):
    """The volume is in-use on the server, bound to its host from now on.

    Reversion strategy: none; it is the last step.
    """

    def execute(self, instance_id, volume_id, device):
        self.records.record_attached(volume_id, self.records.host_of(instance_id),
                                     device)


class RecordDetachment(base.ProvisionerTask):
    """The volume is available again (its bytes stay on the host).

    Reversion strategy: none; it is the last step.
    """

    def execute(self, volume_id):
        self.records.record_detached(volume_id)


class DeleteVolumeFileOnHost(base.HostStep):
    """Delete a detached volume's file; an absent one is fine."""

    name = 'attach.delete_volume'
    Payload = VolumeIdPayload

    def run(self, payload):
        base.driver().delete_volume(payload.volume_id)


class DeleteVolumeFile(base.HostTask):
    """Delete a detached volume's file on the host holding it.

    Reversion strategy: none; a delete that failed leaves the volume
    error_deleting, and deleting it again is allowed.
    """

    step = DeleteVolumeFileOnHost

    def build_payload(self, volume_id):
        return VolumeIdPayload(volume_id)


class ForgetVolume(base.ProvisionerTask):
    """Drop the volume's row and give its gigabytes back to the project."""

    def execute(self, volume_id):
        self.records.forget_volume(volume_id)
