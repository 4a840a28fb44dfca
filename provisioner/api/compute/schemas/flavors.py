"""JSON schemas of the flavor requests: Nova's flavor-manage create (2.1 - 2.54, and
2.55's ``description``) and 2.55's update of the description.

A flavor may be private and may record ephemeral and swap sizes and an rxtx_factor
as Nova's (a boot refuses a flavor with ephemeral or swap disks: provisioner builds
none). Extra specs are Nova's metadata: keys of [a-zA-Z0-9-_:. ], values text or
numbers of at most 255 characters.
"""

import copy

from provisioner.api.compute.schemas import parameter_types


# "" matches Nova's digits pattern, but is no number (a 400 of its own).
_NOT_EMPTY = {'not': {'const': ''},
              'errorMessage': {'not': 'ram, vcpus and disk must be whole numbers.'}}
_positive = {'type': ['integer', 'string'], 'pattern': '^[0-9]*$', 'minimum': 1,
             'maximum': 2147483647, 'allOf': [_NOT_EMPTY]}
_non_negative = {'type': ['integer', 'string'], 'pattern': '^[0-9]*$', 'minimum': 0,
                 'maximum': 2147483647}

CREATE = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {
                'name': parameter_types.NAME,
                # provisioner keeps ids in 36 characters (Nova: 255).
                'id': {'type': ['string', 'number', 'null'], 'minLength': 1,
                       'maxLength': 36, 'pattern': '^(?! )[a-zA-Z0-9. _-]+(?<! )$'},
                'ram': _positive,
                'vcpus': _positive,
                'disk': dict(_non_negative, allOf=[_NOT_EMPTY]),
                'OS-FLV-EXT-DATA:ephemeral': dict(_non_negative, allOf=[_NOT_EMPTY]),
                'swap': dict(_non_negative, allOf=[_NOT_EMPTY]),
                'rxtx_factor': {'type': ['number', 'string'],
                                'pattern': r'^[0-9]+(\.[0-9]+)?$',
                                'minimum': 0, 'exclusiveMinimum': 0,
                                'maximum': 3.40282e+38},
                'os-flavor-access:is_public': parameter_types.BOOLEAN,
            },
            'required': ['name', 'ram', 'vcpus', 'disk'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}

# Nova's printable text: no control, format or separator character but the space.
_DESCRIPTION = {'type': ['string', 'null'], 'minLength': 0, 'maxLength': 65535,
                'pattern': '^[^\x00-\x1f\x7f-\x9f\u2028\u2029]*$'}

CREATE_V255 = copy.deepcopy(CREATE)
CREATE_V255['properties']['flavor']['properties']['description'] = _DESCRIPTION

UPDATE = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {'description': _DESCRIPTION},
            'required': ['description'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}

# POST /flavors/{id}/action: Nova's flavor access actions, each naming a project.
_TENANT = {'type': 'object', 'properties': {'tenant': {
    'type': 'string', 'minLength': 1, 'maxLength': 255}},
    'required': ['tenant'], 'additionalProperties': False}
ACCESS_ACTION = {'type': 'object',
                 'properties': {'addTenantAccess': _TENANT,
                                'removeTenantAccess': _TENANT},
                 'minProperties': 1, 'maxProperties': 1, 'additionalProperties': False}

_SPEC_KEY = '^[a-zA-Z0-9-_:. ]{1,255}$'
_SPECS = {'type': 'object',
          'patternProperties': {_SPEC_KEY: {'type': ['string', 'number'],
                                            'maxLength': 255}},
          'additionalProperties': False}
EXTRA_SPECS_CREATE = {'type': 'object', 'properties': {'extra_specs': _SPECS},
                      'required': ['extra_specs'], 'additionalProperties': False}
EXTRA_SPEC_UPDATE = dict(_SPECS, minProperties=1, maxProperties=1)
