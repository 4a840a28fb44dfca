"""The IPv4 routes of this host.

Guest networks add none: their bridges carry no address on the host (DHCP is served
from a namespace of its own, provisioner.virt.dhcp_namespace), so a subnet may use
any range, one the host routes included; the tests check no bridge of theirs left a
route behind.
"""

import ipaddress
import struct


ROUTE_TABLE = '/proc/net/route'


def routes(path=None):
    """[(IPv4Network, device)] of the host's main routing table, default routes left out.

    Empty where there is no such table (not Linux): there is nothing to compare with.
    """
    try:
        with open(path or ROUTE_TABLE) as table:
            lines = table.read().splitlines()[1:]  # the first line names the columns
    except OSError:
        return []
    found = []
    for line in lines:
        fields = line.split()
        if len(fields) < 8:
            continue
        device, destination, mask = fields[0], fields[1], fields[7]
        # Addresses are in network byte order, printed as a host-order integer.
        address = ipaddress.IPv4Address(struct.pack('=I', int(destination, 16)))
        netmask = ipaddress.IPv4Address(struct.pack('=I', int(mask, 16)))
        route = ipaddress.IPv4Network('%s/%s' % (address, netmask), strict=False)
        if route.prefixlen:
            found.append((route, device))
    return found
