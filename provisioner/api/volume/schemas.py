"""JSON schemas of the volume requests (Cinder v3.0): volumes, their actions, quotas.

Sizes, names and statuses are the volume service's to check
(provisioner.volume.api), in the same words for every caller.
"""

from provisioner.api import validation

_FALSY = [False, None, 0, '', [], {}]


def _unsupported_source():
    return {'enum': _FALSY,
            'errorMessage': 'provisioner makes volumes blank or from an image only; '
                            '{key} is not supported.'}


CREATE = validation.wrapped('volume', {
    'type': 'object',
    'properties': {'snapshot_id': _unsupported_source(),
                   'source_volid': _unsupported_source(),
                   'backup_id': _unsupported_source()}})

_ONLY_NAME = "Only a volume's name and description can be set, not %s."
UPDATE = validation.wrapped('volume', {
    'type': 'object', 'additionalProperties': False,
    'properties': {'name': {}, 'description': {}, 'display_name': {},
                   'display_description': {},
                   'metadata': {'enum': _FALSY, 'errorMessage': _ONLY_NAME % 'metadata'}},
    'errorMessage': {'additionalProperties': _ONLY_NAME % '{names}'}})

# os-extend (grow a detached volume) and os-reset_status (admins), one at a time.
_ACTIONS_ONLY = ('provisioner supports the volume actions os-extend {{"new_size": N}} '
                 'and os-reset_status {{"status": S}} only, not %s.')
ACTION = {
    'type': 'object', 'minProperties': 1, 'maxProperties': 1,
    'additionalProperties': False,
    'properties': {action: {'type': 'object', 'errorMessage': _ACTIONS_ONLY % '{key}'}
                   for action in ('os-extend', 'os-reset_status')},
    'errorMessage': _ACTIONS_ONLY % '{members}',
}

QUOTA_UPDATE = validation.wrapped('quota_set', {
    'type': 'object',
    'properties': {'gigabytes': {'type': ['integer', 'string'], 'pattern': '^-?[0-9]+$',
                                 'errorMessage': 'gigabytes must be an integer, not '
                                                 '{value!r}'}}})
