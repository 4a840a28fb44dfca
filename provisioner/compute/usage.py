"""Nova's simple tenant usage: the hours each project's servers ran in a period,
and their vCPU, memory and disk hours (the flavor's sizes times the hours).

A server counts from its launch to its deletion (or the period's end); one that
never launched counts nothing. Deleted servers' rows are kept, so a past period
still adds up.
"""

import collections
import datetime

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception


def _aware(moment):
    return moment if moment is None or moment.tzinfo else moment.replace(
        tzinfo=datetime.timezone.utc)


def _hours(launched, ended, start, stop):
    if launched is None or (ended and ended < start) or launched > stop:
        return 0
    return (min(stop, ended or stop) - max(launched, start)).total_seconds() / 3600.0


def _instances(session, start, stop, project_id, limit, marker):
    inst = models.Instance
    query = (sa.select(inst, models.Flavor)
             .join(models.Flavor, models.Flavor.id == inst.flavor_id, isouter=True)
             .where(inst.launched_at.is_not(None),
                    inst.launched_at < stop.replace(tzinfo=None),
                    sa.or_(inst.deleted_at.is_(None),
                           inst.deleted_at > start.replace(tzinfo=None)))
             .order_by(inst.created_at, inst.id))
    if project_id is not None:
        query = query.where(inst.project_id == project_id)
    rows = session.execute(query).all()
    if marker is not None:
        ids = [row[0].id for row in rows]
        if marker not in ids:
            raise exception.Invalid(reason='marker [%s] not found' % marker)
        rows = rows[ids.index(marker) + 1:]
    return rows[:limit] if limit is not None else rows


def _server_usage(instance, flavor, start, stop, now):
    launched, ended = _aware(instance.launched_at), _aware(instance.deleted_at)
    return {'instance_id': instance.id, 'name': instance.name,
            'tenant_id': instance.project_id,
            'hours': _hours(launched, ended, start, stop),
            'flavor': flavor.name if flavor else '',
            'memory_mb': flavor.ram_mib if flavor else 0,
            'local_gb': (flavor.disk_gib + flavor.ephemeral_gib) if flavor else 0,
            'vcpus': flavor.vcpus if flavor else 0,
            'started_at': launched, 'ended_at': ended,
            'state': 'terminated' if ended else instance.vm_state,
            'uptime': int(((ended or now) - launched).total_seconds())}


def tenant_usages(start, stop, project_id=None, detailed=False, limit=None,
                  marker=None):
    """([the usage of each project], [every server's usage]) over [start, stop]
    (aware datetimes); ``limit``/``marker`` page over the servers."""
    now = datetime.datetime.now(datetime.timezone.utc)
    by_project = collections.OrderedDict()
    servers = []
    with db_api.transaction() as session:
        for instance, flavor in _instances(session, start, stop, project_id, limit,
                                           marker):
            usage = _server_usage(instance, flavor, start, stop, now)
            summary = by_project.setdefault(usage['tenant_id'], dict(
                {'tenant_id': usage['tenant_id'], 'total_local_gb_usage': 0,
                 'total_vcpus_usage': 0, 'total_memory_mb_usage': 0,
                 'total_hours': 0, 'start': start, 'stop': stop},
                **({'server_usages': []} if detailed else {})))
            summary['total_local_gb_usage'] += usage['local_gb'] * usage['hours']
            summary['total_vcpus_usage'] += usage['vcpus'] * usage['hours']
            summary['total_memory_mb_usage'] += usage['memory_mb'] * usage['hours']
            summary['total_hours'] += usage['hours']
            servers.append(usage)
            if detailed:
                summary['server_usages'].append(usage)
    return list(by_project.values()), servers
