"""Binding the first port of a network on a host (issue 22): what the host makes for
a network it holds no port of yet -- its bridge (the libvirt network), its DHCP
namespace with the veth and the network's dnsmasq, and the port's DHCP entry --
timed with 1, 10 and 100 networks already on the host.

All-in-one on qemu:///system, with the bench's own resource prefix: address-less
bridges and a namespace per network, all of one CIDR (networks may overlap now),
removed at the end.
"""

import statistics
import time

from provisioner.network import shared as networks
from provisioner import virt
from tests.bench import common

COUNTS = (1, 10, 100)
SAMPLES = 5
CIDR = '10.250.0.0/24'


def _bind_once(driver, name):
    """ms to bind a port of a network new to this host; the network is then gone."""
    net = networks.create(None, name, CIDR)  # recorded only: the host has none of it
    try:
        start = time.perf_counter()
        driver.ensure_network(net)
        driver.reserve_dhcp(net, 'fa:16:3e:fa:00:01', net['dhcp_start'], 'bench')
        return (time.perf_counter() - start) * 1000
    finally:
        driver.delete_network(net)


def run():
    results = {}
    with common.deployment('qemu:///system'):
        driver = virt.get_driver()
        held = []
        try:
            for count in COUNTS:
                while len(held) < count:
                    held.append(networks.create(driver, 'held-%d' % len(held), CIDR))
                samples = [_bind_once(driver, 'new-%d-%d' % (count, i))
                           for i in range(SAMPLES)]
                results[count] = statistics.median(samples)
                print('first port of a network on a host holding %3d networks: %s'
                      % (count, common.summary(samples)), flush=True)
        finally:
            for net in held:
                driver.delete_network(net)
    return {'bind_ms': results}
