"""Counted quotas (compute and volume kinds), reserved atomically with what uses them.

Usage is a counter per (project, resource). A reservation raises every counter with
one conditional UPDATE each (``in_use + n <= limit``) in the transaction that records
the instance (or the volume), so two requests racing for a project's last slot
cannot both pass, and an over-quota request leaves no row at all. Releasing
(rollback, delete) happens once per instance: the reservation row remembers what to
give back; a volume gives back its size when its row goes.
"""

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.quota import limits

RESOURCES = limits.COUNTED
U = models.QuotaUsage


class OverQuota(exception.ProvisionerError):
    msg_fmt = ('Quota exceeded for %(resource)s in project %(project)s: the request '
               'needs %(requested)d, %(in_use)d of %(limit)d are in use.')
    exit_code = 7
    http_status = 403  # Nova's answer to an over-quota request


class VolumeOverQuota(OverQuota):
    """Cinder's 413 OverLimit, for the volume API's requests."""

    msg_fmt = ('VolumeSizeExceedsAvailableQuota: Requested volume or snapshot exceeds '
               'allowed gigabytes quota. Requested %(requested)sG, quota is '
               '%(limit)sG and %(in_use)sG has been consumed.')
    http_status = 413


def usage(session, project_id):
    rows = session.execute(sa.select(U).where(U.project_id == project_id)).scalars()
    found = dict.fromkeys(RESOURCES, 0)
    found.update({row.resource: row.in_use for row in rows})
    return found


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


def count(session, project_id, amounts, project_name=None, error=OverQuota):
    """Raise the project's counters (or ``error``, an OverQuota); what was counted.
    The caller remembers it (a reservation, a volume's size) to give it back with
    uncount."""
    found = limits.limits(session, project_id, RESOURCES)
    wanted = {r: n for r, n in amounts.items() if n}
    _ensure_usage_rows(session, project_id, sorted(wanted))
    for resource in sorted(wanted):  # one order everywhere: no lock-order deadlock
        n, limit = wanted[resource], found[resource]
        query = sa.update(U).where(U.project_id == project_id, U.resource == resource)
        if limit != limits.UNLIMITED:
            query = query.where(U.in_use + n <= limit)
        if session.execute(query.values(in_use=U.in_use + n)).rowcount != 1:
            raise error(resource=resource, project=project_name or project_id,
                        requested=n, in_use=usage(session, project_id)[resource],
                        limit=limit)
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
    """[{resource, limit, in_use}] of the counted resources of a project."""
    with db_api.transaction() as session:
        found = limits.limits(session, project_id, RESOURCES)
        used = usage(session, project_id)
    return [{'resource': r, 'limit': found[r], 'in_use': used[r]} for r in RESOURCES]


def set_limits(project_id, **wanted):
    """Set a project's own limits of counted resources (None leaves one as it is)."""
    with db_api.transaction() as session:
        limits.set_limits(session, project_id, wanted, limits.COUNTED_LIMITS)
    return show(project_id)
