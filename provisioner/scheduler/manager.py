"""Select hosts: filter the hosts in the database, weigh the survivors (steps 9-11)."""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.scheduler import filters


def _host_states(session):
    states = []
    for host in session.execute(sa.select(models.Host)).scalars():
        states.append(filters.HostState(
            name=host.name, enabled=host.enabled,
            vcpus_free=host.vcpus * host.cpu_allocation_ratio - host.vcpus_used,
            memory_mib_free=(host.memory_mib * host.ram_allocation_ratio
                             - host.memory_mib_used),
            disk_gib_free=host.disk_gib * host.disk_allocation_ratio - host.disk_gib_used))
    return states


def select_hosts(spec, max_hosts=3):
    """Return the best host first, then alternates; NoValidHost says who removed what."""
    with db_api.transaction() as session:
        hosts = _host_states(session)
    total = len(hosts)
    removed = []
    for host_filter in filters.ALL_FILTERS:
        before = len(hosts)
        hosts = [h for h in hosts if host_filter.host_passes(h, spec)]
        if len(hosts) < before:
            removed.append('%s removed %d' % (host_filter.name, before - len(hosts)))
    if not hosts:
        detail = ', '.join(removed) if removed else 'no hosts are registered'
        raise exception.NoValidHost(
            reason='%d host(s) considered for %d vCPU, %d MiB RAM, %d GiB disk; %s'
                   % (total, spec.vcpus, spec.ram_mib, spec.disk_gib, detail))
    # Spread: the host with the most free RAM first.
    hosts.sort(key=lambda h: h.memory_mib_free, reverse=True)
    return [h.name for h in hosts[:max_hosts]]
