"""Host side of the volume service's steps: make, plug in, unplug and delete a volume.

A volume of the volume service gets its bytes on the host of the first server it is
attached to (``MakeVolume``, blank or a full copy of an image) and keeps them there.
"""

import dataclasses
import logging

from provisioner.conf import CONF

from flows.host import base

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


@dataclasses.dataclass(frozen=True)
class VolumeIdPayload:
    volume_id: str


def _detach(payload):
    base.driver().detach_volume(payload.instance_id, payload.volume_id,
                                CONF.compute.volume_detach_timeout)


def _attach(payload):
    return base.driver().attach_volume(payload.instance_id, payload.volume_id)


class MakeVolume(base.HostStep):
    """Make the volume's file if absent (blank, or the cached image copied whole),
    grown to its size; returns its path. Undo deletes it only if it was fresh."""

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


class AttachVolume(base.HostStep):
    """Hot-plug the volume into the server's domain; returns its device (/dev/vdc).
    Undo unplugs it again."""

    Payload = VolumePayload

    def run(self, payload):
        return _attach(payload)

    def undo(self, payload, result):
        LOG.warning('Detaching volume %s from instance %s again', payload.volume_id,
                    payload.instance_id)
        base.undo('detach volume %s' % payload.volume_id, _detach, payload)


class DetachVolume(base.HostStep):
    """Unplug the volume, waiting for the guest to release it ([compute]
    volume_detach_timeout). Undo plugs it back in (a detach that failed half-way
    leaves the volume attached, as its in-use status says)."""

    Payload = VolumePayload

    def run(self, payload):
        _detach(payload)

    def undo(self, payload, result):
        LOG.warning('Attaching volume %s to instance %s again', payload.volume_id,
                    payload.instance_id)
        base.undo('attach volume %s' % payload.volume_id, _attach, payload)


class DeleteVolume(base.HostStep):
    """Delete a detached volume's file; an absent one is fine."""

    Payload = VolumeIdPayload

    def run(self, payload):
        base.driver().delete_volume(payload.volume_id)
