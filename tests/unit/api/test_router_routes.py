"""Neutron's extraroute and extraroute-atomic: a router's static routes, their next
hops on the subnets of its interfaces, in Neutron's errors."""

from tests.unit.api.test_network_interop import _interface
from tests.unit.api.test_network_interop import _router
from tests.unit.api.test_network_service import _error
from tests.unit.api.test_network_service import _network_with_subnet
from tests.unit.api.test_network_service import NET


def _routed(client, cidr='10.81.0.0/24', name='rnet'):
    router = _router(client)
    _net, sub = _network_with_subnet(client, name=name, cidr=cidr)
    _interface(client, router, 'add', subnet_id=sub['id'])
    return router, sub


def _update(client, router, routes):
    return client.put(NET + 'routers/' + router['id'], {'router': {'routes': routes}})


def test_routes_set_shown_cleared(member_client):
    router, _sub = _routed(member_client)
    routes = [{'destination': '10.90.0.0/24', 'nexthop': '10.81.0.5'},
              {'destination': '10.91.0.0/24', 'nexthop': '10.81.0.6'}]
    updated = _update(member_client, router, routes)
    assert updated.status_int == 200, updated.text
    assert updated.json['router']['routes'] == routes
    assert member_client.get(NET + 'routers/' + router['id']).json['router'][
        'routes'] == routes
    assert _update(member_client, router, None).json['router']['routes'] == []
    aliases = [e['alias'] for e in member_client.get(NET + 'extensions').json[
        'extensions']]
    assert {'extraroute', 'extraroute-atomic'} <= set(aliases)


def test_a_nexthop_must_be_on_an_interface_subnet_and_not_the_router(member_client):
    router, sub = _routed(member_client)
    far = _update(member_client, router, [{'destination': '10.90.0.0/24',
                                           'nexthop': '10.99.0.5'}])
    assert 'the nexthop is not connected with router' in _error(far, 400,
                                                                'InvalidRoutes')
    own = _update(member_client, router, [{'destination': '10.90.0.0/24',
                                           'nexthop': '10.81.0.1'}])
    assert 'the nexthop is used by router' in _error(own, 400, 'InvalidRoutes')
    for bad in ([{'destination': '10.90.0.1/24', 'nexthop': '10.81.0.5'}],
                [{'destination': '10.90.0.0/24'}], 'x',
                [{'destination': '10.90.0.0/24', 'nexthop': 'nope'}],
                [{'destination': '10.90.0.0/24', 'nexthop': '10.81.0.5'}] * 2):
        _error(_update(member_client, router, bad), 400, 'InvalidInput')
    many = [{'destination': '10.%d.0.0/24' % (100 + i), 'nexthop': '10.81.0.5'}
            for i in range(31)]
    _error(_update(member_client, router, many), 409, 'OverQuota')
    assert member_client.get(NET + 'routers/' + router['id']).json['router'][
        'routes'] == []


def test_an_interface_a_route_goes_through_cannot_be_removed(member_client):
    router, sub = _routed(member_client)
    assert _update(member_client, router, [{'destination': '10.90.0.0/24',
                                            'nexthop': '10.81.0.5'}]).status_int == 200
    refused = member_client.put(NET + 'routers/%s/remove_router_interface'
                                % router['id'], {'subnet_id': sub['id']})
    assert ('Router interface for subnet %s on router %s cannot be deleted, as it is '
            'required by one or more routes.' % (sub['id'], router['id'])) in _error(
        refused, 409, 'RouterInterfaceInUseByRoute')
    _update(member_client, router, [])
    _interface(member_client, router, 'remove', subnet_id=sub['id'])


def test_add_and_remove_extraroutes_atomically(member_client):
    router, _sub = _routed(member_client)
    path = NET + 'routers/%s/%s_extraroutes' % (router['id'], '%s')
    first = {'destination': '10.90.0.0/24', 'nexthop': '10.81.0.5'}
    second = {'destination': '10.90.0.0/24', 'nexthop': '10.81.0.6'}
    added = member_client.put(path % 'add', {'router': {'routes': [first]}})
    assert added.status_int == 200, added.text
    assert added.json['router']['routes'] == [first]
    assert added.json['router']['id'] == router['id']
    both = member_client.put(path % 'add', {'router': {'routes': [first, second]}})
    assert both.json['router']['routes'] == [first, second]
    gone = member_client.put(path % 'remove', {'router': {'routes': [
        first, {'destination': '10.92.0.0/24', 'nexthop': '10.81.0.7'}]}})
    assert gone.json['router']['routes'] == [second]
    _error(member_client.put(path % 'add', {'router': {'routes': [
        {'destination': '10.93.0.0/24', 'nexthop': '10.55.0.1'}]}}), 400,
        'InvalidRoutes')
    assert 'give {"router"' in _error(member_client.put(path % 'add', {'router': {}}),
                                       400, 'HTTPBadRequest')
    _error(member_client.put(NET + 'routers/nope/add_extraroutes',
                             {'router': {'routes': [first]}}), 404, 'RouterNotFound')
