"""Nova's network proxies (os-tenant-networks, os-networks; 2.1 - 2.35)."""

from tests.unit.api.compute import microversion
from tests.unit.api.compute import V

NET = '/network/v2.0/'


def test_the_projects_networks_in_novas_shapes(member_client, admin_client):
    net = member_client.post(NET + 'networks', {'network': {'name': 'n1'}}).json[
        'network']
    member_client.post(NET + 'subnets', {'subnet': {
        'network_id': net['id'], 'cidr': '10.81.0.0/24', 'ip_version': 4}})
    listed = member_client.get(V + '/os-tenant-networks').json['networks']
    assert {'id': net['id'], 'label': 'n1', 'cidr': '10.81.0.0/24'} in listed
    shown = member_client.get(V + '/os-tenant-networks/' + net['id']).json['network']
    assert shown['label'] == 'n1'
    assert member_client.get(V + '/os-tenant-networks/nope').status_int == 404
    assert member_client.get(V + '/os-networks').status_int == 403
    every = admin_client.get(V + '/os-networks').json['networks']
    assert net['id'] in {n['id'] for n in every}
    detail = admin_client.get(V + '/os-networks/' + net['id']).json['network']
    assert detail['label'] == 'n1' and 'bridge' in detail
    assert member_client.post(V + '/os-tenant-networks', {}).status_int == 405
    assert member_client.get(V + '/os-tenant-networks', headers=microversion(
        '2.36')).status_int == 404
