"""Host filters: each says whether one host can take one request, and nothing more."""

import dataclasses


@dataclasses.dataclass(frozen=True)
class HostState:
    name: str
    enabled: bool
    vcpus_free: float
    memory_mib_free: float
    disk_gib_free: float


@dataclasses.dataclass(frozen=True)
class RequestSpec:
    vcpus: int
    ram_mib: int
    disk_gib: int


class EnabledFilter:
    name = 'EnabledFilter'

    def host_passes(self, host, spec):
        return host.enabled


class RamFilter:
    name = 'RamFilter'

    def host_passes(self, host, spec):
        return host.memory_mib_free >= spec.ram_mib


class VcpuFilter:
    name = 'VcpuFilter'

    def host_passes(self, host, spec):
        return host.vcpus_free >= spec.vcpus


class DiskFilter:
    name = 'DiskFilter'

    def host_passes(self, host, spec):
        return host.disk_gib_free >= spec.disk_gib


ALL_FILTERS = (EnabledFilter(), RamFilter(), VcpuFilter(), DiskFilter())
