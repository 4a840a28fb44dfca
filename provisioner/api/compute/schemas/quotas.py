"""JSON schema of the quota set update (Nova's os-quota-sets at 2.1 - 2.35)."""

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
