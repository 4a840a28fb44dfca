"""JSON schemas of the flavor requests: Nova's flavor-manage create (2.1 - 2.54, and
2.55's ``description``) and 2.55's update of the description.

provisioner's flavors are public, without ephemeral or swap disk and unscaled
bandwidth: the fields that say otherwise are refused by the schema, saying why.
"""

import copy

from provisioner.api.compute.schemas import parameter_types


def _refused(why):
    """The words for a value provisioner's flavors cannot have (in Nova's form)."""
    return {'anyOf': 'Invalid input for field/attribute {key}. Value: {value}. %s' % why}


# "" matches Nova's digits pattern, but is no number (a 400 of its own).
_NOT_EMPTY = {'not': {'const': ''},
              'errorMessage': {'not': 'ram, vcpus and disk must be whole numbers.'}}
_positive = {'type': ['integer', 'string'], 'pattern': '^[0-9]*$', 'minimum': 1,
             'maximum': 2147483647, 'allOf': [_NOT_EMPTY]}
_non_negative = {'type': ['integer', 'string'], 'pattern': '^[0-9]*$', 'minimum': 0,
                 'maximum': 2147483647}
_no_disk = dict(_non_negative,
                anyOf=[{'const': 0}, {'type': 'string', 'pattern': '^0*$'}],
                errorMessage=_refused('provisioner flavors have no ephemeral or swap '
                                      'disk; give 0 or leave it out.'))

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
                'OS-FLV-EXT-DATA:ephemeral': _no_disk,
                'swap': _no_disk,
                'rxtx_factor': {'type': ['number', 'string'],
                                'pattern': r'^[0-9]+(\.[0-9]+)?$',
                                'minimum': 0, 'exclusiveMinimum': 0,
                                'maximum': 3.40282e+38,
                                'anyOf': [{'const': 1}, {'type': 'string',
                                                         'pattern': r'^0*1(\.0*)?$'}],
                                'errorMessage': _refused('provisioner does not scale '
                                                         'bandwidth; give 1.0.')},
                'os-flavor-access:is_public': dict(
                    parameter_types.BOOLEAN, anyOf=[parameter_types.TRUE],
                    errorMessage=_refused('provisioner flavors are all public.')),
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
