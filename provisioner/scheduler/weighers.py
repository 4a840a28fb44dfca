"""Host weighers: rank the hosts that passed the filters; the highest weight wins.

Each weigher measures one quantity per host; the scheduler scales it to 0..1 across
the candidates (as nova does) and multiplies it by the weigher's configured
multiplier, so a positive multiplier spreads instances and a negative one packs them.
"""

from provisioner.conf import CONF
from provisioner.scheduler import filters


class RamWeigher:
    name = 'RamWeigher'
    measure = filters.FREE_RAM_MIB

    def multiplier(self):
        return CONF.scheduler.ram_weight_multiplier


class VcpuWeigher:
    name = 'VcpuWeigher'
    measure = filters.FREE_VCPUS

    def multiplier(self):
        return CONF.scheduler.vcpu_weight_multiplier


ALL_WEIGHERS = (RamWeigher(), VcpuWeigher())
