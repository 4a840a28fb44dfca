"""JSON schemas of the volume requests (Cinder v3.0): volumes, their actions, quotas.

Sizes, names and statuses are the volume service's to check
(provisioner.volume.api), in the same words for every caller.
"""

from provisioner.api import validation

_FALSY = [False, None, 0, '', [], {}]


# A volume type, snapshot or volume to copy is the service's to check (Cinder's
# 404 when it does not exist); a backup (3.47) is not at 3.0.
CREATE = validation.wrapped('volume', {
    'type': 'object',
    'properties': {'backup_id': {
        'enum': _FALSY, 'errorMessage': 'provisioner makes volumes blank, from an '
                                        'image, a snapshot or a volume; backup_id is '
                                        'not supported.'}}})

UPDATE = validation.wrapped('volume', {
    'type': 'object', 'additionalProperties': False,
    'properties': {'name': {}, 'description': {}, 'display_name': {},
                   'display_description': {}, 'metadata': {}},
    'errorMessage': {'additionalProperties': "Only a volume's name, description and "
                                             "metadata can be set, not {names}."}})

# One volume action a request: its name, and its arguments (an object).
ACTION = {
    'type': 'object', 'minProperties': 1, 'maxProperties': 1,
    'additionalProperties': {'type': 'object',
                             'errorMessage': '{key} takes an object, not {value!r}'},
    'errorMessage': 'Give one volume action, such as {{"os-extend": {{"new_size": 2}}}}, '
                    'not {members}.',
}

# Volume metadata: all of it ({"metadata": {...}}), or one item ({"meta": {k: v}}).
METADATA = validation.wrapped('metadata', {'type': 'object'})
METADATA_ITEM = validation.wrapped('meta', {
    'type': 'object', 'minProperties': 1, 'maxProperties': 1,
    'errorMessage': {'minProperties': 'Request body empty: give one metadata item.',
                     'maxProperties': 'Request body contains too many items.'}})

_QUOTA_VALUE = {'type': ['integer', 'string'], 'pattern': '^-?[0-9]+$',
                'errorMessage': '{key} must be an integer, not {value!r}'}
QUOTA_UPDATE = validation.wrapped('quota_set', {
    'type': 'object',
    'properties': dict.fromkeys(('gigabytes', 'volumes', 'snapshots',
                                 'per_volume_gigabytes', 'backups',
                                 'backup_gigabytes'), _QUOTA_VALUE)})
