"""Neutron's extraroute and extraroute-atomic: a router's static routes, each through
a next hop on one of the subnets it has a port on (an interface or its gateway).

As Neutron's extraroute_db: the routes' format is type:hostroutes (400); at most
Neutron's default router_route quota of 30 per router (409 OverQuota); a next
hop must lie in the CIDR of one of the router's ports and be none of their
addresses (400 InvalidRoutes); an interface whose subnet holds a route's next hop
cannot be removed (409 RouterInterfaceInUseByRoute). add_extraroutes and
remove_extraroutes change the set atomically: an exact duplicate is kept once,
removing a missing route is no error.
"""

import ipaddress

from provisioner import exception
from provisioner.network import addressing
from provisioner.quota import networks as network_quotas

MAX_ROUTES = 30  # Neutron's default quota of routes per router (router_route)
SCHEMA = addressing.routes_schema('routes')


class InvalidRoutes(exception.Invalid):
    neutron_type = 'InvalidRoutes'
    msg_fmt = 'Invalid format for routes: %(routes)s, %(reason)s.'


class RouterInterfaceInUseByRoute(exception.Conflict):
    neutron_type = 'RouterInterfaceInUseByRoute'
    msg_fmt = ('Router interface for subnet %(subnet_id)s on router %(router_id)s '
               'cannot be deleted, as it is required by one or more routes.')


def checked(routes):
    """The routes (None: none) in their format, checked; Invalid if not."""
    return addressing.host_routes(routes, SCHEMA)


def check(routes, connected):
    """Refuse ``routes`` (checked) that a router with ports at ``connected``
    [(address, CIDR)] cannot have."""
    if len(routes) > MAX_ROUTES:
        raise network_quotas.OverQuota(resource='router_route', limit=MAX_ROUTES)
    networks = [ipaddress.IPv4Network(cidr) for _address, cidr in connected]
    addresses = {address for address, _cidr in connected}
    for route in routes:
        nexthop = ipaddress.IPv4Address(route['nexthop'])
        if not any(nexthop in net for net in networks):
            raise InvalidRoutes(routes=routes,
                                reason='the nexthop is not connected with router')
        if str(nexthop) in addresses:
            raise InvalidRoutes(routes=routes, reason='the nexthop is used by router')


def added(old, new):
    """old, then each route of new it lacks (extraroute-atomic's add)."""
    return list(old) + [r for index, r in enumerate(new)
                        if r not in old and r not in new[:index]]


def removed(old, gone):
    """old without the routes of gone (extraroute-atomic's remove)."""
    return [r for r in old if r not in gone]


def check_unused(routes, router_id, subnet_id, cidr):
    """Refuse to take the router off a subnet that a route's next hop is on."""
    net = ipaddress.IPv4Network(cidr)
    if any(ipaddress.IPv4Address(r['nexthop']) in net for r in routes):
        raise RouterInterfaceInUseByRoute(router_id=router_id, subnet_id=subnet_id)
