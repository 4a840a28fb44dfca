"""Per-project quotas, reserved atomically with the instance row that uses them.

Usage is a counter per (project, resource). A reservation raises every counter with
one conditional UPDATE each (``in_use + n <= limit``) in the transaction that records
the instance, so two boots racing for a project's last slot cannot both pass, and an
over-quota boot leaves no row at all. Releasing (rollback, delete) happens once per
instance: the reservation row remembers what to give back.
"""

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite

from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception

RESOURCES = ('instances', 'vcpus', 'ram_mib', 'volumes_gib')
UNLIMITED = -1
U = models.QuotaUsage


class OverQuota(exception.ProvisionerError):
    msg_fmt = ('Quota exceeded for %(resource)s in project %(project)s: the request '
               'needs %(requested)d, %(in_use)d of %(limit)d are in use.')
    exit_code = 7
    http_status = 403  # Nova's answer to an over-quota request


def _limits(session, project_id):
    limits = {r: getattr(CONF.quota, r) for r in RESOURCES}
    rows = session.execute(sa.select(models.QuotaLimit)
                           .where(models.QuotaLimit.project_id == project_id)).scalars()
    limits.update({row.resource: row.hard_limit for row in rows})
    return limits


def _usage(session, project_id):
    rows = session.execute(sa.select(U).where(U.project_id == project_id)).scalars()
    usage = dict.fromkeys(RESOURCES, 0)
    usage.update({row.resource: row.in_use for row in rows})
    return usage


def _ensure_usage_rows(session, project_id, resources):
    # Insert-if-absent in one statement: two first boots of a project may race here.
    dialect = postgresql if session.bind.dialect.name == 'postgresql' else sqlite
    session.execute(dialect.insert(U).values(
        [{'project_id': project_id, 'resource': r, 'in_use': 0} for r in resources]
    ).on_conflict_do_nothing())


def amounts_for(vcpus, ram_mib, volume_sizes):
    return {'instances': 1, 'vcpus': vcpus, 'ram_mib': ram_mib,
            'volumes_gib': sum(volume_sizes)}


def reserve(session, project_id, instance_id, amounts, project_name=None):
    """Count amounts against the project, in the caller's transaction, or OverQuota."""
    wanted = count(session, project_id, amounts, project_name)
    session.add(models.QuotaReservation(instance_id=instance_id, project_id=project_id,
                                        amounts=wanted))


def count(session, project_id, amounts, project_name=None):
    """Raise the project's counters (or OverQuota); what was counted. The caller
    remembers it (a reservation, a volume's size) to give it back with uncount."""
    limits = _limits(session, project_id)
    wanted = {r: n for r, n in amounts.items() if n}
    _ensure_usage_rows(session, project_id, sorted(wanted))
    for resource in sorted(wanted):  # one order everywhere: no lock-order deadlock
        n, limit = wanted[resource], limits[resource]
        query = sa.update(U).where(U.project_id == project_id, U.resource == resource)
        if limit != UNLIMITED:
            query = query.where(U.in_use + n <= limit)
        if session.execute(query.values(in_use=U.in_use + n)).rowcount != 1:
            in_use = _usage(session, project_id)[resource]
            raise OverQuota(resource=resource, project=project_name or project_id, requested=n,
                            in_use=in_use, limit=limit)
    return wanted


def uncount(session, project_id, amounts):
    """Give back what count counted, in the caller's transaction."""
    for resource in sorted(amounts):
        session.execute(sa.update(U).where(U.project_id == project_id,
                                           U.resource == resource)
                        .values(in_use=U.in_use - amounts[resource]))


def release(instance_id):
    """Give back what the instance counted; a no-op when already released."""
    with db_api.transaction() as session:
        row = session.get(models.QuotaReservation, instance_id)
        if row is None:
            return False
        uncount(session, row.project_id, row.amounts)
        session.delete(row)
        return True


def show(project_id):
    with db_api.transaction() as session:
        limits, usage = _limits(session, project_id), _usage(session, project_id)
    return [{'resource': r, 'limit': limits[r], 'in_use': usage[r]} for r in RESOURCES]


def set_limits(project_id, **limits):
    """Set a project's own limits (None leaves one as it is; -1 is unlimited)."""
    with db_api.transaction() as session:
        for resource, value in limits.items():
            if resource not in RESOURCES:
                raise TypeError(resource)
            if value is None:
                continue
            if value < UNLIMITED:
                raise exception.Invalid(reason='a quota limit is -1 (unlimited) or '
                                               'at least 0, not %d' % value)
            session.merge(models.QuotaLimit(project_id=project_id, resource=resource,
                                            hard_limit=value))
    return show(project_id)


def reset_limits(project_id):
    """Forget a project's own limits: the [quota] defaults apply again."""
    with db_api.transaction() as session:
        session.execute(sa.delete(models.QuotaLimit)
                        .where(models.QuotaLimit.project_id == project_id))
    return show(project_id)
