"""JSON schemas of a volume attachment (Nova's os-volume_attachments): the attach
at 2.1, with 2.49's ``tag`` and 2.79's ``delete_on_termination``; 2.85's update."""

import copy

from provisioner.api.compute.schemas import parameter_types
from provisioner.volume import devices

_NEEDS = 'The request body needs a "volumeAttachment" object with a "volumeId".'

ATTACH = {
    'type': 'object', 'required': ['volumeAttachment'],
    'properties': {'volumeAttachment': {
        'type': 'object', 'required': ['volumeId'],
        'properties': {'volumeId': {'type': 'string', 'errorMessage': _NEEDS},
                       'device': {'type': ['string', 'null'],
                                  'pattern': devices.PATTERN}},
        'additionalProperties': False,
        'errorMessage': _NEEDS}},
    'errorMessage': _NEEDS,
}
# Nova's tag: no comma or slash, 1 - 60 characters.
_TAG = {'type': 'string', 'pattern': '^[^,/]*$', 'minLength': 1, 'maxLength': 60}

ATTACH_V249 = copy.deepcopy(ATTACH)
ATTACH_V249['properties']['volumeAttachment']['properties']['tag'] = _TAG
ATTACH_V279 = copy.deepcopy(ATTACH_V249)
ATTACH_V279['properties']['volumeAttachment']['properties'][
    'delete_on_termination'] = parameter_types.BOOLEAN

# 2.85: what a GET shows may be sent back; only delete_on_termination can change.
UPDATE_V285 = copy.deepcopy(ATTACH_V279)
UPDATE_V285['properties']['volumeAttachment']['properties'].update(
    id={'type': 'string'}, serverId={'type': 'string'}, attachment_id={},
    bdm_uuid={})
UPDATE_V285['properties']['volumeAttachment']['additionalProperties'] = False
