"""Neutron's subnet pools: their lifecycle and refusals, and subnets carved from them."""

from tests.unit.api.test_network_service import _create
from tests.unit.api.test_network_service import _error
from tests.unit.api.conftest import Client
from tests.unit.api.test_network_service import NET


def _pool(client, **body):
    return _create(client, 'subnetpool', dict({'name': 'pool', 'prefixes': [
        '10.80.0.0/24', '10.80.1.0/24']}, **body))


def _subnet(client, name, **body):
    net = _create(client, 'network', {'name': name})
    response = client.post(NET + 'subnets', {'subnet': dict(
        {'network_id': net['id'], 'ip_version': 4}, **body)})
    return net, response


def test_pool_lifecycle_as_tempest_drives_it(member_client):
    pool = _pool(member_client, description='d')
    assert pool['prefixes'] == ['10.80.0.0/23']  # merged, as Neutron's cidr_merge
    assert (pool['min_prefixlen'], pool['default_prefixlen'], pool['max_prefixlen'],
            pool['ip_version'], pool['shared'], pool['is_default'],
            pool['default_quota'], pool['address_scope_id']) == (8, 8, 32, 4, False,
                                                                  False, None, None)
    assert pool['project_id'] == pool['tenant_id'] and pool['description'] == 'd'
    url = NET + 'subnetpools/' + pool['id']
    assert member_client.get(url).json['subnetpool']['name'] == 'pool'
    assert [p['id'] for p in member_client.get(NET + 'subnetpools').json[
        'subnetpools']] == [pool['id']]
    updated = member_client.put(url, {'subnetpool': {
        'name': 'renamed', 'prefixes': ['10.80.0.0/23', '10.90.0.0/24'],
        'default_prefixlen': 26}}).json['subnetpool']
    assert (updated['name'], updated['prefixes'], updated['default_prefixlen']) == (
        'renamed', ['10.80.0.0/23', '10.90.0.0/24'], 26)
    assert member_client.delete(url).status_int == 204
    assert _error(member_client.get(url), 404, 'SubnetPoolNotFound')


def test_subnets_carved_from_a_pool_take_the_lowest_free_range(member_client):
    pool = _pool(member_client, default_prefixlen=25, min_prefixlen=24)
    _, first = _subnet(member_client, 'a', subnetpool_id=pool['id'])
    assert first.status_int == 201, first.text
    assert (first.json['subnet']['cidr'], first.json['subnet']['subnetpool_id']) == (
        '10.80.0.0/25', pool['id'])
    _, given = _subnet(member_client, 'b', cidr='10.80.1.0/24',
                       subnetpool_id=pool['id'])
    assert given.json['subnet']['cidr'] == '10.80.1.0/24', given.text
    _, second = _subnet(member_client, 'c', subnetpool_id=pool['id'], prefixlen=25)
    assert second.json['subnet']['cidr'] == '10.80.0.128/25', second.text
    _, full = _subnet(member_client, 'd', subnetpool_id=pool['id'])
    assert 'Insufficient prefix space' in _error(full, 409, 'SubnetAllocationError')
    in_use = member_client.delete(NET + 'subnetpools/' + pool['id'])
    assert '3 subnet(s)' in _error(in_use, 409, 'SubnetPoolInUse')


def test_subnet_pool_refusals_change_nothing(member_client, admin_client):
    pool = _pool(member_client, min_prefixlen=24)
    for body, words in (({'prefixes': ['not-a-cidr']}, 'not a valid IP subnet'),
                        ({'prefixes': ['fd00::/64']}, 'only IPv4'),
                        ({'prefixes': []}, 'non-empty list'),
                        ({'min_prefixlen': 30, 'max_prefixlen': 28}, 'prefix bounds')):
        refused = member_client.post(NET + 'subnetpools', {'subnetpool': dict(
            {'name': 'bad', 'prefixes': ['10.81.0.0/24']}, **body)})
        assert words in _error(refused, 400, 'InvalidInput'), body
    refused = member_client.post(NET + 'subnetpools', {'subnetpool': {'name': 'x'}})
    assert refused.status_int == 400
    assert member_client.post(NET + 'subnetpools', {'subnetpool': {
        'name': 'pub', 'prefixes': ['10.82.0.0/24'], 'shared': True}}).status_int == 403
    shrink = member_client.put(NET + 'subnetpools/' + pool['id'], {'subnetpool': {
        'prefixes': ['10.80.0.0/24']}})
    assert 'can only grow' in _error(shrink, 400, 'InvalidInput')
    _, outside = _subnet(member_client, 'o', cidr='10.99.0.0/24',
                         subnetpool_id=pool['id'])
    assert 'not within the subnet pool' in _error(outside, 400, 'InvalidInput')
    _, too_long = _subnet(member_client, 't', subnetpool_id=pool['id'], prefixlen=20)
    assert 'Illegal prefix length' in _error(too_long, 400, 'InvalidInput')
    _, neither = _subnet(member_client, 'n')
    assert 'subnetpool must be specified' in neither.text and neither.status_int == 400
    assert member_client.get(NET + 'subnets').json['subnets'] == []
    names = [p['name'] for p in member_client.get(NET + 'subnetpools').json[
        'subnetpools']]
    assert names == ['pool']


def test_a_shared_default_pool_serves_every_project(member_client, admin_client, app,
                                                    make_token):
    pool = _create(admin_client, 'subnetpool', {
        'name': 'default', 'prefixes': ['10.83.0.0/16'], 'default_prefixlen': 24,
        'shared': True, 'is_default': True, 'default_quota': 512})
    second = admin_client.post(NET + 'subnetpools', {'subnetpool': {
        'name': 'another', 'prefixes': ['10.84.0.0/16'], 'is_default': True}})
    assert 'default subnetpool' in second.text and second.status_int == 409
    other = Client(app, make_token('eve', 'member', 'other'))
    assert [p['id'] for p in other.get(NET + 'subnetpools').json['subnetpools']] == [
        pool['id']]
    _, made = _subnet(member_client, 'm', use_default_subnetpool=True)
    assert made.json['subnet']['cidr'] == '10.83.0.0/24', made.text
    _, second_made = _subnet(member_client, 'm2', use_default_subnetpool=True)
    assert second_made.status_int == 201
    _, over = _subnet(member_client, 'm3', use_default_subnetpool=True)
    assert _error(over, 409, 'SubnetPoolQuotaExceeded')
    assert other.delete(NET + 'subnetpools/' + pool['id']).status_int in (403, 404)
