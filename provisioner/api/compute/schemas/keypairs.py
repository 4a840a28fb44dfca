"""JSON schemas of the key pair requests: 2.1, and 2.2's ``type`` (ssh or x509)."""

import copy

from provisioner.api.compute.schemas import parameter_types
from provisioner.compute import keypairs

CREATE = {
    'type': 'object',
    'properties': {
        'keypair': {
            'type': 'object',
            'properties': {'name': parameter_types.NAME,
                           'public_key': {'type': 'string'}},
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['keypair'],
    'additionalProperties': False,
}

CREATE_V22 = copy.deepcopy(CREATE)
CREATE_V22['properties']['keypair']['properties']['type'] = {
    'type': 'string', 'enum': list(keypairs.TYPES)}

# 2.10: an admin creates a key pair for another user.
CREATE_V210 = copy.deepcopy(CREATE_V22)
CREATE_V210['properties']['keypair']['properties']['user_id'] = {'type': 'string'}
