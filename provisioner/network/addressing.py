"""A subnet's addressing: CIDR, gateway, allocation pool, DNS servers (no database).

One allocation pool per subnet: it becomes the one DHCP range of the network's
dnsmasq. Fixed IPs may lie anywhere in the CIDR except the gateway, the host's
own address and the network and broadcast addresses, as in Neutron.
"""

import ipaddress

from provisioner import exception
from provisioner import validation

MAX_DNS_SERVERS = 5  # Neutron's default max_dns_nameservers
DEFAULT = object()  # "not given": the first host address is the gateway


def _largest_free_range(net, gateway):
    """The default allocation pool: every host address but the gateway's; without a
    gateway, but the first, which the host's bridge and DHCP server take (Neutron's
    DHCP port takes it from the pool: here it is left out of the pool instead)."""
    first, last = net.network_address + 1, net.broadcast_address - 1
    if gateway is None:
        return first + 1, last
    below, above = (first, gateway - 1), (gateway + 1, last)
    return max((r for r in (below, above) if r[0] <= r[1]),
               key=lambda r: int(r[1]) - int(r[0]))


def _pool(net, pools):
    if not isinstance(pools, (list, tuple)) or len(pools) != 1 \
            or not isinstance(pools[0], dict):
        raise exception.Invalid(
            reason='give exactly one allocation pool {"start", "end"}: a subnet is '
                   'served by one DHCP range')
    start = validation.address_in(net, pools[0].get('start'), 'allocation pool start')
    end = validation.address_in(net, pools[0].get('end'), 'allocation pool end')
    if start > end:
        raise exception.Invalid(reason='allocation pool start %s is after its end %s'
                                       % (start, end))
    return start, end


def plan(cidr, gateway=DEFAULT, pools=None, dns_nameservers=()):
    """{cidr, gateway, dhcp_start, dhcp_end, dns_nameservers}, checked; Invalid if not.

    ``gateway`` None: no gateway (the guests get no default route).
    """
    net = validation.ipv4_network(cidr)
    if gateway is DEFAULT:
        gateway = net.network_address + 1
    elif gateway is not None:
        gateway = validation.address_in(net, gateway, 'gateway')
    start, end = _pool(net, pools) if pools else _largest_free_range(net, gateway)
    if gateway is not None and start <= gateway <= end:
        raise exception.Invalid(reason='the gateway %s lies inside the allocation '
                                       'pool %s-%s' % (gateway, start, end))
    plan = {'cidr': str(net), 'gateway': gateway and str(gateway),
            'dhcp_start': str(start), 'dhcp_end': str(end),
            'dns_nameservers': dns_servers(dns_nameservers)}
    host_address(plan)  # a subnet whose pool leaves the host no address is refused
    return plan


def dns_servers(values):
    if not isinstance(values, (list, tuple)) or len(values) > MAX_DNS_SERVERS:
        raise exception.Invalid(reason='dns_nameservers: give a list of at most %d '
                                       'IPv4 addresses' % MAX_DNS_SERVERS)
    found = [str(validation.ipv4_address(v, 'DNS server')) for v in values]
    if len(set(found)) != len(found):
        raise exception.Invalid(reason='dns_nameservers: each may be given only once')
    return found


def host_address(subnet):
    """The address the host's bridge (and its DHCP server) takes: the gateway, or
    without one the first host address outside the allocation pool."""
    if subnet['gateway']:
        return subnet['gateway']
    net = ipaddress.IPv4Network(subnet['cidr'])
    start = ipaddress.IPv4Address(subnet['dhcp_start'])
    end = ipaddress.IPv4Address(subnet['dhcp_end'])
    for candidate in (net.network_address + 1, end + 1):
        if candidate < net.broadcast_address and not start <= candidate <= end:
            return str(candidate)
    raise exception.Invalid(reason='without a gateway the allocation pool must leave '
                                   'one address of %s to the host\'s DHCP server'
                                   % net)


class InvalidIpForSubnet(exception.Invalid):
    """Neutron's 400 for a fixed IP that is not a host address of the subnet."""

    neutron_type = 'InvalidIpForSubnet'
    msg_fmt = ('IP address %(ip)s is not a valid IP for the specified subnet '
               '%(cidr)s.')


def check_fixed_ip(subnet, value):
    """A fixed IP the caller asked for: a host address of the subnet that is neither
    the gateway nor the host's."""
    net = ipaddress.IPv4Network(subnet['cidr'])
    addr = ipaddress.IPv4Address(validation.ipv4_address(value, 'fixed IP'))
    if addr not in net or addr in (net.network_address, net.broadcast_address):
        raise InvalidIpForSubnet(ip=addr, cidr=net)
    addr = str(addr)
    if addr in (subnet['gateway'], host_address(subnet)):
        raise exception.Invalid(reason='fixed IP %s is the address of the subnet\'s '
                                       'gateway or DHCP server' % addr)
    return addr
