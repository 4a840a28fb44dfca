"""Quota limits: what a project may use of each resource, its own or the defaults.

A project's own limits are rows of quota_limits; without one, a resource's limit
is its ``[quota]`` default. -1 is unlimited. Some of Nova's quotas are fixed here:
provisioner enforces them where those things are made, and nobody changes them.
"""

import sqlalchemy as sa

from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import validation

COMPUTE = ('instances', 'vcpus', 'ram_mib')
VOLUME = ('volumes_gib',)
# Cinder's other limits: counts checked where volumes and snapshots are made, the
# largest volume, and backups' (none are made: recorded and shown only).
VOLUME_LIMITS = ('volumes', 'snapshots', 'per_volume_gigabytes', 'backups',
                 'backup_gigabytes')
NETWORK = ('network', 'subnet', 'port', 'router', 'floatingip', 'security_group',
           'security_group_rule')
# The counted resources (provisioner.quota.counters): the CLI's "quota" and the
# provisioner extension's.
COUNTED = COMPUTE + VOLUME
UNLIMITED = -1

# Nova's quotas that provisioner keeps fixed.
KEY_PAIRS_PER_USER = 100
SERVER_GROUPS = 10

_LIMIT = {'type': 'integer', 'minimum': UNLIMITED,
          'errorMessage': 'quota {key} must be -1 (unlimited) or an integer of at '
                          'least 0, not {value!r}'}


def _schema(title, resources):
    """{resource: limit} of one kind; any other resource is refused by name."""
    return {'title': title, 'type': 'object', 'properties': dict.fromkeys(resources,
                                                                          _LIMIT),
            'additionalProperties': False,
            'errorMessage': {'additionalProperties': 'unknown %s resource(s) {names}; '
                                                     'there are: %s'
                                                     % (title, ', '.join(resources))}}


COUNTED_LIMITS = _schema('quota', COUNTED)
VOLUME_LIMITS_SCHEMA = _schema('volume quota', VOLUME_LIMITS)
NETWORK_LIMITS = _schema('network quota', NETWORK)


def defaults(resources):
    return {r: getattr(CONF.quota, r) for r in resources}


def limits(session, project_id, resources):
    """{resource: limit} of a project: its own, else the default."""
    found = defaults(resources)
    found.update(session.execute(
        sa.select(models.QuotaLimit.resource, models.QuotaLimit.hard_limit).where(
            models.QuotaLimit.project_id == project_id,
            models.QuotaLimit.resource.in_(resources))).all())
    return found


def set_limits(session, project_id, wanted, schema, used=None):
    """Set a project's own limits from {resource: limit} (None: left as it is),
    checked against ``schema`` (COUNTED_LIMITS, NETWORK_LIMITS), in the caller's
    transaction. With ``used`` ({resource: in use}), a limit below it is refused
    (Neutron's quota-check-limit)."""
    checked = validation.check(wanted, schema)
    for resource, value in sorted(checked.items()):
        if used is not None and value != UNLIMITED and value < used[resource]:
            raise exception.Invalid(reason='Quota limit %d for %s must be greater than '
                                           'or equal to already used %d'
                                           % (value, resource, used[resource]))
    for resource, value in checked.items():
        session.merge(models.QuotaLimit(project_id=project_id, resource=resource,
                                        hard_limit=value))


def reset(project_id, resources):
    """Forget a project's own limits of ``resources``: the defaults apply again."""
    with db_api.transaction() as session:
        session.execute(sa.delete(models.QuotaLimit).where(
            models.QuotaLimit.project_id == project_id,
            models.QuotaLimit.resource.in_(resources)))


def show(project_id, resources):
    """{resource: limit} of a project, in a transaction of its own."""
    with db_api.transaction() as session:
        return limits(session, project_id, resources)


def set_own(project_id, wanted, schema):
    """Set a project's own limits (set_limits), in a transaction of its own."""
    with db_api.transaction() as session:
        set_limits(session, project_id, wanted, schema)
