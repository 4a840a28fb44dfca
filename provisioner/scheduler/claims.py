"""Claims: take a host's resources in one atomic statement, give them back on undo."""

import sqlalchemy as sa

from provisioner.catalog import hosts
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.scheduler import filters


def group_hosts(session, group_id, instance_id, at_least=1):
    """Hosts holding claims of at least ``at_least`` other members of the group."""
    member, alloc = models.ServerGroupMember, models.Allocation
    return frozenset(session.execute(
        sa.select(models.Host.name)
        .join(alloc, alloc.host_id == models.Host.id)
        .join(member, member.instance_id == alloc.instance_id)
        .where(member.group_id == group_id, member.instance_id != instance_id)
        .group_by(models.Host.name)
        .having(sa.func.count() >= at_least)).scalars())


def full_hosts(session, group, instance_id):
    """The hosts a member of ``group`` (id, policy, max_server_per_host) may not
    take under anti-affinity, or that the group's other policies start from."""
    group_id, policy, per_host = group
    at_least = (per_host or 1) if policy == filters.ANTI_AFFINITY else 1
    return group_hosts(session, group_id, instance_id, at_least)


def _group_allows(session, group, instance_id, host_name):
    """Check the group policy against claims made so far, holding the group's lock.

    Two members racing for the last hosts would both pass the scheduler's filters;
    locking the group row (SQLite: every transaction holds the write lock) makes
    their claims check and take their host one after the other.
    """
    group_id, policy, _per_host = group
    session.execute(sa.select(models.ServerGroup.id)
                    .where(models.ServerGroup.id == group_id).with_for_update())
    taken = full_hosts(session, group, instance_id)
    if policy == filters.ANTI_AFFINITY:
        return host_name not in taken
    if policy == filters.AFFINITY:
        return not taken or taken == {host_name}
    return True  # the soft policies are the weighers' to follow


def claim(instance_id, host_name, vcpus, ram_mib, disk_gib, group=None):
    """Claim on host_name; True if claimed (or already claimed there), False if full.

    ``group`` is (server group id, policy, max_server_per_host) when the instance
    belongs to one: the claim then also fails when it would break the group's policy.
    """
    h = models.Host
    with db_api.transaction() as session:
        existing = session.get(models.Allocation, instance_id)
        if existing is not None:
            host = session.get(models.Host, existing.host_id)
            return host.name == host_name
        if group is not None and not _group_allows(session, group, instance_id,
                                                   host_name):
            return False
        # The capacity check and the increment are one UPDATE: two boots racing for
        # the last slot cannot both match the WHERE clause.
        result = session.execute(
            sa.update(h)
            .where(h.name == host_name, h.enabled.is_(True),
                   filters.FREE_VCPUS >= vcpus, filters.FREE_RAM_MIB >= ram_mib,
                   filters.FREE_DISK_GIB >= disk_gib)
            .values(vcpus_used=h.vcpus_used + vcpus,
                    memory_mib_used=h.memory_mib_used + ram_mib,
                    disk_gib_used=h.disk_gib_used + disk_gib, **hosts.KEEP_LIVENESS))
        if result.rowcount != 1:
            return False
        host_id = session.execute(sa.select(h.id).where(h.name == host_name)).scalar()
        session.add(models.Allocation(instance_id=instance_id, host_id=host_id,
                                      vcpus=vcpus, memory_mib=ram_mib,
                                      disk_gib=disk_gib))
        return True


def release(instance_id):
    """Give the instance's claim back; a no-op when there is none."""
    h = models.Host
    with db_api.transaction() as session:
        alloc = session.get(models.Allocation, instance_id)
        if alloc is None:
            return False
        session.execute(
            sa.update(h).where(h.id == alloc.host_id)
            .values(vcpus_used=h.vcpus_used - alloc.vcpus,
                    memory_mib_used=h.memory_mib_used - alloc.memory_mib,
                    disk_gib_used=h.disk_gib_used - alloc.disk_gib,
                    **hosts.KEEP_LIVENESS))
        session.delete(alloc)
        return True
