"""JSON schemas of the quota set update (Nova's os-quota-sets): 2.36 refuses the
network quotas, 2.57 the file injection ones too."""

import copy


from provisioner.api.compute.schemas import parameter_types
from provisioner.api.compute.views import quotas as views

_quota = {'type': ['integer', 'string'], 'pattern': '^-?[0-9]+$', 'minimum': -1,
          'maximum': 2147483647}
UPDATE = {
    'type': 'object',
    'properties': {
        'quota_set': {
            'type': 'object',
            'properties': dict(
                {name: _quota for name in list(views.ENFORCED) + list(views.FIXED)
                 + ['networks']},
                force=parameter_types.BOOLEAN),
            'additionalProperties': False,
        },
    },
    'required': ['quota_set'],
    'additionalProperties': False,
}


def _without(schema, names):
    found = copy.deepcopy(schema)
    for name in names:
        found['properties']['quota_set']['properties'].pop(name, None)
    return found


UPDATE_V236 = _without(UPDATE, views.HIDDEN_V236 + ('networks',))
UPDATE_V257 = _without(UPDATE_V236, views.HIDDEN_V257)
