"""JSON schemas of provisioner's extension: a host's settings, a project's quota.

The values themselves are checked by the services (provisioner.catalog.hosts,
provisioner.quota), in the same words as the CLI's.
"""

HOST_FIELDS = ('enabled', 'disabled_reason', 'availability_zone',
               'cpu_allocation_ratio', 'ram_allocation_ratio', 'disk_allocation_ratio')
_GIVE_HOST = 'Give {{"host": {{...}}}} with any of: %s' % ', '.join(HOST_FIELDS)

HOST_UPDATE = {
    'type': 'object', 'required': ['host'],
    'properties': {'host': {'type': 'object',
                            'properties': dict.fromkeys(HOST_FIELDS, {}),
                            'additionalProperties': False,
                            'errorMessage': _GIVE_HOST}},
    'errorMessage': _GIVE_HOST,
}

QUOTA_UPDATE = {
    'type': 'object', 'required': ['quota'],
    'properties': {'quota': {'type': 'object', 'errorMessage': 'Give {{"quota": {{...}}}}.'}},
    'errorMessage': 'Give {{"quota": {{...}}}}.',
}
