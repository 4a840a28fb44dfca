"""JSON schema of a volume attachment (Nova's os-volume_attachments create at 2.1)."""

_NEEDS = 'The request body needs a "volumeAttachment" object with a "volumeId".'

ATTACH = {
    'type': 'object', 'required': ['volumeAttachment'],
    'properties': {'volumeAttachment': {
        'type': 'object', 'required': ['volumeId'],
        'properties': {'volumeId': {'type': 'string', 'errorMessage': _NEEDS},
                       'device': {'type': ['string', 'null']}},
        'errorMessage': _NEEDS}},
    'errorMessage': _NEEDS,
}
