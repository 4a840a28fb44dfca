"""The volume service's flows.

    attach: guard -> make the volume's file -> plug it in -> record in-use
    detach: guard -> unplug it -> record available
    delete: delete the volume's file -> forget the volume

Attach and detach are instance actions (``attach_volume``, ``detach_volume``), run
and resumed like the power actions (provisioner.engine.runner.run_action): their
host steps run on the server's host, the store holds the instance, action and host,
and the factory's argument the volume id. A delete runs on the volume's host.
"""

from taskflow.patterns import linear_flow

from provisioner.volume import api as volume_api

from flows import constants as c
from flows.steps import attach


def _guard(attached, volume_id):
    return attach.VolumeActionGuard(
        c.VOLUME_ACTION_GUARD, inject={c.VOLUME_ID: volume_id, 'attached': attached})


def attach_flow(volume_id):
    flow = linear_flow.Flow(c.ATTACH_VOLUME_FLOW)
    flow.add(_guard(False, volume_id),
             attach.MakeVolume(c.MAKE_VOLUME),
             attach.PlugVolume(c.PLUG_VOLUME),
             attach.RecordAttachment(c.RECORD_ATTACHMENT,
                                     inject={c.VOLUME_ID: volume_id}))
    return flow


def detach_flow(volume_id):
    flow = linear_flow.Flow(c.DETACH_VOLUME_FLOW)
    flow.add(_guard(True, volume_id),
             attach.UnplugVolume(c.UNPLUG_VOLUME),
             attach.RecordDetachment(c.RECORD_DETACHMENT,
                                     inject={c.VOLUME_ID: volume_id}))
    return flow


def delete_flow():
    flow = linear_flow.Flow(c.DELETE_VOLUME_FLOW)
    flow.add(attach.DeleteVolumeFile(c.DELETE_VOLUME_FILE),
             attach.ForgetVolume(c.FORGET_VOLUME))
    return flow


def factory(action, volume_id):
    """(flow name, factory, factory arguments) of an attach or detach."""
    if action == volume_api.ATTACH:
        return c.ATTACH_VOLUME_FLOW, attach_flow, [volume_id]
    if action == volume_api.DETACH:
        return c.DETACH_VOLUME_FLOW, detach_flow, [volume_id]
    raise ValueError('%s is not a volume action' % action)
