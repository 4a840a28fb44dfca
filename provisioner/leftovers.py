"""Leftovers: what a cleanup could not remove from a host, recorded by the engine.

A host step's revert or a delete step reports the cleanups that failed
(flows.steps.base.undo); the engine records each here (provisioner.engine.cleanups), with the
host and the instance, and names it in the instance's fault. A later successful
cleanup of the same kind (a delete, an audit --fix, the host's reconciler)
resolves it.
"""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models


def default_name(kind, instance_id):
    """The host-side name of an instance's resource of ``kind`` (see the driver)."""
    return {'domain': 'instance-%s', 'root_disk': 'instance-%s-root.qcow2',
            'config_drive': '%s/disk.config', 'instance_dir': '%s'}.get(
                kind, '%s') % instance_id


def _name_in(what, kind, instance_id):
    """'delete volume <id>' -> 'volume-<id>.qcow2'; 'drop DHCP entry <mac>' -> mac."""
    words = what.split()
    last = words[-1] if len(words) > 2 else None
    if kind == 'volume' and last:
        return 'volume-%s.qcow2' % last
    if kind == 'dhcp_host' and last:
        return last
    return default_name(kind, instance_id)


def record(kind, name, host, error, instance_id=None):
    """Record one leftover; an open one of the same kind, name and host is updated."""
    table = models.Leftover
    with db_api.transaction() as session:
        row = session.execute(sa.select(table).where(
            table.kind == kind, table.name == name, table.host.is_(host)
            if host is None else table.host == host,
            table.resolved_at.is_(None))).scalars().first()
        if row is None:
            session.add(table(kind=kind, name=name, host=host, error=error,
                              instance_id=instance_id))
        else:
            row.error = error
            row.created_at = models.utcnow()


def record_cleanup_failures(instance_id, host, kind, failures):
    """Record a step's failed cleanups ('what: error' each) of resources of ``kind``
    and name them in the instance's fault; return the records as dicts."""
    recorded = []
    for failure in failures:
        what, _, error = failure.partition(': ')
        name = _name_in(what, kind, instance_id)
        record(kind, name, host, error or what, instance_id)
        recorded.append({'kind': kind, 'name': name, 'host': host,
                         'error': error or what})
    _note_in_fault(instance_id, recorded)
    return recorded


def _note_in_fault(instance_id, recorded):
    if not recorded:
        return
    items = '; '.join('%s %s on host %s (%s)' % (r['kind'], r['name'], r['host'],
                                                   r['error']) for r in recorded)
    with db_api.transaction() as session:
        row = session.get(models.Instance, instance_id)
        if row is not None and items not in (row.fault or ''):
            row.fault = ('%s; left behind: %s' % (row.fault, items) if row.fault
                         else 'Left behind: %s' % items)


def _as_dict(row):
    return {'id': row.id, 'kind': row.kind, 'name': row.name, 'host': row.host,
            'instance_id': row.instance_id, 'error': row.error,
            'created_at': row.created_at.isoformat(timespec='seconds'),
            'resolved_at': (row.resolved_at.isoformat(timespec='seconds')
                            if row.resolved_at else None)}


def list_open(host=None, instance_id=None):
    table = models.Leftover
    query = sa.select(table).where(table.resolved_at.is_(None)).order_by(table.id)
    if host is not None:
        query = query.where(table.host == host)
    if instance_id is not None:
        query = query.where(table.instance_id == instance_id)
    with db_api.transaction() as session:
        return [_as_dict(row) for row in session.execute(query).scalars()]


def resolve(kind=None, name=None, host=None, instance_id=None):
    """Mark the open leftovers matching every given field resolved; count them."""
    table = models.Leftover
    query = sa.update(table).where(table.resolved_at.is_(None))
    for column, value in ((table.kind, kind), (table.name, name), (table.host, host),
                          (table.instance_id, instance_id)):
        if value is not None:
            query = query.where(column == value)
    with db_api.transaction() as session:
        return session.execute(query.values(resolved_at=models.utcnow())).rowcount
