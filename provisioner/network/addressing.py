"""A subnet's addressing: CIDR, gateway, allocation pool, DNS servers (no database).

One allocation pool per subnet: it becomes the one DHCP range of the network's
dnsmasq. Fixed IPs may lie anywhere in the CIDR except the gateway, the host's
own address and the network and broadcast addresses, as in Neutron.
"""

import ipaddress

from provisioner import exception
from provisioner import schemas
from provisioner import validation

MAX_DNS_SERVERS = 5  # Neutron's default max_dns_nameservers
DEFAULT = object()  # "not given": the first host address is the gateway

CIDR = schemas.titled(schemas.GUEST_NETWORK, 'CIDR')
_GIVE_DNS = 'dns_nameservers: give a list of at most %d IPv4 addresses' % MAX_DNS_SERVERS
DNS_SERVERS = {'type': 'array', 'maxItems': MAX_DNS_SERVERS, 'uniqueItems': True,
               'items': schemas.titled(schemas.IPV4_ADDRESS, 'DNS server'),
               'errorMessage': {'type': _GIVE_DNS, 'maxItems': _GIVE_DNS,
                                'uniqueItems': 'dns_nameservers: each may be given '
                                               'only once'}}
_ONE_POOL = ('give exactly one allocation pool {{"start", "end"}}: a subnet is served '
             'by one DHCP range')
POOLS = {'type': 'array', 'minItems': 1, 'maxItems': 1, 'items': {
    'type': 'object', 'errorMessage': _ONE_POOL}, 'errorMessage': _ONE_POOL}
MAX_HOST_ROUTES = 20  # Neutron's default max_subnet_host_routes


def routes_schema(field, max_items=None):
    """Neutron's type:hostroutes for ``field``: [{destination, nexthop}]."""
    give = ('%s: give a list of%s {{"destination": CIDR, "nexthop": IPv4 address}}'
            % (field, ' at most %d' % max_items if max_items else ''))
    schema = {'type': 'array', 'items': {
        'type': 'object', 'required': ['destination', 'nexthop'],
        'additionalProperties': False,
        'properties': {'destination': {'type': 'string'},
                       'nexthop': schemas.titled(schemas.IPV4_ADDRESS, 'nexthop')},
        'errorMessage': {'type': give, 'required': give, 'additionalProperties': give}},
        'errorMessage': {'type': give, 'maxItems': give}}
    if max_items:
        schema['maxItems'] = max_items
    return schema


HOST_ROUTES = routes_schema('host_routes', MAX_HOST_ROUTES)
_ADDRESSES = {field: schemas.titled(schemas.IPV4_ADDRESS, field) for field in (
    'gateway', 'allocation pool start', 'allocation pool end', 'fixed IP')}


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
    validation.check(list(pools) if isinstance(pools, tuple) else pools, POOLS)
    start = _host_of(net, pools[0].get('start'), 'allocation pool start')
    end = _host_of(net, pools[0].get('end'), 'allocation pool end')
    if start > end:
        raise exception.Invalid(reason='allocation pool start %s is after its end %s'
                                       % (start, end))
    return start, end


def host_routes(values, schema=HOST_ROUTES):
    """Neutron's host routes (or a router's routes: ``schema``), checked:
    [{destination (an IPv4 CIDR), nexthop}]."""
    values = list(values or ())
    validation.check(values, schema)
    routes = []
    for route in values:
        try:
            destination = ipaddress.IPv4Network(route['destination'])
        except ValueError:
            raise exception.Invalid(reason='route destination %r is not an IPv4 CIDR'
                                           % (route['destination'],)) from None
        found = {'destination': str(destination), 'nexthop': route['nexthop']}
        if found in routes:
            raise exception.Invalid(reason='route %s via %s is given twice'
                                           % (destination, route['nexthop']))
        routes.append(found)
    return routes


def plan(cidr, gateway=DEFAULT, pools=None, dns_nameservers=(), routes=()):
    """{cidr, gateway, dhcp_start, dhcp_end, dns_nameservers, host_routes}, checked;
    Invalid if not.

    ``gateway`` None: no gateway (the guests get no default route).
    """
    validation.check(cidr, CIDR)
    net = ipaddress.IPv4Network(cidr)
    if gateway is DEFAULT:
        gateway = net.network_address + 1
    elif gateway is not None:
        gateway = _host_of(net, gateway, 'gateway')
    start, end = _pool(net, pools) if pools else _largest_free_range(net, gateway)
    if gateway is not None and start <= gateway <= end:
        raise exception.Invalid(reason='the gateway %s lies inside the allocation '
                                       'pool %s-%s' % (gateway, start, end))
    plan = {'cidr': str(net), 'gateway': gateway and str(gateway),
            'dhcp_start': str(start), 'dhcp_end': str(end),
            'dns_nameservers': dns_servers(dns_nameservers),
            'host_routes': host_routes(routes)}
    host_address(plan)  # a subnet whose pool leaves the host no address is refused
    return plan


def dns_servers(values):
    values = list(values) if isinstance(values, tuple) else values
    validation.check(values, DNS_SERVERS)
    return values


def _host_of(net, value, field):
    """``value`` as an address of ``net`` that a host may take (not the network's
    nor its broadcast address); Invalid naming ``field`` otherwise."""
    validation.check(value, _ADDRESSES[field])
    addr = ipaddress.IPv4Address(value)
    if addr not in net or addr in (net.network_address, net.broadcast_address):
        raise exception.Invalid(reason='%s %s is not a host address of %s'
                                       % (field, value, net))
    return addr


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
    validation.check(value, _ADDRESSES['fixed IP'])
    addr = ipaddress.IPv4Address(value)
    if addr not in net or addr in (net.network_address, net.broadcast_address):
        raise InvalidIpForSubnet(ip=addr, cidr=net)
    addr = str(addr)
    if addr in (subnet['gateway'], host_address(subnet)):
        raise exception.Invalid(reason='fixed IP %s is the address of the subnet\'s '
                                       'gateway or DHCP server' % addr)
    return addr
