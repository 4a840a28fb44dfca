"""Cinder's admin listings of the volume service: os-services, os-hosts,
scheduler-stats/get_pools and capabilities (one cinder-volume backend a host), and
the default quota class, for admins only."""

import pytest

from tests.unit.api import cinder
from tests.unit import fixtures


@pytest.fixture
def admin(admin_client):
    fixtures.add_host('node1', disk_gib=100)
    return admin_client, cinder.base(admin_client)


def test_services_and_hosts(admin):
    client, base = admin
    services = client.get(base + '/os-services?host=node1').json['services']
    assert [(s['binary'], s['host'], s['status']) for s in services] == \
        [('cinder-volume', 'node1@file', 'enabled')]
    assert client.get(base + '/os-services?host=node1@file&binary=cinder-volume') \
        .json['services'] == services
    assert client.get(base + '/os-services?binary=cinder-backup').json == \
        {'services': []}
    hosts = client.get(base + '/os-hosts').json['hosts']
    assert ('node1@file', 'cinder-volume', 'enabled') in \
        [(h['host_name'], h['service'], h['service-state']) for h in hosts]
    shown = client.get(base + '/os-hosts/node1@file').json['host'][0]['resource']
    assert (shown['volume_count'], shown['project']) == ('0', '(total)')
    assert client.get(base + '/os-hosts/nowhere').status_int == 404


@pytest.mark.parametrize('action, body, status', [
    ('enable', {'host': 'nowhere', 'binary': 'cinder-volume'}, 404),
    ('disable', {'host': 'node1@file', 'binary': 'nonsense'}, 404),
    ('disable-log-reason', {'host': 'node1@file', 'binary': 'cinder-volume',
                            'disabled_reason': None}, 400),
    ('freeze', {'host': 'nowhere'}, 400), ('thaw', {'host': 'nowhere'}, 400),
    ('disable', {'host': 'node1@file', 'binary': 'cinder-volume'}, 400)])
def test_service_updates_refused_as_cinder_does(admin, action, body, status):
    client, base = admin
    response = client.put('%s/os-services/%s' % (base, action), body)
    assert response.status_int == status, response.text


def test_pools_and_capabilities_agree(admin):
    client, base = admin
    pools = client.get(base + '/scheduler-stats/get_pools').json['pools']
    assert {'name': 'node1@file#volumes'} in pools
    pool, = [p for p in client.get(base + '/scheduler-stats/get_pools?detail=True')
             .json['pools'] if p['name'].startswith('node1@')]
    shown = client.get(base + '/capabilities/node1@file#volumes').json
    for key in ('vendor_name', 'volume_backend_name', 'storage_protocol'):
        assert pool['capabilities'][key] == shown[key]
    assert pool['capabilities']['total_capacity_gb'] == 100


def test_members_are_refused(member_client):
    base = cinder.base(member_client)
    for path in ('/os-services', '/os-hosts', '/scheduler-stats/get_pools'):
        assert member_client.get(base + path).status_int == 403


def test_the_default_quota_class_is_read_only(admin):
    client, base = admin
    shown = client.get(base + '/os-quota-class-sets/default').json['quota_class_set']
    assert shown['id'] == 'default' and shown['gigabytes'] >= -1
    assert client.put(base + '/os-quota-class-sets/default',
                      {'quota_class_set': {'volumes': 3}}).status_int == 400


def test_volume_count_limits(admin, member_client):
    client, base = admin
    user_base = cinder.base(member_client)
    project = user_base.rsplit('/', 1)[1]
    path = '%s/os-quota-sets/%s' % (base, project)
    wanted = {'gigabytes': 1009, 'volumes': 1, 'snapshots': 0, 'backups': 11,
              'backup_gigabytes': 1009, 'per_volume_gigabytes': 2}
    answer = client.put(path, {'quota_set': wanted})
    assert answer.status_int == 200, answer.text
    assert wanted.items() <= answer.json['quota_set'].items()
    assert member_client.post(user_base + '/volumes', {'volume': {'size': 3}}) \
        .status_int == 413  # per_volume_gigabytes
    made = member_client.post(user_base + '/volumes', {'volume': {'size': 1}})
    assert made.status_int == 202
    refused = member_client.post(user_base + '/volumes', {'volume': {'size': 1}})
    assert refused.status_int == 413 and "'volumes'" in refused.text
    assert member_client.post(user_base + '/snapshots', {'snapshot': {
        'volume_id': made.json['volume']['id']}}).status_int == 413
    assert client.put(path, {'quota_set': {'groups': 3}}).status_int == 400
    assert client.put(path, {'quota_set': {'volumes': 'many'}}).status_int == 400
    assert client.delete(path).status_int == 200
    shown = client.get(path).json['quota_set']
    defaults = client.get(path + '/defaults').json['quota_set']
    assert (shown['volumes'], shown['backups']) == \
        (defaults['volumes'], defaults['backups'])
