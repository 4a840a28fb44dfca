"""Host filters: each says which hosts can take one request, as one SQL condition.

A filter is a condition on the hosts table, so the scheduler asks the database for
the hosts that pass every enabled filter at once (10,000 hosts in a few ms), and
only when none pass does it count, filter by filter, who removed how many.
"""

import dataclasses

import sqlalchemy as sa

from provisioner.db import models
from provisioner import exception

H = models.Host

# What a host can still give: capacity times its over-commit ratio, minus its claims.
FREE_VCPUS = H.vcpus * H.cpu_allocation_ratio - H.vcpus_used
FREE_RAM_MIB = H.memory_mib * H.ram_allocation_ratio - H.memory_mib_used
FREE_DISK_GIB = H.disk_gib * H.disk_allocation_ratio - H.disk_gib_used

AFFINITY = 'affinity'
ANTI_AFFINITY = 'anti-affinity'
# Nova 2.15's: as far as the hosts allow; they order the hosts, filter none out.
SOFT_AFFINITY = 'soft-affinity'
SOFT_ANTI_AFFINITY = 'soft-anti-affinity'


@dataclasses.dataclass(frozen=True)
class RequestSpec:
    """What one boot asks of a host."""

    vcpus: int
    ram_mib: int
    disk_gib: int
    availability_zone: str | None = None
    image_arch: str | None = None
    image_hypervisor_type: str | None = None
    group_name: str | None = None
    group_policy: str | None = None
    # Hosts that already hold a member of the instance's server group.
    group_hosts: frozenset = frozenset()
    # Hosts this boot already failed on (reschedule): never chosen again.
    excluded_hosts: frozenset = frozenset()
    # When a host's last report must be newer than this to count as alive.
    alive_since: object = None
    # The host holding the bytes of the volume the server boots from, if any.
    volume_host: str | None = None
    # The host the boot asked for (Nova's 2.74 host/hypervisor_hostname): the
    # filters still run, on it alone.
    requested_host: str | None = None


class AliveFilter:
    """Hosts that reported within [scheduler] host_down_time and are not forced
    down (Nova's os-services force-down)."""

    name = 'AliveFilter'

    def clause(self, spec):
        if not spec.alive_since:
            return None
        return sa.and_(H.updated_at >= spec.alive_since, H.forced_down.is_(False))


class EnabledFilter:
    name = 'EnabledFilter'

    def clause(self, spec):
        return H.enabled.is_(True)


class AvailabilityZoneFilter:
    name = 'AvailabilityZoneFilter'

    def clause(self, spec):
        if not spec.availability_zone:
            return None
        return H.availability_zone == spec.availability_zone


class RamFilter:
    name = 'RamFilter'

    def clause(self, spec):
        return FREE_RAM_MIB >= spec.ram_mib


class VcpuFilter:
    name = 'VcpuFilter'

    def clause(self, spec):
        return FREE_VCPUS >= spec.vcpus


class DiskFilter:
    name = 'DiskFilter'

    def clause(self, spec):
        return FREE_DISK_GIB >= spec.disk_gib


class ImagePropertiesFilter:
    """Hosts of the architecture and hypervisor type the image asks for, if any."""

    name = 'ImagePropertiesFilter'

    def clause(self, spec):
        conditions = []
        if spec.image_arch:
            conditions.append(H.arch == spec.image_arch)
        if spec.image_hypervisor_type:
            conditions.append(H.hypervisor_type == spec.image_hypervisor_type)
        return sa.and_(*conditions) if conditions else None


class ServerGroupAffinityFilter:
    """The host of the group's other members, once the group has one."""

    name = 'ServerGroupAffinityFilter'

    def clause(self, spec):
        if spec.group_policy != AFFINITY or not spec.group_hosts:
            return None
        return H.name.in_(sorted(spec.group_hosts))


class ServerGroupAntiAffinityFilter:
    """Hosts holding no other member of the group."""

    name = 'ServerGroupAntiAffinityFilter'

    def clause(self, spec):
        if spec.group_policy != ANTI_AFFINITY or not spec.group_hosts:
            return None
        return H.name.not_in(sorted(spec.group_hosts))


class RetryFilter:
    """Hosts this boot has not already failed on (always on while rescheduling)."""

    name = 'RetryFilter'

    def clause(self, spec):
        return H.name.not_in(sorted(spec.excluded_hosts)) if spec.excluded_hosts else None


class VolumeHostFilter:
    """The host holding the root volume's bytes (always on: hosts share no storage)."""

    name = 'VolumeHostFilter'

    def clause(self, spec):
        return H.name == spec.volume_host if spec.volume_host else None


ALL_FILTERS = {f.name: f for f in (
    AliveFilter(), EnabledFilter(), AvailabilityZoneFilter(), RamFilter(), VcpuFilter(),
    DiskFilter(), ImagePropertiesFilter(), ServerGroupAffinityFilter(),
    ServerGroupAntiAffinityFilter())}


def enabled_filters(names):
    """The filters named in [scheduler] enabled_filters, then RetryFilter and
    VolumeHostFilter."""
    unknown = [n for n in names if n not in ALL_FILTERS]
    if unknown:
        raise exception.ProvisionerError(
            'Unknown filter(s) in [scheduler] enabled_filters: %s. Known: %s.'
            % (', '.join(unknown), ', '.join(ALL_FILTERS)))
    return [ALL_FILTERS[n] for n in names] + [RetryFilter(), VolumeHostFilter()]
