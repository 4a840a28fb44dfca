"""JSON schemas of the server group requests, as Nova's: 2.1 - 2.14 a list of one
policy, 2.15 - 2.63 the soft ones too, 2.64 one ``policy`` and its ``rules``."""

import copy

from provisioner.api.compute.schemas import parameter_types
from provisioner.scheduler import filters

_STRICT = [filters.ANTI_AFFINITY, filters.AFFINITY]
_ALL = _STRICT + [filters.SOFT_ANTI_AFFINITY, filters.SOFT_AFFINITY]

CREATE = {
    'type': 'object',
    'properties': {
        'server_group': {
            'type': 'object',
            'properties': {
                'name': parameter_types.NAME,
                'policies': {
                    'type': 'array',
                    'prefixItems': [{'type': 'string', 'enum': _STRICT}],
                    'items': False,
                    'uniqueItems': True,
                    'minItems': 1,
                    'maxItems': 1,
                },
            },
            'required': ['name', 'policies'],
            'additionalProperties': False,
        },
    },
    'required': ['server_group'],
    'additionalProperties': False,
}

CREATE_V215 = copy.deepcopy(CREATE)
CREATE_V215['properties']['server_group']['properties']['policies'][
    'prefixItems'][0]['enum'] = _ALL

CREATE_V264 = copy.deepcopy(CREATE_V215)
_group = CREATE_V264['properties']['server_group']
del _group['properties']['policies']
_group['required'] = ['name', 'policy']
_group['properties']['policy'] = {'type': 'string', 'enum': _ALL}
_group['properties']['rules'] = {
    'type': 'object',
    'properties': {'max_server_per_host': parameter_types.POSITIVE_INTEGER},
    'additionalProperties': False,
}
