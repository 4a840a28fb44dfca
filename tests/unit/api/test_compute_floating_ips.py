"""Nova's floating IP proxies (os-floating-ips, addFloatingIp, removeFloatingIp)
over the network API's floating IPs. Flows run inline on libvirt's test:///."""

import pytest

from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture

V = '/compute/v2.1'
NET = '/network/v2.0/'


@pytest.fixture
def routed(application, cloud):  # noqa: F811
    """An external network 'public' and a router from it to the cloud's network."""
    def post(path, body, status=201):
        response = call(application, 'POST', NET + path, body, cloud['token'])
        assert response.status_int == status, response.text
        return response.json
    public = post('networks', {'network': {'name': 'public', 'router:external': True}})
    post('subnets', {'subnet': {'network_id': public['network']['id'], 'ip_version': 4,
                                'cidr': '172.24.5.0/24'}})
    router = post('routers', {'router': {'name': 'r', 'external_gateway_info': {
        'network_id': public['network']['id']}}})['router']
    subnet = call(application, 'GET', NET + 'networks/' + cloud['network'],
                  token=cloud['token']).json['network']['subnets'][0]
    assert call(application, 'PUT', NET + 'routers/%s/add_router_interface'
                % router['id'], {'subnet_id': subnet}, cloud['token']).status_int == 200
    return public['network']


def _act(application, cloud, server_id, body, version='2.43'):  # noqa: F811
    return call(application, 'POST', V + '/servers/%s/action' % server_id, body,
                cloud['token'], headers={'OpenStack-API-Version': 'compute ' + version})


def test_allocate_associate_disassociate_release(application, cloud, routed):  # noqa: F811
    server_id = boot(application, cloud)
    created = call(application, 'POST', V + '/os-floating-ips', {'pool': 'public'},
                   cloud['token'])
    assert created.status_int == 200, created.text
    fip = created.json['floating_ip']
    assert (fip['pool'], fip['instance_id'], fip['fixed_ip']) == ('public', None, None)
    assert fip['ip'].startswith('172.24.5.')
    assert _act(application, cloud, server_id,
                {'addFloatingIp': {'address': fip['ip']}}).status_int == 202
    shown = call(application, 'GET', V + '/os-floating-ips/' + fip['id'],
                 token=cloud['token']).json['floating_ip']
    assert shown['instance_id'] == server_id and shown['fixed_ip'].startswith('10.66.')
    listed = call(application, 'GET', V + '/os-floating-ips',
                  token=cloud['token']).json['floating_ips']
    assert listed == [shown]
    second = call(application, 'POST', V + '/os-floating-ips', {'pool': routed['id']},
                  cloud['token']).json['floating_ip']
    assert _act(application, cloud, server_id, {'addFloatingIp': {
        'address': second['ip']}}).status_int == 400  # one per fixed IP
    assert _act(application, cloud, server_id, {'removeFloatingIp': {
        'address': second['ip']}}).status_int == 409  # not associated with it
    assert _act(application, cloud, server_id, {'removeFloatingIp': {
        'address': fip['ip']}}).status_int == 202
    for one in (fip, second):
        assert call(application, 'DELETE', V + '/os-floating-ips/' + one['id'],
                    token=cloud['token']).status_int == 202
    assert call(application, 'GET', V + '/os-floating-ips',
                token=cloud['token']).json['floating_ips'] == []


def test_nova_s_refusals(application, cloud, routed):  # noqa: F811
    server_id = boot(application, cloud)
    assert call(application, 'POST', V + '/os-floating-ips', {'pool': 'nope'},
                cloud['token']).status_int == 404
    assert call(application, 'GET', V + '/os-floating-ips/nope',
                token=cloud['token']).status_int == 404
    assert call(application, 'DELETE', V + '/os-floating-ips/nope',
                token=cloud['token']).status_int == 404
    assert _act(application, cloud, server_id, {'addFloatingIp': {
        'address': '0.0.0.0'}}).status_int == 404
    assert _act(application, cloud, server_id, {'removeFloatingIp': {
        'address': '0.0.0.0'}}).status_int == 404
    assert _act(application, cloud, server_id, {'addFloatingIp': {
        'address': ''}}).status_int == 400
    assert _act(application, cloud, server_id, {'addFloatingIp': {
        'address': '172.24.5.9'}}, version='2.44').status_int == 404
    assert call(application, 'GET', V + '/os-floating-ips', token=cloud['token'],
                headers={'OpenStack-API-Version': 'compute 2.36'}).status_int == 404


def test_a_deleted_server_leaves_its_floating_ip_unassociated(
        application, cloud, routed):  # noqa: F811
    server_id = boot(application, cloud)
    fip = call(application, 'POST', V + '/os-floating-ips', {'pool': 'public'},
               cloud['token']).json['floating_ip']
    assert _act(application, cloud, server_id,
                {'addFloatingIp': {'address': fip['ip']}}).status_int == 202
    assert call(application, 'DELETE', V + '/servers/' + server_id,
                token=cloud['token']).status_int == 204
    shown = call(application, 'GET', NET + 'floatingips/' + fip['id'],
                 token=cloud['token']).json['floatingip']
    assert (shown['port_id'], shown['fixed_ip_address'], shown['router_id']) == (
        None, None, None)
