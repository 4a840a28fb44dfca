"""Nova's os-migrateLive bodies, per microversion: block_migration and
disk_over_commit (2.1), block_migration 'auto' and no disk_over_commit (2.25),
force (2.30-2.67)."""

import copy

from provisioner.api.compute.schemas import parameter_types

HOST = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
        'pattern': '^[a-zA-Z0-9-._]*$'}

MIGRATE_LIVE = {
    'type': 'object',
    'properties': {'block_migration': parameter_types.BOOLEAN,
                   'disk_over_commit': parameter_types.BOOLEAN,
                   'host': HOST},
    'required': ['block_migration', 'disk_over_commit', 'host'],
    'additionalProperties': False}

MIGRATE_LIVE_V225 = copy.deepcopy(MIGRATE_LIVE)
del MIGRATE_LIVE_V225['properties']['disk_over_commit']
MIGRATE_LIVE_V225['properties']['block_migration'] = {
    'oneOf': [parameter_types.BOOLEAN, {'type': 'string', 'enum': ['auto']}]}
MIGRATE_LIVE_V225['required'] = ['block_migration', 'host']

MIGRATE_LIVE_V230 = copy.deepcopy(MIGRATE_LIVE_V225)
MIGRATE_LIVE_V230['properties']['force'] = parameter_types.BOOLEAN

MIGRATE_LIVE_V268 = copy.deepcopy(MIGRATE_LIVE_V225)
