"""Neutron interop: ports without a subnet, bulk creates, subnet host routes and
updates, Neutron's names, security groups and their rules."""

import pytest

from tests.unit.api.test_network_service import _create
from tests.unit.api.test_network_service import _error
from tests.unit.api.test_network_service import _network_with_subnet
from tests.unit.api.test_network_service import NET
from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture


def test_a_port_on_a_network_without_a_subnet_has_no_fixed_ip(member_client):
    net = _create(member_client, 'network', {'name': 'bare'})
    port = _create(member_client, 'port', {'network_id': net['id']})
    assert port['fixed_ips'] == [] and port['mac_address'].startswith('fa:16:3e:')
    assert port['admin_state_up'] is True
    down = member_client.put(NET + 'ports/' + port['id'], {'port': {
        'name': 'New_Port', 'admin_state_up': False}}).json['port']
    assert (down['name'], down['admin_state_up'], down['status']) == (
        'New_Port', False, 'DOWN')
    refused = member_client.post(NET + 'ports', {'port': {
        'network_id': net['id'], 'fixed_ips': [{'ip_address': '10.0.0.5'}]}})
    assert 'no subnet' in _error(refused, 400, 'InvalidInput')
    assert member_client.delete(NET + 'ports/' + port['id']).status_int == 204


def test_bulk_creates_make_all_or_nothing(member_client):
    nets = member_client.post(NET + 'networks', {'networks': [
        {'name': 'b1'}, {'name': 'b2'}]})
    assert nets.status_int == 201, nets.text
    first, second = nets.json['networks']
    ports = member_client.post(NET + 'ports', {'ports': [
        {'network_id': first['id'], 'name': 'p1'},
        {'network_id': second['id'], 'admin_state_up': False}]})
    assert ports.status_int == 201, ports.text
    assert [p['network_id'] for p in ports.json['ports']] == [first['id'], second['id']]
    before = len(member_client.get(NET + 'ports').json['ports'])
    refused = member_client.post(NET + 'ports', {'ports': [
        {'network_id': first['id']}, {'network_id': 'no-such-network'}]})
    assert refused.status_int == 404
    assert len(member_client.get(NET + 'ports').json['ports']) == before
    subnets = member_client.post(NET + 'subnets', {'subnets': [
        {'network_id': first['id'], 'cidr': '10.71.0.0/24', 'ip_version': 4,
         'name': 's1'},
        {'network_id': first['id'], 'cidr': '10.71.0.0/25', 'ip_version': 4}]})
    # The second overlaps the first on the same network: neither made.
    assert subnets.status_int == 400, subnets.text
    assert member_client.get(NET + 'subnets').json['subnets'] == []
    dup = member_client.post(NET + 'networks', {'networks': [{'name': 'b3'},
                                                             {'name': 'b1'}]})
    assert dup.status_int == 409
    names = {n['name'] for n in member_client.get(NET + 'networks').json['networks']}
    assert names == {'b1', 'b2'}


def test_subnet_host_routes_dns_and_updates(member_client):
    routes = [{'destination': '10.20.0.0/32', 'nexthop': '10.100.1.1'}]
    net, sub = _network_with_subnet(
        member_client, cidr='10.100.0.0/28', gateway_ip='10.100.0.1',
        allocation_pools=[{'start': '10.100.0.3', 'end': '10.100.0.7'}],
        host_routes=routes, dns_nameservers=['8.8.4.4', '8.8.8.8'])
    assert sub['host_routes'] == routes
    changed = member_client.put(NET + 'subnets/' + sub['id'], {'subnet': {
        'name': 'New_subnet', 'gateway_ip': '10.100.0.2', 'enable_dhcp': True,
        'dns_nameservers': ['7.8.8.8', '7.8.4.4'],
        'host_routes': [{'destination': '10.20.0.0/32', 'nexthop': '10.100.1.2'}]}})
    assert changed.status_int == 200, changed.text
    body = changed.json['subnet']
    assert (body['name'], body['gateway_ip'], body['dns_nameservers'],
            body['host_routes'][0]['nexthop'], body['allocation_pools']) == (
        'New_subnet', '10.100.0.2', ['7.8.8.8', '7.8.4.4'], '10.100.1.2',
        [{'start': '10.100.0.3', 'end': '10.100.0.7'}])
    bad = member_client.put(NET + 'subnets/' + sub['id'], {'subnet': {
        'host_routes': [{'destination': 'nowhere', 'nexthop': '10.100.1.2'}]}})
    assert 'destination' in _error(bad, 400, 'InvalidInput')
    _create(member_client, 'port', {'network_id': net['id']})
    busy = member_client.put(NET + 'subnets/' + sub['id'], {'subnet': {
        'gateway_ip': '10.100.0.1'}})
    _error(busy, 409, 'SubnetInUse')
    fixed = member_client.put(NET + 'subnets/' + sub['id'], {'subnet': {
        'cidr': '10.101.0.0/24'}})
    assert 'cannot change' in _error(fixed, 400, 'HTTPBadRequest')


def test_names_are_neutrons_any_text(member_client):
    net = _create(member_client, 'network', {'name': 'my net / ünï (1)'})
    assert net['name'] == 'my net / ünï (1)'
    long = member_client.post(NET + 'networks', {'network': {'name': 'x' * 256}})
    _error(long, 400, 'InvalidInput')


def _group(client, name='web'):
    response = client.post(NET + 'security-groups', {'security_group': {'name': name}})
    assert response.status_int == 201, response.text
    return response.json['security_group']


def _rule(client, group, **rule):
    return client.post(NET + 'security-group-rules', {'security_group_rule': dict(
        {'security_group_id': group['id'], 'direction': 'ingress'}, **rule)})


def test_the_default_group_and_a_group_lifecycle(member_client):
    listed = member_client.get(NET + 'security-groups').json['security_groups']
    default, = listed
    assert default['name'] == 'default'
    assert sorted((r['direction'], r['ethertype'], bool(r['remote_group_id']))
                  for r in default['security_group_rules']) == [
        ('egress', 'IPv4', False), ('egress', 'IPv6', False),
        ('ingress', 'IPv4', True), ('ingress', 'IPv6', True)]
    _error(member_client.post(NET + 'security-groups', {'security_group': {
        'name': 'default'}}), 409, 'SecurityGroupDefaultAlreadyExists')
    group = _group(member_client)
    assert [r['direction'] for r in group['security_group_rules']] == ['egress'] * 2
    renamed = member_client.put(NET + 'security-groups/' + group['id'], {
        'security_group': {'name': 'web2', 'description': 'd'}}).json['security_group']
    assert (renamed['name'], renamed['description']) == ('web2', 'd')
    assert member_client.put(NET + 'security-groups/' + group['id'], {
        'security_group': {'name': 'default'}}).status_int == 409
    _error(member_client.delete(NET + 'security-groups/' + default['id']), 409,
           'SecurityGroupInUse')
    assert member_client.delete(NET + 'security-groups/' + group['id']).status_int == 204
    _error(member_client.get(NET + 'security-groups/' + group['id']), 404,
           'SecurityGroupNotFound')
    exts = [e['alias'] for e in member_client.get(NET + 'extensions').json['extensions']]
    assert 'security-group' in exts


def test_ports_carry_groups_which_are_then_in_use(member_client):
    net, _sub = _network_with_subnet(member_client, cidr='10.72.0.0/24')
    group = _group(member_client)
    port = _create(member_client, 'port', {'network_id': net['id']})
    default = [g for g in member_client.get(NET + 'security-groups').json[
        'security_groups'] if g['name'] == 'default'][0]
    assert port['security_groups'] == [default['id']]
    chosen = _create(member_client, 'port', {'network_id': net['id'],
                                             'security_groups': [group['id']]})
    assert chosen['security_groups'] == [group['id']]
    _error(member_client.delete(NET + 'security-groups/' + group['id']), 409,
           'SecurityGroupInUse')
    moved = member_client.put(NET + 'ports/' + chosen['id'], {'port': {
        'security_groups': []}}).json['port']
    assert moved['security_groups'] == []
    assert member_client.delete(NET + 'security-groups/' + group['id']).status_int == 204
    _error(member_client.post(NET + 'ports', {'port': {
        'network_id': net['id'], 'security_groups': ['nope']}}), 404,
        'SecurityGroupNotFound')


def test_rules_as_neutron_records_them(member_client):
    group, other = _group(member_client), _group(member_client, 'other')
    made = _rule(member_client, group, protocol='tcp', port_range_min=76,
                 port_range_max=77, remote_ip_prefix='10.0.0.5/24')
    assert made.status_int == 201, made.text
    rule = made.json['security_group_rule']
    assert (rule['ethertype'], rule['protocol'], rule['remote_ip_prefix'],
            rule['normalized_cidr']) == ('IPv4', 'tcp', '10.0.0.5/24', '10.0.0.0/24')
    _error(_rule(member_client, group, protocol='tcp', port_range_min=76,
                 port_range_max=77, remote_ip_prefix='10.0.0.0/24'),
           409, 'SecurityGroupRuleExists')
    number = _rule(member_client, group, protocol=17).json['security_group_rule']
    assert number['protocol'] == '17'
    icmp = _rule(member_client, group, protocol='icmp', port_range_min=8,
                 port_range_max=0).json['security_group_rule']
    assert (icmp['port_range_min'], icmp['port_range_max']) == (8, 0)
    remote = _rule(member_client, group, protocol='udp', port_range_min=50,
                   port_range_max=55, remote_group_id=other['id'])
    assert remote.json['security_group_rule']['remote_group_id'] == other['id']
    shown = member_client.get(NET + 'security-group-rules/' + rule['id'])
    assert shown.json['security_group_rule']['id'] == rule['id']
    assert rule['id'] in [r['id'] for r in member_client.get(
        NET + 'security-group-rules').json['security_group_rules']]
    assert member_client.delete(NET + 'security-group-rules/'
                                + rule['id']).status_int == 204
    _error(member_client.get(NET + 'security-group-rules/' + rule['id']), 404,
           'SecurityGroupRuleNotFound')


@pytest.mark.parametrize('rule,words', [
    ({'protocol': 'bad_protocol_name'}, 'protocol bad_protocol_name not supported'),
    ({'ethertype': 'bad'}, 'ethertype'),
    ({'direction': 'sideways'}, 'direction'),
    ({'protocol': 'tcp', 'remote_ip_prefix': '192.168.1./24'}, 'not a valid IP'),
    ({'protocol': 'tcp', 'remote_ip_prefix': '256'}, 'not a valid IP'),
    ({'ethertype': 'IPv6', 'remote_ip_prefix': '10.0.0.0/8'},
     'Conflicting value ethertype'),
    ({'protocol': 'tcp', 'port_range_min': -16, 'port_range_max': 80},
     'Invalid value for port -16'),
    ({'protocol': 'tcp', 'port_range_min': 80, 'port_range_max': 79},
     'port_range_min must be <= port_range_max'),
    ({'protocol': 'tcp', 'port_range_min': 80, 'port_range_max': 65536},
     'Invalid value for port 65536'),
    ({'protocol': 'tcp', 'port_range_max': 6},
     'port_range_min must be <= port_range_max'),
    ({'protocol': 'icmp', 'port_range_min': 1, 'port_range_max': 256},
     'Invalid value for ICMP code'),
    ({'protocol': 'icmp', 'port_range_max': 6}, 'ICMP type (port-range-min) is missing'),
    ({'protocol': 'icmp', 'port_range_min': 300, 'port_range_max': 1},
     'Invalid value for ICMP type'),
    ({'port_range_min': 1, 'port_range_max': 2}, 'Must also specify protocol'),
    ({'remote_ip_prefix': '10.0.0.0/8', 'remote_group_id': 'x'},
     'Only remote_ip_prefix or remote_group_id'),
])
def test_bad_rules_are_400_in_neutrons_words(member_client, rule, words):
    group = _group(member_client)
    response = _rule(member_client, group, **rule)
    assert response.status_int == 400, response.text
    assert words in response.json['NeutronError']['message']


def test_rules_of_unknown_groups_are_404(member_client):
    group = _group(member_client)
    _error(_rule(member_client, group, remote_group_id='nope'), 404,
           'SecurityGroupNotFound')
    _error(_rule(member_client, {'id': 'nope'}), 404, 'SecurityGroupNotFound')
    _error(member_client.delete(NET + 'security-groups/nope'), 404,
           'SecurityGroupNotFound')


def test_security_group_quotas(member_client, admin_client):
    group = _group(member_client)
    quota = admin_client.get(NET + 'quotas/' + group['project_id'] + '/details')
    used = quota.json['quota']
    assert used['security_group']['used'] == 2  # the default and this one
    assert used['security_group_rule']['used'] == 6
    assert admin_client.put(NET + 'quotas/' + group['project_id'], {
        'quota': {'security_group': 2}}).status_int == 200
    _error(member_client.post(NET + 'security-groups', {'security_group': {
        'name': 'third'}}), 409, 'OverQuota')


def _router(client, **body):
    response = client.post(NET + 'routers', {'router': dict(
        {'name': 'r1', 'external_gateway_info': {}, 'admin_state_up': False}, **body)})
    assert response.status_int == 201, response.text
    return response.json['router']


def _interface(client, router, action, status=200, **body):
    response = client.put(NET + 'routers/%s/%s_router_interface' % (router['id'], action),
                          body)
    assert response.status_int == status, response.text
    return response.json


def test_router_lifecycle_and_interfaces(member_client):
    router = _router(member_client)
    assert (router['admin_state_up'], router['external_gateway_info']) == (False, None)
    up = member_client.put(NET + 'routers/' + router['id'], {'router': {
        'admin_state_up': True, 'name': 'r2'}}).json['router']
    assert (up['admin_state_up'], up['name']) == (True, 'r2')
    net, sub = _network_with_subnet(member_client, cidr='10.73.0.0/24')
    added = _interface(member_client, router, 'add', subnet_id=sub['id'])
    assert (added['subnet_id'], added['network_id']) == (sub['id'], net['id'])
    port = member_client.get(NET + 'ports/' + added['port_id']).json['port']
    assert (port['device_id'], port['device_owner'], port['status'],
            port['fixed_ips'][0]['ip_address']) == (
        router['id'], 'network:router_interface', 'ACTIVE', '10.73.0.1')
    assert [p['id'] for p in member_client.get(
        NET + 'ports?device_id=' + router['id']).json['ports']] == [added['port_id']]
    assert 'already has a port' in _error(member_client.put(
        NET + 'routers/%s/add_router_interface' % router['id'], {'subnet_id': sub['id']}),
        400, 'InvalidInput')
    _error(member_client.delete(NET + 'ports/' + added['port_id']), 409, 'PortInUse')
    _error(member_client.delete(NET + 'routers/' + router['id']), 409, 'RouterInUse')
    _interface(member_client, router, 'remove', subnet_id=sub['id'])
    assert member_client.get(NET + 'ports/' + added['port_id']).status_int == 404
    user_port = _create(member_client, 'port', {'network_id': net['id']})
    by_port = _interface(member_client, router, 'add', port_id=user_port['id'])
    assert by_port['port_id'] == user_port['id']
    _interface(member_client, router, 'remove', port_id=user_port['id'])
    _error(member_client.put(NET + 'routers/%s/remove_router_interface' % router['id'],
                             {'port_id': user_port['id']}), 404,
           'RouterInterfaceNotFound')
    assert member_client.delete(NET + 'routers/' + router['id']).status_int == 204
    _error(member_client.get(NET + 'routers/' + router['id']), 404, 'RouterNotFound')


def test_router_refusals(member_client):
    router = _router(member_client)
    net, sub = _network_with_subnet(member_client, cidr='10.74.0.0/24')
    _error(member_client.put(NET + 'routers/' + router['id'], {'router': {
        'external_gateway_info': {'network_id': 'nope'}}}), 404, 'NetworkNotFound')
    _error(member_client.put(NET + 'routers/' + router['id'], {'router': {
        'external_gateway_info': {'network_id': net['id']}}}), 400, 'InvalidInput')
    _error(member_client.put(NET + 'routers/%s/add_router_interface' % router['id'],
                             {}), 400, 'InvalidInput')
    _error(member_client.put(NET + 'routers/nope', {'router': {'name': 'x'}}), 404,
           'RouterNotFound')
    _error(member_client.delete(NET + 'routers/nope'), 404, 'RouterNotFound')
    no_gateway, sub2 = _network_with_subnet(member_client, name='n2',
                                            cidr='10.75.0.0/24', gateway_ip=None)
    assert 'gateway IP' in _error(member_client.put(
        NET + 'routers/%s/add_router_interface' % router['id'],
        {'subnet_id': sub2['id']}), 400, 'InvalidInput')
    aliases = [e['alias'] for e in member_client.get(NET + 'extensions').json[
        'extensions']]
    assert 'router' in aliases


def test_a_servers_security_groups_through_novas_actions(application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    token = cloud['token']

    def groups():
        found = call(application, 'GET', '/compute/v2.1/servers/%s/os-security-groups'
                     % server_id, token=token)
        assert found.status_int == 200, found.text
        return found.json['security_groups']

    def act(body, status=202):
        response = call(application, 'POST', '/compute/v2.1/servers/%s/action'
                        % server_id, body, token)
        assert response.status_int == status, response.text
        return response

    default, = groups()  # a boot's port carries its project's default group
    assert default['name'] == 'default'
    assert sorted(r['group']['name'] for r in default['rules']) == ['default', 'default']
    web = call(application, 'POST', NET + 'security-groups', {'security_group': {
        'name': 'web'}}, token).json['security_group']
    call(application, 'POST', NET + 'security-group-rules', {'security_group_rule': {
        'security_group_id': web['id'], 'direction': 'ingress', 'protocol': 'tcp',
        'port_range_min': 22, 'port_range_max': 22}}, token)
    act({'addSecurityGroup': {'name': 'web'}})
    shown = {g['name']: g for g in groups()}
    assert set(shown) == {'default', 'web'}
    assert [(r['ip_protocol'], r['from_port'], r['to_port'], r['ip_range'])
            for r in shown['web']['rules']] == [('tcp', 22, 22, {'cidr': '0.0.0.0/0'})]
    act({'addSecurityGroup': {'name': 'web'}}, 400)
    act({'addSecurityGroup': {'name': 'nope'}}, 404)
    act({'removeSecurityGroup': {'name': web['id']}})
    act({'removeSecurityGroup': {'name': 'web'}}, 400)
    act({'removeSecurityGroup': {'name': 'default'}})
    assert groups() == []
    act({'addSecurityGroup': {}}, 400)


def test_networks_may_share_a_cidr_and_a_router_refuses_joining_both(member_client):
    """Each network's DHCP in a namespace of its own: a CIDR may repeat across
    networks; a router joining both could not route, so Neutron's 400 is there."""
    router = member_client.post(NET + 'routers', {'router': {'name': 'r'}}).json['router']
    subnets = [_network_with_subnet(member_client, name=name, cidr='10.76.0.0/24')[1]
               for name in ('same-a', 'same-b')]
    assert member_client.put(NET + 'routers/%s/add_router_interface' % router['id'],
                             {'subnet_id': subnets[0]['id']}).status_int == 200
    assert 'overlaps with cidr 10.76.0.0/24' in _error(member_client.put(
        NET + 'routers/%s/add_router_interface' % router['id'],
        {'subnet_id': subnets[1]['id']}), 400, 'InvalidInput')


def test_a_port_takes_the_subnet_its_fixed_ips_name_and_moves_to_another(member_client):
    net, first = _network_with_subnet(member_client, name='two', cidr='10.77.0.0/28')
    second = member_client.post(NET + 'subnets', {'subnet': {
        'network_id': net['id'], 'cidr': '10.78.0.0/28', 'ip_version': 4}}).json[
        'subnet']
    port = member_client.post(NET + 'ports', {'port': {
        'network_id': net['id'], 'fixed_ips': [{'subnet_id': second['id']}]}}).json[
        'port']
    assert port['fixed_ips'] == [{'subnet_id': second['id'],
                                  'ip_address': '10.78.0.2'}]
    plain = member_client.post(NET + 'ports', {'port': {'network_id': net['id']}}).json[
        'port']
    assert plain['fixed_ips'][0]['subnet_id'] == first['id']
    moved = member_client.put(NET + 'ports/' + port['id'], {'port': {
        'fixed_ips': [{'subnet_id': first['id']}]}}).json['port']
    assert moved['fixed_ips'] == [{'subnet_id': first['id'], 'ip_address': '10.77.0.3'}]
    assert moved['mac_address'] == port['mac_address']
    other, _sub = _network_with_subnet(member_client, name='other', cidr='10.79.0.0/28')
    _error(member_client.post(NET + 'ports', {'port': {
        'network_id': other['id'], 'fixed_ips': [{'subnet_id': second['id']}]}}),
        400, 'InvalidInput')
