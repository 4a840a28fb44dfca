"""Claims: take a host's resources in one atomic statement, give them back on undo."""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models


def claim(instance_id, host_name, vcpus, ram_mib, disk_gib):
    """Claim on host_name; True if claimed (or already claimed there), False if full."""
    h = models.Host
    with db_api.transaction() as session:
        existing = session.get(models.Allocation, instance_id)
        if existing is not None:
            host = session.get(models.Host, existing.host_id)
            return host.name == host_name
        # The capacity check and the increment are one UPDATE: two boots racing for
        # the last slot cannot both match the WHERE clause.
        result = session.execute(
            sa.update(h)
            .where(h.name == host_name, h.enabled.is_(True),
                   h.vcpus_used + vcpus <= h.vcpus * h.cpu_allocation_ratio,
                   h.memory_mib_used + ram_mib <= h.memory_mib * h.ram_allocation_ratio,
                   h.disk_gib_used + disk_gib <= h.disk_gib * h.disk_allocation_ratio)
            .values(vcpus_used=h.vcpus_used + vcpus,
                    memory_mib_used=h.memory_mib_used + ram_mib,
                    disk_gib_used=h.disk_gib_used + disk_gib))
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
                    disk_gib_used=h.disk_gib_used - alloc.disk_gib))
        session.delete(alloc)
        return True


def has_claim(instance_id):
    with db_api.transaction() as session:
        return session.get(models.Allocation, instance_id) is not None
