"""The compute API's quotas and limits, availability zones, hypervisors and compute
services, through the WSGI application: the shapes the clients read, policy, bad input.
"""

import uuid

import pytest

from provisioner.catalog import hosts
from provisioner.quota import counters as quota_store
from provisioner.db import api as db_api
from provisioner.db import models
from tests.unit.api.compute import V, fault
from tests.unit import fixtures

pytestmark = pytest.mark.usefixtures('test_hypervisor')


# -- quotas and limits -------------------------------------------------------------

QUOTA_KEYS = {'cores', 'fixed_ips', 'floating_ips', 'injected_file_content_bytes',
              'injected_file_path_bytes', 'injected_files', 'instances', 'key_pairs',
              'metadata_items', 'ram', 'security_group_rules', 'security_groups',
              'server_group_members', 'server_groups'}


def project_of(client):
    from provisioner.identity import service as identity
    return identity.validate(client.token).project_id


def test_quota_show_detail_defaults(member_client, admin_context):
    project_id = project_of(member_client)
    shown = member_client.get(V + '/os-quota-sets/' + project_id)
    assert shown.status_int == 200, shown.text
    quota_set = shown.json['quota_set']
    assert set(quota_set) == QUOTA_KEYS | {'id'}
    assert quota_set['id'] == project_id
    assert (quota_set['instances'], quota_set['cores'], quota_set['ram']) == (
        10, 20, 51200)
    assert (quota_set['key_pairs'], quota_set['server_groups'],
            quota_set['metadata_items']) == (100, 10, 128)

    member_client.post(V + '/os-server-groups', {'server_group': {
        'name': 'g', 'policies': ['affinity']}})
    with db_api.transaction() as session:
        quota_store.reserve(session, project_id, fixtures.add_instance(
            _context_of(member_client)), quota_store.amounts_for(2, 256, ()))
    detail = member_client.get(V + '/os-quota-sets/%s/detail' % project_id).json
    assert set(detail['quota_set']) == QUOTA_KEYS | {'id'}
    assert detail['quota_set']['cores'] == {'in_use': 2, 'limit': 20, 'reserved': 0}
    assert detail['quota_set']['ram'] == {'in_use': 256, 'limit': 51200, 'reserved': 0}
    assert detail['quota_set']['instances']['in_use'] == 1
    assert detail['quota_set']['server_groups']['in_use'] == 1

    defaults = member_client.get(V + '/os-quota-sets/%s/defaults' % project_id).json
    assert defaults['quota_set']['instances'] == 10
    assert set(defaults['quota_set']) == QUOTA_KEYS | {'id'}


def _context_of(client):
    from provisioner.identity import service as identity
    return identity.validate(client.token)


def test_quota_of_another_project_is_403(member_client, admin_client):
    admin_project = project_of(admin_client)
    for path in ('', '/detail'):
        response = member_client.get(V + '/os-quota-sets/' + admin_project + path)
        assert response.status_int == 403, path
    # The admin reads anyone's.
    assert admin_client.get(V + '/os-quota-sets/' + project_of(member_client)
                            ).status_int == 200


def test_quota_update_and_reset(member_client, admin_client):
    project_id = project_of(member_client)
    updated = admin_client.put(V + '/os-quota-sets/' + project_id, {'quota_set': {
        'instances': 3, 'cores': '8', 'ram': -1, 'key_pairs': 100, 'force': 'True'}})
    assert updated.status_int == 200, updated.text
    quota_set = updated.json['quota_set']
    assert 'id' not in quota_set and set(quota_set) == QUOTA_KEYS
    assert (quota_set['instances'], quota_set['cores'], quota_set['ram']) == (3, 8, -1)
    assert member_client.get(V + '/os-quota-sets/' + project_id).json[
        'quota_set']['instances'] == 3

    refused = member_client.put(V + '/os-quota-sets/' + project_id, {'quota_set': {
        'instances': 30}})
    assert refused.status_int == 403
    assert member_client.delete(V + '/os-quota-sets/' + project_id).status_int == 403

    reset = admin_client.delete(V + '/os-quota-sets/' + project_id)
    assert reset.status_int == 202
    assert member_client.get(V + '/os-quota-sets/' + project_id).json[
        'quota_set']['instances'] == 10


@pytest.mark.parametrize('quota_set', [
    {'instances': 'many'}, {'instances': -2}, {'volumes': 1}, {'cores': 1.5},
    {'key_pairs': 5}, {'networks': 3}, {'force': 'perhaps'}])
def test_quota_update_bad_input(admin_client, member_client, quota_set):
    project_id = project_of(member_client)
    response = admin_client.put(V + '/os-quota-sets/' + project_id,
                                {'quota_set': quota_set})
    assert response.status_int == 400, response.text
    assert admin_client.get(V + '/os-quota-sets/' + project_id).json[
        'quota_set']['instances'] == 10


def test_quota_update_below_usage_and_unknown_project(admin_client, member_client):
    project_id = project_of(member_client)
    with db_api.transaction() as session:
        quota_store.reserve(session, project_id, fixtures.add_instance(
            _context_of(member_client)), quota_store.amounts_for(4, 256, ()))
    below = admin_client.put(V + '/os-quota-sets/' + project_id,
                             {'quota_set': {'cores': 2}})
    assert below.status_int == 400
    assert 'already used' in fault(below)[1]
    forced = admin_client.put(V + '/os-quota-sets/' + project_id,
                              {'quota_set': {'cores': 2, 'force': True}})
    assert forced.status_int == 200
    unknown = admin_client.put(V + '/os-quota-sets/' + str(uuid.uuid4()),
                               {'quota_set': {'cores': 2}})
    assert unknown.status_int == 400
    assert 'not a valid project' in fault(unknown)[1]


LIMIT_KEYS = {'maxImageMeta', 'maxPersonality', 'maxPersonalitySize',
              'maxSecurityGroupRules', 'maxSecurityGroups', 'maxServerMeta',
              'maxTotalCores', 'maxTotalFloatingIps', 'maxTotalInstances',
              'maxTotalKeypairs', 'maxTotalRAMSize', 'maxServerGroups',
              'maxServerGroupMembers', 'totalCoresUsed', 'totalInstancesUsed',
              'totalRAMUsed', 'totalSecurityGroupsUsed', 'totalFloatingIpsUsed',
              'totalServerGroupsUsed'}


def test_limits(member_client, admin_client):
    response = member_client.get(V + '/limits')
    assert response.status_int == 200, response.text
    limits = response.json['limits']
    assert limits['rate'] == []
    assert set(limits['absolute']) == LIMIT_KEYS
    assert (limits['absolute']['maxTotalInstances'], limits['absolute']['maxTotalCores'],
            limits['absolute']['maxTotalRAMSize'], limits['absolute']['totalCoresUsed']
            ) == (10, 20, 51200, 0)
    # Another project's limits: admins only.
    member_project = project_of(member_client)
    assert member_client.get(V + '/limits?tenant_id=' + project_of(admin_client)
                             ).status_int == 403
    admin_client.put(V + '/os-quota-sets/' + member_project,
                     {'quota_set': {'instances': 4}})
    assert admin_client.get(V + '/limits?tenant_id=' + member_project).json[
        'limits']['absolute']['maxTotalInstances'] == 4


# -- availability zones, hypervisors, services -------------------------------------

def add_host(name, zone='nova', enabled=True):
    fixtures.add_host(name)
    hosts.update(name, availability_zone=zone, enabled=enabled,
                 disabled_reason=None if enabled else 'maintenance')


def test_availability_zones(member_client, admin_client, conf):
    add_host('h1', 'zone-a')
    add_host('h2', 'zone-b', enabled=False)
    add_host('h3', 'zone-a', enabled=False)
    zones = member_client.get(V + '/os-availability-zone').json['availabilityZoneInfo']
    assert {'zoneName': 'zone-a', 'zoneState': {'available': True},
            'hosts': None} in zones
    assert {'zoneName': 'zone-b', 'zoneState': {'available': False},
            'hosts': None} in zones
    # This host (all-in-one) reported itself, in the default zone.
    assert {'zoneName': 'nova', 'zoneState': {'available': True},
            'hosts': None} in zones

    assert member_client.get(V + '/os-availability-zone/detail').status_int == 403
    detail = admin_client.get(V + '/os-availability-zone/detail').json[
        'availabilityZoneInfo']
    by_name = {z['zoneName']: z for z in detail}
    assert set(by_name['zone-a']['hosts']) == {'h1'}
    service = by_name['zone-a']['hosts']['h1']['nova-compute']
    assert service['available'] is True and service['active'] is True
    assert service['updated_at'].count('.') == 1
    assert by_name['zone-b'] == {'zoneName': 'zone-b', 'zoneState': {'available': False},
                                 'hosts': None}
    assert set(by_name['nova']['hosts']) == {conf.host}


HYPERVISOR_KEYS = {'id', 'hypervisor_hostname', 'state', 'status', 'vcpus',
                   'vcpus_used', 'memory_mb', 'memory_mb_used', 'local_gb',
                   'local_gb_used', 'hypervisor_type', 'hypervisor_version', 'host_ip',
                   'running_vms', 'free_ram_mb', 'free_disk_gb', 'current_workload',
                   'disk_available_least', 'cpu_info', 'service'}


def test_hypervisors(member_client, admin_client, admin_context, conf):
    add_host('h1')
    instance_id = fixtures.add_instance(admin_context)
    with db_api.transaction() as session:
        session.get(models.Instance, instance_id).host = 'h1'
    index = admin_client.get(V + '/os-hypervisors').json['hypervisors']
    assert {h['hypervisor_hostname'] for h in index} == {'h1', conf.host}
    assert all(set(h) == {'id', 'hypervisor_hostname', 'state', 'status'}
               and isinstance(h['id'], int) for h in index)

    detail = admin_client.get(V + '/os-hypervisors/detail').json['hypervisors']
    h1 = [h for h in detail if h['hypervisor_hostname'] == 'h1'][0]
    assert set(h1) == HYPERVISOR_KEYS
    assert (h1['vcpus'], h1['memory_mb'], h1['local_gb'], h1['running_vms'],
            h1['state'], h1['status'], h1['hypervisor_type']) == (
        4, 4096, 100, 1, 'up', 'enabled', 'QEMU')
    assert isinstance(h1['cpu_info'], str)
    assert h1['service']['host'] == 'h1' and h1['service']['id'] == h1['id']

    shown = admin_client.get(V + '/os-hypervisors/%d' % h1['id'])
    assert shown.json == {'hypervisor': h1}
    assert admin_client.get(V + '/os-hypervisors/h1').status_int == 404
    assert admin_client.get(V + '/os-hypervisors/h/search').json['hypervisors'][0][
        'hypervisor_hostname'] == 'h1'
    stats = admin_client.get(V + '/os-hypervisors/statistics').json[
        'hypervisor_statistics']
    assert stats['count'] == 2 and stats['running_vms'] == 1

    local = [h for h in index if h['hypervisor_hostname'] == conf.host][0]
    uptime = admin_client.get(V + '/os-hypervisors/%d/uptime' % local['id'])
    assert 'load average' in uptime.json['hypervisor']['uptime']
    assert admin_client.get(V + '/os-hypervisors/%d/uptime' % h1['id']).status_int \
        == 501

    for path in ('', '/detail', '/statistics', '/%d' % h1['id']):
        assert member_client.get(V + '/os-hypervisors' + path).status_int == 403


def test_compute_services_list_disable_enable(member_client, admin_client):
    add_host('h1', 'zone-a')
    services = admin_client.get(V + '/os-services?host=h1').json['services']
    assert services == [{
        'id': services[0]['id'], 'binary': 'nova-compute', 'host': 'h1',
        'zone': 'zone-a', 'status': 'enabled', 'state': 'up',
        'updated_at': services[0]['updated_at'], 'disabled_reason': None}]
    assert member_client.get(V + '/os-services').status_int == 403
    assert admin_client.get(V + '/os-services?binary=nova-scheduler').json == {
        'services': []}

    disabled = admin_client.put(V + '/os-services/disable-log-reason', {
        'host': 'h1', 'binary': 'nova-compute', 'disabled_reason': 'disk swap'})
    assert disabled.status_int == 200, disabled.text
    assert disabled.json == {'service': {'host': 'h1', 'binary': 'nova-compute',
                                         'status': 'disabled',
                                         'disabled_reason': 'disk swap'}}
    [service] = admin_client.get(V + '/os-services?host=h1').json['services']
    assert (service['status'], service['disabled_reason']) == ('disabled', 'disk swap')

    enabled = admin_client.put(V + '/os-services/enable', {'host': 'h1',
                                                           'binary': 'nova-compute'})
    assert enabled.json == {'service': {'host': 'h1', 'binary': 'nova-compute',
                                        'status': 'enabled'}}
    plain = admin_client.put(V + '/os-services/disable', {'host': 'h1',
                                                          'binary': 'nova-compute'})
    assert plain.json['service'] == {'host': 'h1', 'binary': 'nova-compute',
                                     'status': 'disabled'}

    body = {'host': 'h1', 'binary': 'nova-compute'}
    assert member_client.put(V + '/os-services/enable', body).status_int == 403
    assert admin_client.put(V + '/os-services/disable-log-reason', body
                            ).status_int == 400
    assert admin_client.put(V + '/os-services/enable', dict(body, zone='x')
                            ).status_int == 400
    assert admin_client.put(V + '/os-services/enable', dict(body, host='nope')
                            ).status_int == 404
    assert admin_client.put(V + '/os-services/enable', dict(
        body, binary='nova-conductor')).status_int == 404
    assert admin_client.put(V + '/os-services/reboot', body).status_int == 404
