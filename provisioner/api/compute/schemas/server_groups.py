"""JSON schemas of the server group requests (2.1 - 2.63: a list of one policy)."""

from provisioner.api.compute.schemas import parameter_types
from provisioner.compute import server_groups

CREATE = {
    'type': 'object',
    'properties': {
        'server_group': {
            'type': 'object',
            'properties': {
                'name': parameter_types.NAME,
                'policies': {
                    'type': 'array',
                    'prefixItems': [{'type': 'string',
                                     'enum': list(server_groups.POLICIES)}],
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
