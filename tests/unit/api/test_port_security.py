"""Neutron's port-security and allowed-address-pairs on ports, and what a host is
told to filter when groups, rules and ports change."""

from provisioner.engine import sg_sync
from provisioner.network import port_filters

from tests.unit.api.test_network_service import _create
from tests.unit.api.test_network_service import _error
from tests.unit.api.test_network_service import _network_with_subnet
from tests.unit.api.test_network_service import NET
from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture


def _port(client, port_id):
    return client.get(NET + 'ports/' + port_id).json['port']


def _update(client, port_id, **changes):
    return client.put(NET + 'ports/' + port_id, {'port': changes})


def test_ports_are_secured_by_default_and_list_the_extensions(member_client):
    net, _sub = _network_with_subnet(member_client, cidr='10.73.0.0/24')
    port = _create(member_client, 'port', {'network_id': net['id']})
    assert (port['port_security_enabled'], port['allowed_address_pairs']) == (True, [])
    assert len(port['security_groups']) == 1  # the project's default group
    exts = {e['alias'] for e in member_client.get(NET + 'extensions').json['extensions']}
    assert {'port-security', 'allowed-address-pairs'} <= exts


def test_a_port_without_port_security_carries_no_group_nor_pairs(member_client):
    net, _sub = _network_with_subnet(member_client, cidr='10.74.0.0/24')
    open_port = _create(member_client, 'port', {'network_id': net['id'],
                                                'port_security_enabled': False})
    assert (open_port['port_security_enabled'], open_port['security_groups']) == (
        False, [])
    group = member_client.post(NET + 'security-groups', {'security_group': {
        'name': 'g'}}).json['security_group']
    _error(member_client.post(NET + 'ports', {'port': {
        'network_id': net['id'], 'port_security_enabled': False,
        'security_groups': [group['id']]}}), 400,
        'PortSecurityAndIPRequiredForSecurityGroups')
    _error(member_client.post(NET + 'ports', {'port': {
        'network_id': net['id'], 'port_security_enabled': False,
        'allowed_address_pairs': [{'ip_address': '10.74.0.200'}]}}), 409,
        'AddressPairAndPortSecurityRequired')
    _error(_update(member_client, open_port['id'], security_groups=[group['id']]),
           400, 'PortSecurityAndIPRequiredForSecurityGroups')
    _error(member_client.post(NET + 'ports', {'port': {
        'network_id': net['id'], 'port_security_enabled': 'no'}}), 400, 'HTTPBadRequest')


def test_disabling_port_security_needs_the_groups_gone(member_client):
    net, _sub = _network_with_subnet(member_client, cidr='10.75.0.0/24')
    port = _create(member_client, 'port', {'network_id': net['id']})
    _error(_update(member_client, port['id'], port_security_enabled=False), 409,
           'PortSecurityPortHasSecurityGroup')
    assert _port(member_client, port['id'])['port_security_enabled'] is True
    opened = _update(member_client, port['id'], port_security_enabled=False,
                     security_groups=[])
    assert opened.status_int == 200, opened.text
    assert (opened.json['port']['port_security_enabled'],
            opened.json['port']['security_groups']) == (False, [])
    closed = _update(member_client, port['id'], port_security_enabled=True)
    assert closed.json['port']['port_security_enabled'] is True


def test_allowed_address_pairs(member_client):
    net, _sub = _network_with_subnet(member_client, cidr='10.76.0.0/24')
    port = _create(member_client, 'port', {'network_id': net['id'],
                                           'allowed_address_pairs': [
                                               {'ip_address': '10.76.0.200'},
                                               {'ip_address': '10.76.1.0/24',
                                                'mac_address': 'FA:16:3E:AA:BB:CC'}]})
    assert port['allowed_address_pairs'] == [
        {'ip_address': '10.76.0.200', 'mac_address': port['mac_address']},
        {'ip_address': '10.76.1.0/24', 'mac_address': 'fa:16:3e:aa:bb:cc'}]
    for bad in ([{'ip_address': 'nope'}], [{'mac_address': 'fa:16:3e:aa:bb:cc'}],
                [{'ip_address': '10.76.0.9', 'mac_address': 'x'}],
                [{'ip_address': '10.76.0.9'}, {'ip_address': '10.76.0.9'}], 'a'):
        _error(_update(member_client, port['id'], allowed_address_pairs=bad), 400,
               'InvalidInput')
    cleared = _update(member_client, port['id'], allowed_address_pairs=[])
    assert cleared.json['port']['allowed_address_pairs'] == []
    _error(_update(member_client, port['id'], port_security_enabled=False,
                   security_groups=[], allowed_address_pairs=[
                       {'ip_address': '10.76.0.9'}]), 409,
           'AddressPairAndPortSecurityRequired')


def test_hosts_are_told_each_change_of_their_ports_filters(
        application, cloud, monkeypatch):  # noqa: F811
    pushed = []
    monkeypatch.setattr(sg_sync, '_push', lambda host, states: pushed.append(
        (host, states)))
    server_id = boot(application, cloud)
    token = cloud['token']
    ports = call(application, 'GET', NET + 'ports?device_id=' + server_id,
                 token=token).json['ports']
    port, = [p for p in ports if p['device_id'] == server_id]
    ip = port['fixed_ips'][0]['ip_address']
    host, states = pushed[-1]  # the boot: its port joined the default group
    state, = [s for s in states if s['port_id'] == port['id']]
    assert (state['mac'], state['ips'], state['port_security']) == (
        port['mac_address'], [ip], True)
    # The default group: all egress, and ingress from its members (this port).
    assert sorted((r['direction'], r['ethertype'], r['remote']) for r in
                  state['rules']) == [('egress', 'IPv4', None), ('egress', 'IPv6', None),
                                      ('ingress', 'IPv4', [ip]),
                                      ('ingress', 'IPv6', [ip])]

    web = call(application, 'POST', NET + 'security-groups', {'security_group': {
        'name': 'web'}}, token).json['security_group']
    pushed.clear()
    call(application, 'POST', '/compute/v2.1/servers/%s/action' % server_id,
         {'addSecurityGroup': {'name': 'web'}}, token)
    rule = call(application, 'POST', NET + 'security-group-rules', {
        'security_group_rule': {'security_group_id': web['id'],
                                'direction': 'ingress', 'protocol': 'tcp',
                                'port_range_min': 80, 'port_range_max': 80,
                                'remote_ip_prefix': '10.9.0.0/16'}},
        token).json['security_group_rule']
    (_h1, added), (_h2, ruled) = pushed
    assert [(r['protocol'], r['port_range_min'], r['remote']) for r in
            ruled[0]['rules'] if r['protocol']] == [('tcp', 80, ['10.9.0.0/16'])]
    assert len(added[0]['rules']) == len(ruled[0]['rules']) - 1
    pushed.clear()
    call(application, 'DELETE', NET + 'security-group-rules/' + rule['id'],
         token=token)
    call(application, 'POST', '/compute/v2.1/servers/%s/action' % server_id,
         {'removeSecurityGroup': {'name': 'web'}}, token)
    # web's two egress rules left, then web gone from the port.
    assert [len(states[0]['rules']) for _host, states in pushed] == [6, 4]
    assert port_filters.groups_of([port['id']]) == port['security_groups']

    pushed.clear()
    call(application, 'DELETE', '/compute/v2.1/servers/' + server_id, token=token)
    assert port_filters.plan(port_ids=[port['id']]) == {}  # gone with its server
