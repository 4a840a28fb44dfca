"""The IPv4 routes of this host: a guest network must not shadow any of them.

A libvirt network puts its gateway address on a new host bridge with a route for its
CIDR; a CIDR that overlaps a route the host already has (its uplink's subnet, a VPN,
another deployment's bridge) would take that traffic away from where it goes now.
"""

import ipaddress
import struct

from provisioner import exception

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


def check_free(net, host, own_device=None, path=None):
    """Refuse ``net`` if it overlaps a route of this host (not one via ``own_device``,
    the network's own bridge)."""
    for route, device in routes(path):
        if device != own_device and route.overlaps(net):
            raise exception.Conflict(
                reason='CIDR %s overlaps the route %s (device %s) of host %s: a guest '
                       'network there would take that traffic away; choose a range '
                       'no route of the host uses' % (net, route, device, host))
