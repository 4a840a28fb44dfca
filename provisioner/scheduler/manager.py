"""Select hosts: filter the hosts in the database, weigh the survivors (steps 9-11).

The database does the work: one query measures the candidates (count, and the range
of each weigher's quantity, to scale weights to 0..1), one returns the best few in
weight order. Only a request no host can take is examined filter by filter, to say
which filter removed how many hosts.
"""

import sqlalchemy as sa

from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner import exception
from provisioner.scheduler import filters
from provisioner.scheduler import weighers

H = filters.H


def _conditions(active_filters, spec):
    requested = ([('requested host', H.name == spec.requested_host)]
                 if spec.requested_host else [])
    return requested + [(f.name, c) for f in active_filters
                        for c in [f.clause(spec)] if c is not None]


def _group_order(spec):
    """Nova's soft (anti-)affinity weighers: the hosts holding members of the group
    first (soft-affinity) or last (soft-anti-affinity), before any other weight."""
    if spec.group_policy not in (filters.SOFT_AFFINITY, filters.SOFT_ANTI_AFFINITY) \
            or not spec.group_hosts:
        return []
    holds = sa.case((H.name.in_(sorted(spec.group_hosts)), 1), else_=0)
    return [holds.desc() if spec.group_policy == filters.SOFT_AFFINITY else holds]


def _order(ranges):
    """Highest weight first: sum of multiplier * (quantity scaled to 0..1); then name."""
    terms = []
    for weigher, (low, high) in zip(weighers.ALL_WEIGHERS, ranges):
        multiplier = weigher.multiplier()
        if multiplier and high is not None and high > low:
            terms.append(multiplier * (weigher.measure - low) / (high - low))
    # All candidates alike: no weight term (PostgreSQL refuses ORDER BY a constant).
    return [sum(terms[1:], terms[0]).desc(), H.name] if terms else [H.name]


def _no_valid_host(conn, conditions, spec):
    total = conn.execute(sa.select(sa.func.count()).select_from(H)).scalar()
    removed, applied, left = [], [], total
    for name, condition in conditions:
        applied.append(condition)
        passing = conn.execute(sa.select(sa.func.count()).select_from(H)
                               .where(*applied)).scalar()
        if passing < left:
            removed.append('%s removed %d' % (name, left - passing))
        left = passing
    detail = ', '.join(removed) if removed else 'no hosts are registered'
    group = (' in %s group %s' % (spec.group_policy, spec.group_name)
             if spec.group_name else '')
    zone = ' in zone %s' % spec.availability_zone if spec.availability_zone else ''
    return exception.NoValidHost(
        reason='%d host(s) considered for %d vCPU, %d MiB RAM, %d GiB disk%s%s; %s'
               % (total, spec.vcpus, spec.ram_mib, spec.disk_gib, zone, group, detail))


def select_hosts(spec, max_hosts=None):
    """Return the best host first, then alternates; NoValidHost says who removed what."""
    max_hosts = max_hosts or CONF.scheduler.max_attempts
    conditions = _conditions(filters.enabled_filters(CONF.scheduler.enabled_filters),
                             spec)
    where = [c for _name, c in conditions]
    with db_api.connection() as conn:
        stats = conn.execute(sa.select(
            sa.func.count(),
            *[f(w.measure) for w in weighers.ALL_WEIGHERS
              for f in (sa.func.min, sa.func.max)]).select_from(H).where(*where)).one()
        if not stats[0]:
            raise _no_valid_host(conn, conditions, spec)
        ranges = list(zip(stats[1::2], stats[2::2]))
        rows = conn.execute(sa.select(H.name).where(*where)
                            .order_by(*_group_order(spec), *_order(ranges)).limit(max_hosts))
        return [row.name for row in rows]
