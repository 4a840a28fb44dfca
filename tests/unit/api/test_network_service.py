"""Network v2.0 writes: networks, their one subnet, ports, quotas; boots with ports."""

import pytest

from provisioner.db import api as db_api
from provisioner.db import models
from tests.unit.api.conftest import Client
from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture

NET = '/network/v2.0/'


def _create(client, collection, body, status=201):
    response = client.post(NET + collection + 's', {collection: body})
    assert response.status_int == status, response.text
    return response.json.get(collection) or response.json


def _error(response, status, kind):
    assert response.status_int == status, response.text
    assert response.json['NeutronError']['type'] == kind, response.json
    return response.json['NeutronError']['message']


def _network_with_subnet(client, name='n1', cidr='10.61.0.0/24', **subnet):
    net = _create(client, 'network', {'name': name, 'admin_state_up': True})
    sub = _create(client, 'subnet', dict({'network_id': net['id'], 'cidr': cidr,
                                          'ip_version': 4, 'name': name + '-s'},
                                         **subnet))
    return net, sub


def test_network_lifecycle_and_ownership(member_client, admin_client, app, make_token):
    net = _create(member_client, 'network', {'name': 'n1', 'admin_state_up': True})
    assert net['subnets'] == [] and net['shared'] is False
    assert net['project_id'] and net['project_id'] == net['tenant_id']
    renamed = member_client.put(NET + 'networks/' + net['id'],
                                {'network': {'name': 'n2'}}).json['network']
    assert renamed['name'] == 'n2'
    other = Client(app, make_token('eve', 'member', 'other'))
    assert other.get(NET + 'networks/' + net['id']).status_int == 404
    assert other.get(NET + 'networks').json['networks'] == []
    _error(other.delete(NET + 'networks/' + net['id']), 404, 'NetworkNotFound')
    _error(member_client.post(NET + 'networks', {'network': {'name': 's',
                                                             'shared': True}}),
           403, 'HTTPForbidden')
    shared = _create(admin_client, 'network', {'name': 'pub', 'shared': True})
    assert [n['name'] for n in other.get(NET + 'networks').json['networks']] == ['pub']
    _error(member_client.post(NET + 'networks', {'network': {'name': 'x',
                                                             'router:external': True}}),
           403, 'HTTPForbidden')  # Neutron's: admins only
    assert member_client.delete(NET + 'networks/' + net['id']).status_int == 204
    assert admin_client.delete(NET + 'networks/' + shared['id']).status_int == 204
    assert member_client.get(NET + 'networks').json['networks'] == []


def test_subnet_settings_and_limits(member_client):
    net, sub = _network_with_subnet(
        member_client, gateway_ip=None, enable_dhcp=False,
        allocation_pools=[{'start': '10.61.0.10', 'end': '10.61.0.20'}],
        dns_nameservers=['192.0.2.53', '198.51.100.53'])
    assert (sub['gateway_ip'], sub['enable_dhcp'], sub['allocation_pools'],
            sub['dns_nameservers']) == (None, False, [{'start': '10.61.0.10',
                                                      'end': '10.61.0.20'}],
                                        ['192.0.2.53', '198.51.100.53'])
    assert member_client.get(NET + 'networks/' + net['id']).json['network'][
        'subnets'] == [sub['id']]
    # A second subnet of the network: any range but one overlapping the first.
    second = _create(member_client, 'subnet', {
        'network_id': net['id'], 'cidr': '10.62.0.0/24', 'ip_version': 4})
    assert member_client.get(NET + 'networks/' + net['id']).json['network'][
        'subnets'] == [sub['id'], second['id']]
    overlapping = member_client.post(NET + 'subnets', {'subnet': {
        'network_id': net['id'], 'cidr': '10.61.0.128/25', 'ip_version': 4}})
    assert 'overlaps with another subnet' in _error(overlapping, 400, 'InvalidInput')
    assert member_client.delete(NET + 'subnets/' + second['id']).status_int == 204
    other = _create(member_client, 'network', {'name': 'n2'})
    for cidr, status in (('127.0.0.0/24', 400), ('10.0.0.0/8', 400),
                         ('10.63.0.0/33', 400)):
        response = member_client.post(NET + 'subnets', {'subnet': {
            'network_id': other['id'], 'cidr': cidr, 'ip_version': 4}})
        _error(response, status, 'InvalidInput')
    bad_gateway = member_client.post(NET + 'subnets', {'subnet': {
        'network_id': other['id'], 'cidr': '10.64.0.0/24', 'gateway_ip': '10.64.0.5',
        'allocation_pools': [{'start': '10.64.0.2', 'end': '10.64.0.9'}]}})
    assert 'inside the allocation pool' in _error(bad_gateway, 400, 'InvalidInput')
    assert member_client.get(NET + 'networks/' + other['id']).json['network'][
        'subnets'] == []  # nothing changed
    renamed = member_client.put(NET + 'subnets/' + sub['id'],
                                {'subnet': {'name': 'renamed'}}).json['subnet']
    assert renamed['name'] == 'renamed'
    refused = member_client.put(NET + 'subnets/' + sub['id'],
                                {'subnet': {'cidr': '10.61.0.0/25', 'name': 'x'}})
    assert 'cidr cannot change' in _error(refused, 400, 'HTTPBadRequest')
    assert member_client.delete(NET + 'subnets/' + sub['id']).status_int == 204
    assert member_client.get(NET + 'subnets').json['subnets'] == []


def test_subnet_without_gateway_or_pool(member_client):
    # `openstack subnet create --gateway none --no-dhcp`: no pool given; the host's
    # bridge (and DHCP server) takes the first address, the pool has the rest.
    net, sub = _network_with_subnet(member_client, cidr='10.65.0.0/24',
                                    gateway_ip=None, enable_dhcp=False)
    assert (sub['gateway_ip'], sub['enable_dhcp'], sub['allocation_pools']) == (
        None, False, [{'start': '10.65.0.2', 'end': '10.65.0.254'}])
    port = _create(member_client, 'port', {'network_id': net['id']})
    assert port['fixed_ips'][0]['ip_address'] == '10.65.0.2'
    taken = member_client.post(NET + 'ports', {'port': {
        'network_id': net['id'], 'fixed_ips': [{'ip_address': '10.65.0.1'}]}})
    assert 'DHCP server' in _error(taken, 400, 'InvalidInput')


def test_ports_fixed_ips_and_errors(member_client):
    net, sub = _network_with_subnet(member_client)
    port = _create(member_client, 'port', {
        'network_id': net['id'], 'name': 'p1', 'admin_state_up': True,
        'fixed_ips': [{'subnet_id': sub['id'], 'ip_address': '10.61.0.77'}]})
    assert port['fixed_ips'] == [{'subnet_id': sub['id'], 'ip_address': '10.61.0.77'}]
    assert (port['device_id'], port['status'], port['name']) == ('', 'DOWN', 'p1')
    auto = _create(member_client, 'port', {'network_id': net['id'],
                                           'mac_address': 'FA:16:3E:AA:BB:CC'})
    assert auto['fixed_ips'][0]['ip_address'] == '10.61.0.2'
    assert auto['mac_address'] == 'fa:16:3e:aa:bb:cc'
    for fixed_ip, status, kind in (('10.61.0.77', 409, 'IpAddressAlreadyAllocated'),
                                   ('10.99.0.5', 400, 'InvalidIpForSubnet'),
                                   ('10.61.0.255', 400, 'InvalidIpForSubnet'),
                                   ('10.61.0.1', 400, 'InvalidInput'),
                                   ('10.61.0.x', 400, 'InvalidInput')):
        response = member_client.post(NET + 'ports', {'port': {
            'network_id': net['id'], 'fixed_ips': [{'ip_address': fixed_ip}]}})
        assert fixed_ip in _error(response, status, kind)
    _error(member_client.post(NET + 'ports', {'port': {
        'network_id': net['id'], 'mac_address': 'fa:16:3e:aa:bb:cc'}}),
        409, 'MacAddressInUse')
    _error(member_client.post(NET + 'ports', {'port': {
        'network_id': net['id'], 'mac_address': '01:00:5e:00:00:01'}}),
        400, 'InvalidInput')
    assert len(member_client.get(NET + 'ports').json['ports']) == 2  # nothing added
    _error(member_client.delete(NET + 'subnets/' + sub['id']), 409, 'SubnetInUse')
    _error(member_client.delete(NET + 'networks/' + net['id']), 409, 'NetworkInUse')
    renamed = member_client.put(NET + 'ports/' + port['id'],
                                {'port': {'name': 'p2'}}).json['port']
    assert renamed['name'] == 'p2'
    for made in (port, auto):
        assert member_client.delete(NET + 'ports/' + made['id']).status_int == 204
    _error(member_client.delete(NET + 'ports/' + port['id']), 404, 'PortNotFound')
    assert member_client.delete(NET + 'networks/' + net['id']).status_int == 204


def test_ports_filtered_by_fixed_ip(member_client):
    # `openstack port list --fixed-ip ip-address=X` / subnet=S / ip-substring=P
    net, sub = _network_with_subnet(member_client, cidr='10.68.0.0/24')
    for ip in ('10.68.0.50', '10.68.0.51', '10.68.0.150'):
        _create(member_client, 'port', {'network_id': net['id'],
                                        'fixed_ips': [{'ip_address': ip}]})

    def ips(query):
        response = member_client.get(NET + 'ports?fields=fixed_ips&' + query)
        assert response.status_int == 200, response.text
        return sorted(p['fixed_ips'][0]['ip_address'] for p in response.json['ports'])

    assert ips('fixed_ips=ip_address%3D10.68.0.51') == ['10.68.0.51']
    assert ips('fixed_ips=ip_address%3D10.68.0.50&fixed_ips=ip_address%3D10.68.0.150') \
        == ['10.68.0.150', '10.68.0.50']
    assert ips('fixed_ips=subnet_id%3D' + sub['id']) == ['10.68.0.150', '10.68.0.50',
                                                          '10.68.0.51']
    assert ips('fixed_ips=ip_address_substr%3D0.5') == ['10.68.0.50', '10.68.0.51']
    assert ips('fixed_ips=subnet_id%3Dother&fixed_ips=ip_address%3D10.68.0.51') == []
    _error(member_client.get(NET + 'ports?fixed_ips=mac%3Dx'), 400, 'HTTPBadRequest')


def test_network_quotas_are_enforced(member_client, admin_client):
    project = _create(member_client, 'network', {'name': 'first'})['project_id']
    quota = member_client.get(NET + 'quotas/' + project).json['quota']
    assert (quota['network'], quota['subnet'], quota['port']) == (100, 100, 500)
    assert member_client.put(NET + 'quotas/' + project,
                             {'quota': {'network': 1}}).status_int == 403
    response = admin_client.put(NET + 'quotas/' + project, {'quota': {'network': 1,
                                                                      'port': 0}})
    assert response.json['quota']['network'] == 1
    message = _error(member_client.post(NET + 'networks', {'network': {'name': 'two'}}),
                     409, 'OverQuota')
    assert 'network' in message
    _error(admin_client.put(NET + 'quotas/' + project, {'quota': {'rbac_policy': 1}}),
           400, 'InvalidInput')
    details = member_client.get(NET + 'quotas/%s/details' % project).json['quota']
    assert details['network'] == {'limit': 1, 'used': 1, 'reserved': 0}
    assert admin_client.delete(NET + 'quotas/' + project).status_int == 204
    assert member_client.get(NET + 'quotas/' + project).json['quota']['network'] == 100


def test_quota_set_as_the_openstack_client_sends_it(member_client, admin_client):
    # `openstack quota set --networks N` adds check_limit (--force: force instead).
    project = _create(member_client, 'network', {'name': 'first'})['project_id']
    url = NET + 'quotas/' + project
    response = admin_client.put(url, {'quota': {'network': 3, 'check_limit': True,
                                                 'port': 4}})
    assert response.status_int == 200, response.text
    assert (response.json['quota']['network'], response.json['quota']['port']) == (3, 4)
    message = _error(admin_client.put(url, {'quota': {'network': 0,
                                                      'check_limit': True}}),
                     400, 'InvalidInput')
    assert 'Quota limit 0 for network must be greater than or equal to already used 1' \
        in message
    assert member_client.get(url).json['quota']['network'] == 3  # nothing changed
    response = admin_client.put(url, {'quota': {'network': 0, 'force': True}})
    assert response.status_int == 200 and response.json['quota']['network'] == 0
    _error(admin_client.put(url, {'quota': {'network': 5, 'check_limit': 'yes'}}),
           400, 'InvalidInput')


def _user_port(wsgi_app, ids, ip):
    response = call(wsgi_app, 'POST', NET + 'ports', {'port': {
        'network_id': ids['network'], 'fixed_ips': [{'ip_address': ip}]}},
        ids['token'])
    assert response.status_int == 201, response.text
    return response.json['port']


def _port(wsgi_app, ids, port_id):
    return call(wsgi_app, 'GET', NET + 'ports/' + port_id,
                token=ids['token']).json['port']


def test_a_boot_takes_a_users_port_and_leaves_it_on_delete(application, cloud):  # noqa: F811
    port = _user_port(application, cloud, '10.66.0.50')
    server_id = boot(application, cloud, networks=[{'port': port['id']}])
    server = call(application, 'GET', '/compute/v2.1/servers/' + server_id,
                  token=cloud['token']).json['server']
    [address] = server['addresses']['net1']
    assert (address['addr'], address['OS-EXT-IPS-MAC:mac_addr']) == (
        '10.66.0.50', port['mac_address'])
    bound = _port(application, cloud, port['id'])
    assert (bound['device_id'], bound['device_owner']) == (server_id, 'compute:nova')
    again = call(application, 'POST', '/compute/v2.1/servers', {'server': {
        'name': 'vm2', 'imageRef': cloud['image'], 'flavorRef': cloud['flavor'],
        'networks': [{'port': port['id']}]}}, cloud['token'])
    assert again.status_int == 409 and 'in use' in again.text
    response = call(application, 'DELETE', NET + 'ports/' + port['id'],
                    token=cloud['token'])
    assert response.status_int == 409 and 'PortInUse' in response.text
    assert call(application, 'DELETE', '/compute/v2.1/servers/' + server_id,
                token=cloud['token']).status_int == 204
    unbound = _port(application, cloud, port['id'])
    assert (unbound['device_id'], unbound['fixed_ips'][0]['ip_address']) == (
        '', '10.66.0.50')


def test_a_boot_with_a_fixed_ip_and_refusals(application, cloud):  # noqa: F811
    server_id = boot(application, cloud, networks=[{'uuid': cloud['network'],
                                                    'fixed_ip': '10.66.0.60'}])
    [address] = call(application, 'GET', '/compute/v2.1/servers/' + server_id,
                     token=cloud['token']).json['server']['addresses']['net1']
    assert address['addr'] == '10.66.0.60'
    with db_api.transaction() as session:
        instances_before = session.query(models.Instance).count()
    # Nova's answers: FixedIpAlreadyInUse and an IP outside the subnet are 400.
    for nic, status in (({'uuid': cloud['network'], 'fixed_ip': '10.66.0.60'}, 400),
                        ({'uuid': cloud['network'], 'fixed_ip': '10.67.0.5'}, 400),
                        ({'port': 'no-such-port'}, 400)):
        response = call(application, 'POST', '/compute/v2.1/servers', {'server': {
            'name': 'vm-x', 'imageRef': cloud['image'], 'flavorRef': cloud['flavor'],
            'networks': [nic]}}, cloud['token'])
        assert response.status_int == status, (nic, response.text)
        assert nic.get('fixed_ip', nic.get('port')) in \
            response.json['badRequest']['message']
    with db_api.transaction() as session:
        assert session.query(models.Instance).count() == instances_before
    assert call(application, 'DELETE', '/compute/v2.1/servers/' + server_id,
                token=cloud['token']).status_int == 204
    ports = call(application, 'GET', NET + 'ports', token=cloud['token']).json['ports']
    assert ports == []  # the boot's own port went with its server
    me = call(application, 'GET', '/identity/v3/auth/tokens', token=cloud['token'],
              headers={'X-Subject-Token': cloud['token']}).json['token']['project']['id']
    call(application, 'PUT', NET + 'quotas/' + me, {'quota': {'port': 0}}, cloud['token'])
    response = call(application, 'POST', '/compute/v2.1/servers', {'server': {
        'name': 'vm-q', 'imageRef': cloud['image'], 'flavorRef': cloud['flavor'],
        'networks': [{'uuid': cloud['network']}]}}, cloud['token'])
    assert response.status_int == 409 and 'port' in response.text  # a boot's port too


@pytest.mark.parametrize('body', [{'network': {}}, {'subnet': {'cidr': '10.1.0.0/24'}},
                                  {'port': {'name': 'p'}}, {'port': 'p'}])
def test_creates_without_what_they_need_are_400(member_client, body):
    # A network's name is its unique handle here (the CLI finds networks by name).
    response = member_client.post(NET + next(iter(body)) + 's', body)
    assert response.status_int == 400, response.text
    assert response.json['NeutronError']['type'] in ('HTTPBadRequest', 'InvalidInput')


# -- descriptions (networks, subnets, ports) ---------------------------------------

# Whatever a user typed is data: markup, quotes, shell and template syntax, non-ASCII,
# a newline; kept and shown verbatim (JSON-encoded).
TEXT = 'web <b>tier</b> "a" & \'b\' $(id) ${HOME} {{x}} é 漢字 🙂\nline 2'
BAD_DESCRIPTIONS = ('x' * 256, 42, True, ['a'], {'a': 'b'})


def _show(client, collection, item_id):
    response = client.get(NET + collection + 's/' + item_id)
    assert response.status_int == 200, response.text
    return response.json[collection]


def _listed(client, collection, item_id):
    [found] = [i for i in client.get(NET + collection + 's').json[collection + 's']
               if i['id'] == item_id]
    return found


def _update(client, collection, item_id, body, status=200):
    response = client.put(NET + collection + 's/' + item_id, {collection: body})
    assert response.status_int == status, response.text
    return response


def _check_descriptions(client, collection, item):
    """Set, show, list, change, clear and refuse ``collection``'s description."""
    assert item['description'] == TEXT
    assert _show(client, collection, item['id'])['description'] == TEXT
    assert _listed(client, collection, item['id'])['description'] == TEXT
    filtered = client.get(NET + collection + 's?fields=id&fields=description').json[
        collection + 's']
    assert {'id': item['id'], 'description': TEXT} in filtered
    name = item['name']
    changed = _update(client, collection, item['id'],
                      {'description': 'x' * 255}).json[collection]
    assert (changed['description'], changed['name']) == ('x' * 255, name)
    assert _show(client, collection, item['id'])['description'] == 'x' * 255
    assert _update(client, collection, item['id'],
                   {'description': TEXT}).json[collection]['description'] == TEXT
    for bad in BAD_DESCRIPTIONS:  # refused, and nothing else changes either
        response = _update(client, collection, item['id'],
                           {'description': bad, 'name': 'renamed'}, 400)
        assert 'Invalid input for description' in _error(response, 400,
                                                         'HTTPBadRequest')
        shown = _show(client, collection, item['id'])
        assert (shown['description'], shown['name']) == (TEXT, name), bad
    cleared = _update(client, collection, item['id'],
                      {'description': None}).json[collection]
    assert (cleared['description'], cleared['name']) == ('', name)
    assert _listed(client, collection, item['id'])['description'] == ''


def test_a_network_keeps_its_description(member_client):
    net = _create(member_client, 'network', {'name': 'n1', 'description': TEXT})
    _check_descriptions(member_client, 'network', net)
    plain = _create(member_client, 'network', {'name': 'n2'})
    assert plain['description'] == ''
    assert _create(member_client, 'network', {'name': 'n3', 'description': None})[
        'description'] == ''


def test_a_subnet_has_its_own_description(member_client):
    net = _create(member_client, 'network', {'name': 'n1', 'description': 'the net'})
    sub = _create(member_client, 'subnet', {'network_id': net['id'], 'name': 's1',
                                            'cidr': '10.71.0.0/24', 'ip_version': 4,
                                            'description': TEXT})
    _check_descriptions(member_client, 'subnet', sub)
    assert _show(member_client, 'network', net['id'])['description'] == 'the net'
    _update(member_client, 'network', net['id'], {'description': 'changed'})
    assert _show(member_client, 'subnet', sub['id'])['description'] == ''
    assert member_client.delete(NET + 'subnets/' + sub['id']).status_int == 204
    again = _create(member_client, 'subnet', {'network_id': net['id'],
                                              'cidr': '10.71.0.0/24'})
    assert again['description'] == ''  # the deleted subnet's went with it


def test_a_port_keeps_its_description(member_client):
    net, _sub = _network_with_subnet(member_client, cidr='10.72.0.0/24')
    port = _create(member_client, 'port', {'network_id': net['id'], 'name': 'p1',
                                           'description': TEXT})
    _check_descriptions(member_client, 'port', port)
    plain = _create(member_client, 'port', {'network_id': net['id']})
    assert plain['description'] == ''
    # A name-only update leaves the description, and the reverse.
    _update(member_client, 'port', plain['id'], {'description': 'd'})
    renamed = _update(member_client, 'port', plain['id'], {'name': 'p2'}).json['port']
    assert (renamed['name'], renamed['description']) == ('p2', 'd')


@pytest.mark.parametrize('bad', BAD_DESCRIPTIONS)
def test_a_create_with_a_bad_description_makes_nothing(member_client, bad):
    net = _create(member_client, 'network', {'name': 'n1'})
    for collection, body in (
            ('network', {'name': 'n2'}),
            ('subnet', {'network_id': net['id'], 'cidr': '10.73.0.0/24'})):
        response = member_client.post(NET + collection + 's', {collection: dict(
            body, description=bad)})
        message = _error(response, 400, 'HTTPBadRequest')
        assert 'Invalid input for description' in message
    assert [n['name'] for n in member_client.get(NET + 'networks').json[
        'networks']] == ['n1']
    assert member_client.get(NET + 'subnets').json['subnets'] == []
    _create(member_client, 'subnet', {'network_id': net['id'], 'cidr': '10.73.0.0/24'})
    response = member_client.post(NET + 'ports', {'port': {
        'network_id': net['id'], 'description': bad}})
    assert 'Invalid input for description' in _error(response, 400, 'HTTPBadRequest')
    assert member_client.get(NET + 'ports').json['ports'] == []


def test_a_description_over_the_limit_says_so(member_client):
    response = member_client.post(NET + 'networks', {'network': {
        'name': 'n1', 'description': 'x' * 256}})
    assert '256 characters long; the limit is 255' in _error(response, 400,
                                                               'HTTPBadRequest')
    response = member_client.post(NET + 'networks', {'network': {
        'name': 'n1', 'description': 7}})
    assert 'must be a string, not a number' in _error(response, 400, 'HTTPBadRequest')
    for text in ('a\x00b', 'a\ud800b'):  # no database column takes these
        response = member_client.post(NET + 'networks', {'network': {
            'name': 'n1', 'description': text}})
        _error(response, 400, 'HTTPBadRequest')
    assert member_client.get(NET + 'networks').json['networks'] == []
