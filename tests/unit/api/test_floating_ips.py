"""Neutron's external networks, routers' external gateways and floating IPs: the API
and its records (the NAT is the routers' datapath, elsewhere)."""

import pytest

from tests.unit.api.conftest import Client
from tests.unit.api.test_network_interop import _interface
from tests.unit.api.test_network_interop import _router
from tests.unit.api.test_network_service import _create
from tests.unit.api.test_network_service import _error
from tests.unit.api.test_network_service import _network_with_subnet
from tests.unit.api.test_network_service import NET


@pytest.fixture
def public(admin_client):
    """An external network (the admin's) with a subnet."""
    net = _create(admin_client, 'network', {'name': 'public', 'router:external': True})
    sub = _create(admin_client, 'subnet', {'network_id': net['id'], 'ip_version': 4,
                                           'cidr': '172.24.4.0/24', 'name': 'pub-s'})
    return net, sub


@pytest.fixture
def inside(member_client, public):
    """A member's router with its gateway on the public network, an interface on a
    subnet of the member's, and a port there: (router, subnet, port)."""
    router = _router(member_client, external_gateway_info={
        'network_id': public[0]['id']})
    net, sub = _network_with_subnet(member_client, name='inside', cidr='10.82.0.0/24')
    _interface(member_client, router, 'add', subnet_id=sub['id'])
    port = _create(member_client, 'port', {'network_id': net['id']})
    return router, sub, port


def test_an_external_network_is_seen_by_all_and_made_by_admins(
        member_client, admin_client, public):
    net, sub = public
    assert net['router:external'] is True
    listed = member_client.get(NET + 'networks?router:external=True').json['networks']
    assert [n['id'] for n in listed] == [net['id']]
    assert member_client.get(NET + 'networks?router:external=False').json[
        'networks'] == []
    assert member_client.get(NET + 'subnets/' + sub['id']).json['subnet'][
        'router:external'] is True
    _error(member_client.put(NET + 'networks/' + net['id'], {'network': {
        'router:external': False}}), 403, 'HTTPForbidden')
    assert 'not allowed to create an interface on external network' in _error(
        member_client.post(NET + 'ports', {'port': {'network_id': net['id']}}),
        403, 'HTTPForbidden')
    aliases = {e['alias'] for e in member_client.get(NET + 'extensions').json[
        'extensions']}
    assert {'external-net', 'ext-gw-mode', 'subnet-external-network'} <= aliases


def test_a_gateway_set_shown_and_cleared(member_client, admin_client, public):
    net, sub = public
    router = _router(member_client, external_gateway_info={'network_id': net['id']})
    gateway = router['external_gateway_info']
    assert (gateway['network_id'], gateway['enable_snat']) == (net['id'], True)
    [fixed] = gateway['external_fixed_ips']
    assert fixed['subnet_id'] == sub['id'] and fixed['ip_address'].startswith('172.24.4.')
    ports = admin_client.get(NET + 'ports?device_id=' + router['id']).json['ports']
    assert [(p['device_owner'], p['fixed_ips'][0]['ip_address']) for p in ports] == [
        ('network:router_gateway', fixed['ip_address'])]
    assert member_client.get(NET + 'ports').json['ports'] == []  # no project's
    _error(admin_client.delete(NET + 'ports/' + ports[0]['id']), 409, 'PortInUse')
    _error(admin_client.put(NET + 'networks/' + net['id'], {'network': {
        'router:external': False}}), 409, 'ExternalNetworkInUse')
    cleared = member_client.put(NET + 'routers/' + router['id'], {'router': {
        'external_gateway_info': {}}}).json['router']
    assert cleared['external_gateway_info'] is None
    assert admin_client.get(NET + 'ports?device_id=' + router['id']).json[
        'ports'] == []
    _error(member_client.put(NET + 'routers/' + router['id'], {'router': {
        'external_gateway_info': {'network_id': net['id'], 'enable_snat': False}}}),
        403, 'HTTPForbidden')  # Neutron's: admins only
    chosen = admin_client.put(NET + 'routers/' + router['id'], {'router': {
        'external_gateway_info': {'network_id': net['id'], 'enable_snat': False,
                                  'external_fixed_ips': [
                                      {'ip_address': '172.24.4.50'}]}}}).json['router']
    assert chosen['external_gateway_info'] == {
        'network_id': net['id'], 'enable_snat': False,
        'external_fixed_ips': [{'subnet_id': sub['id'], 'ip_address': '172.24.4.50'}]}
    assert 'gateway IP' in _error(admin_client.put(
        NET + 'routers/' + router['id'], {'router': {'external_gateway_info': {
            'network_id': net['id'], 'external_fixed_ips': [
                {'ip_address': '172.24.4.1'}]}}}), 400, 'InvalidInput')
    assert member_client.delete(NET + 'routers/' + router['id']).status_int == 204
    assert admin_client.get(NET + 'ports?network_id=' + net['id']).json['ports'] == []


def test_a_gateway_network_must_be_external(member_client, public):
    router = _router(member_client)
    own, _sub = _network_with_subnet(member_client, name='own', cidr='10.83.0.0/24')
    assert 'is not an external network' in _error(member_client.put(
        NET + 'routers/' + router['id'], {'router': {'external_gateway_info': {
            'network_id': own['id']}}}), 400, 'InvalidInput')
    _error(member_client.put(NET + 'routers/' + router['id'], {'router': {
        'external_gateway_info': {'network_id': router['id']}}}), 404,
        'NetworkNotFound')


def test_floating_ip_lifecycle(member_client, admin_client, public, inside):
    net, sub = public
    router, inner, port = inside
    created = member_client.post(NET + 'floatingips', {'floatingip': {
        'floating_network_id': net['id'], 'port_id': port['id']}})
    assert created.status_int == 201, created.text
    fip = created.json['floatingip']
    assert (fip['port_id'], fip['router_id'], fip['fixed_ip_address'],
            fip['floating_network_id'], fip['status']) == (
        port['id'], router['id'], port['fixed_ips'][0]['ip_address'], net['id'],
        'ACTIVE')
    assert fip['floating_ip_address'].startswith('172.24.4.')
    assert fip['project_id'] == port['project_id'] == fip['tenant_id']
    shown = member_client.get(NET + 'floatingips/' + fip['id']).json['floatingip']
    assert shown['floating_ip_address'] == fip['floating_ip_address']
    assert [f['id'] for f in member_client.get(NET + 'floatingips').json[
        'floatingips']] == [fip['id']]
    assert 'already has a floating IP' in _error(member_client.post(
        NET + 'floatingips', {'floatingip': {'floating_network_id': net['id'],
                                            'port_id': port['id']}}),
        409, 'FloatingIPPortAlreadyAssociated')
    # The interface and the gateway it goes through stay while it is associated.
    _error(member_client.put(NET + 'routers/%s/remove_router_interface'
                             % router['id'], {'subnet_id': inner['id']}),
           409, 'RouterInterfaceInUseByFloatingIP')
    _error(member_client.put(NET + 'routers/' + router['id'], {'router': {
        'external_gateway_info': None}}), 409,
        'RouterExternalGatewayInUseByFloatingIp')
    off = member_client.put(NET + 'floatingips/' + fip['id'], {'floatingip': {
        'port_id': None}}).json['floatingip']
    assert (off['port_id'], off['fixed_ip_address'], off['router_id'],
            off['status']) == (None, None, None, 'DOWN')
    again = member_client.put(NET + 'floatingips/' + fip['id'], {'floatingip': {
        'port_id': port['id'], 'description': 'web'}}).json['floatingip']
    assert (again['port_id'], again['description']) == (port['id'], 'web')
    # A port that goes leaves its floating IP associated with nothing.
    assert member_client.delete(NET + 'ports/' + port['id']).status_int == 204
    left = member_client.get(NET + 'floatingips/' + fip['id']).json['floatingip']
    assert (left['port_id'], left['router_id']) == (None, None)
    assert member_client.delete(NET + 'floatingips/' + fip['id']).status_int == 204
    _error(member_client.get(NET + 'floatingips/' + fip['id']), 404,
           'FloatingIPNotFound')
    assert admin_client.get(NET + 'ports?device_owner=network:floatingip').json[
        'ports'] == []


def test_floating_ip_refusals(member_client, admin_client, public, inside, app,
                              make_token):
    net, sub = public
    router, inner, port = inside
    own, _own_sub = _network_with_subnet(member_client, name='own',
                                         cidr='10.84.0.0/24')

    def create(**body):
        return member_client.post(NET + 'floatingips', {'floatingip': body})
    assert 'is not a valid external network' in _error(
        create(floating_network_id=own['id']), 400, 'InvalidInput')
    _error(create(floating_network_id='nope'), 404, 'NetworkNotFound')
    _error(create(), 400, 'HTTPBadRequest')
    _error(create(floating_network_id=net['id'], port_id='nope'), 404, 'PortNotFound')
    assert 'does not have fixed ip 10.82.0.99' in _error(create(
        floating_network_id=net['id'], port_id=port['id'],
        fixed_ip_address='10.82.0.99'), 400, 'InvalidInput')
    assert 'without a port_id' in _error(create(
        floating_network_id=net['id'], fixed_ip_address='10.82.0.9'), 400,
        'InvalidInput')
    stray = _create(member_client, 'port', {'network_id': own['id']})
    assert 'is not reachable from subnet' in _error(create(
        floating_network_id=net['id'], port_id=stray['id']), 404,
        'ExternalGatewayForFloatingIPNotFound')
    _error(create(floating_network_id=net['id'], floating_ip_address='172.24.4.77'),
           403, 'HTTPForbidden')  # Neutron's: admins only
    other = Client(app, make_token('eve', 'member', 'other'))
    _error(other.post(NET + 'floatingips', {'floatingip': {
        'floating_network_id': net['id'], 'port_id': port['id']}}), 404, 'PortNotFound')
    member_client.put(NET + 'quotas/' + port['project_id'], {'quota': {}})
    assert admin_client.put(NET + 'quotas/' + port['project_id'], {
        'quota': {'floatingip': 1}}).status_int == 200
    assert create(floating_network_id=net['id']).status_int == 201
    _error(create(floating_network_id=net['id']), 409, 'OverQuota')
    assert member_client.get(NET + 'quotas/' + port['project_id']).json['quota'][
        'floatingip'] == 1
