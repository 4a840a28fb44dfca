"""Nova's volume attachment shapes: ``volumeId`` is the volume's id, as ``id`` is
until 2.89; 2.70 adds the ``tag``, 2.79 ``delete_on_termination`` (a volume made
with the boot goes with the server; one of the volume service stays), 2.89
``attachment_id`` (Cinder's, which provisioner's volume API shows as the volume's
id) and ``bdm_uuid``."""

import uuid

# bdm_uuid: stable for one attachment, derived rather than kept.
_BDM_NAMESPACE = uuid.UUID('6c6f2a7e-53f1-4b43-9b5e-4e0b1cd5b0a1')


def attachment(req, instance_id, volume, device=None, created=False):
    """``volume``: its record (id, index, attachment_tag); ``created``: the view
    the attach answers with (it keeps ``id`` and ``device``)."""
    view = {} if req.api_version >= (2, 89) and not created else {'id': volume['id']}
    view.update(volumeId=volume['id'], serverId=instance_id)
    if device or created:
        view['device'] = device
    if req.api_version >= (2, 70):
        view['tag'] = volume.get('attachment_tag')
    if req.api_version >= (2, 79):
        view['delete_on_termination'] = volume.get('index') is not None
    if req.api_version >= (2, 89) and not created:
        view['attachment_id'] = volume['id']
        view['bdm_uuid'] = str(uuid.uuid5(_BDM_NAMESPACE, instance_id + volume['id']))
    return view
