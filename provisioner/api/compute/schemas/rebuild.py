"""JSON schemas of Nova's rebuild action, by microversion (nova's base_rebuild*).

2.1 imageRef (required), name, adminPass, metadata, preserve_ephemeral,
OS-DCF:diskConfig, accessIPv4/v6 and personality; 2.19 adds description; 2.54
key_name (null unsets it); 2.57 user_data (null unsets it) and drops personality;
2.63 trusted_image_certificates; 2.90 hostname.
"""

import copy

from provisioner.api.compute.schemas import parameter_types
from provisioner.api.compute.schemas import servers

_unsupported = servers._unsupported

REBUILD = {
    'type': 'object',
    'properties': {
        'imageRef': {'type': 'string', 'minLength': 1},
        'name': parameter_types.NAME,
        'adminPass': {'type': 'string'},
        'metadata': servers._metadata,
        'preserve_ephemeral': parameter_types.BOOLEAN,
        'OS-DCF:diskConfig': {'enum': ['AUTO', 'MANUAL']},
        'accessIPv4': servers.ACCESS_IPV4,
        'accessIPv6': servers.ACCESS_IPV6,
        'personality': dict({'type': 'array', 'maxItems': 0}, **_unsupported(
            'files reach the guest as user_data', 'maxItems')),
    },
    'required': ['imageRef'],
    'additionalProperties': False,
}


def _adding(schema, **properties):
    new = copy.deepcopy(schema)
    new['properties'].update(properties)
    return new


REBUILD_V219 = _adding(REBUILD, description=parameter_types.DESCRIPTION)
REBUILD_V254 = _adding(REBUILD_V219, key_name={
    'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255})
REBUILD_V257 = _adding(REBUILD_V254, user_data={
    'type': ['string', 'null'], 'format': 'base64', 'maxLength': 65535,
    'errorMessage': {'format': 'User data needs to be valid base 64.'}})
del REBUILD_V257['properties']['personality']
REBUILD_V263 = _adding(REBUILD_V257, trusted_image_certificates=parameter_types.TRUSTED_CERTS)
REBUILD_V290 = _adding(REBUILD_V263, hostname=parameter_types.FQDN)
