"""The compute resources' microversions 2.6 - 2.90 (servers' are test_servers*.py):
at each boundary the field is absent below and present at, the schema refuses below
and accepts at, and a removed route is 404 from its version on."""

import uuid

import pytest

from provisioner.catalog import hosts
from provisioner.db import api as db_api
from provisioner.db import models
from tests.unit.api.compute import V, fault, microversion
from tests.unit.api.test_compute_resources import SSH_KEY, osc_flavor
from tests.unit import fixtures

pytestmark = pytest.mark.usefixtures('test_hypervisor')


def mv(version):
    return {'headers': microversion(version)}


# -- flavors -----------------------------------------------------------------------

def test_flavor_description_from_2_55(admin_client, member_client):
    refused = admin_client.post(V + '/flavors', osc_flavor('d0', description='x'),
                                **mv('2.54'))
    assert refused.status_int == 400
    created = admin_client.post(V + '/flavors', osc_flavor('d1', description='small'),
                                **mv('2.55'))
    assert created.status_int == 200, created.text
    flavor = created.json['flavor']
    assert flavor['description'] == 'small' and 'extra_specs' not in flavor
    assert flavor['swap'] == ''
    listed = member_client.get(V + '/flavors', **mv('2.55')).json['flavors']
    assert [f['description'] for f in listed if f['id'] == flavor['id']] == ['small']
    assert 'description' not in member_client.get(V + '/flavors', **mv('2.54')).json[
        'flavors'][0]

    path = V + '/flavors/' + flavor['id']
    assert admin_client.put(path, {'flavor': {'description': 'x'}},
                            **mv('2.54')).status_int == 404
    assert member_client.put(path, {'flavor': {'description': 'x'}},
                             **mv('2.55')).status_int == 403
    assert admin_client.put(path, {'flavor': {'name': 'x'}},
                            **mv('2.55')).status_int == 400
    updated = admin_client.put(path, {'flavor': {'description': 'tiny one'}},
                               **mv('2.55'))
    assert updated.status_int == 200 and updated.json['flavor']['description'] == \
        'tiny one'
    shown = member_client.get(path, **mv('2.61')).json['flavor']
    assert (shown['description'], shown['extra_specs'], shown['swap']) == (
        'tiny one', {}, '')
    assert member_client.get(path, **mv('2.75')).json['flavor']['swap'] == 0
    assert admin_client.put(path, {'flavor': {'description': None}},
                            **mv('2.55')).json['flavor']['description'] is None


def test_flavor_tenant_access_on_a_public_flavor(admin_client):
    flavor = admin_client.post(V + '/flavors', osc_flavor('pub')).json['flavor']
    path = V + '/flavors/%s/action' % flavor['id']
    body = {'addTenantAccess': {'tenant': 'demo'}}
    conflict = admin_client.post(path, body, **mv('2.7'))
    assert conflict.status_int == 409
    assert fault(conflict)[1] == 'Can not add access to a public flavor.'
    assert admin_client.post(path, body, **mv('2.6')).json == {'flavor_access': [
        {'flavor_id': flavor['id'], 'tenant_id': 'demo'}]}
    assert admin_client.post(path, {'removeTenantAccess': {'tenant': 'demo'}},
                             **mv('2.7')).status_int == 404
    assert admin_client.post(path, {'nope': {}}, **mv('2.7')).status_int == 400


# -- key pairs ---------------------------------------------------------------------

def test_keypairs_of_other_users_for_admins_from_2_10(admin_client, member_client,
                                                      make_token):
    other_client = member_client.as_(make_token('kp-other', 'member', 'demo'))
    other_id = other_client.post(V + '/os-keypairs', {'keypair': {
        'name': 'k', 'public_key': SSH_KEY}}, **mv('2.10')).json['keypair']['user_id']
    body = {'keypair': {'name': 'given', 'public_key': SSH_KEY, 'user_id': other_id}}
    assert admin_client.post(V + '/os-keypairs', body, **mv('2.9')).status_int == 400
    created = admin_client.post(V + '/os-keypairs', body, **mv('2.10'))
    assert created.status_int == 201 and created.json['keypair']['user_id'] == other_id
    assert member_client.post(V + '/os-keypairs', dict(body, keypair=dict(
        body['keypair'], name='x')), **mv('2.10')).status_int == 403

    query = '?user_id=' + other_id
    names = [k['keypair']['name'] for k in admin_client.get(
        V + '/os-keypairs' + query, **mv('2.10')).json['keypairs']]
    assert names == ['given', 'k']
    assert admin_client.get(V + '/os-keypairs' + query, **mv('2.9')).json[
        'keypairs'] == []
    assert member_client.get(V + '/os-keypairs' + query,
                             **mv('2.10')).status_int == 403
    assert admin_client.get(V + '/os-keypairs/given' + query, **mv('2.10')).json[
        'keypair']['user_id'] == other_id
    assert admin_client.delete(V + '/os-keypairs/given' + query,
                               **mv('2.10')).status_int == 204
    assert admin_client.get(V + '/os-keypairs/given' + query,
                            **mv('2.10')).status_int == 404


def test_keypair_paging_from_2_35(member_client):
    for name in ('c', 'a', 'b'):
        member_client.post(V + '/os-keypairs', {'keypair': {
            'name': name, 'public_key': SSH_KEY}}, **mv('2.35'))
    first = member_client.get(V + '/os-keypairs?limit=2', **mv('2.35')).json
    assert [k['keypair']['name'] for k in first['keypairs']] == ['a', 'b']
    assert 'marker=b' in first['keypairs_links'][0]['href']
    rest = member_client.get(V + '/os-keypairs?limit=2&marker=b', **mv('2.35')).json
    assert [k['keypair']['name'] for k in rest['keypairs']] == ['c']
    assert 'keypairs_links' not in rest
    assert len(member_client.get(V + '/os-keypairs?limit=2', **mv('2.34')).json[
        'keypairs']) == 3
    assert member_client.get(V + '/os-keypairs?marker=zz',
                             **mv('2.35')).status_int == 400
    assert member_client.get(V + '/os-keypairs?foo=1', **mv('2.74')).status_int == 200
    assert member_client.get(V + '/os-keypairs?foo=1', **mv('2.75')).status_int == 400


# -- server groups -----------------------------------------------------------------

def _group(client, version, **spec):
    return client.post(V + '/os-server-groups', {'server_group': dict(
        {'name': 'g'}, **spec)}, **mv(version))


def test_server_group_versions(member_client):
    old = _group(member_client, '2.12', policies=['affinity']).json['server_group']
    assert set(old) == {'id', 'name', 'policies', 'members', 'metadata'}
    assert _group(member_client, '2.14', policies=['soft-affinity']).status_int == 400
    soft = _group(member_client, '2.15', policies=['soft-anti-affinity'])
    assert soft.status_int == 200, soft.text
    group = soft.json['server_group']
    assert group['policies'] == ['soft-anti-affinity'] and group['name'] == 'g'
    assert group['project_id'] and group['user_id']
    assert _group(member_client, '2.64', policies=['affinity']).status_int == 400
    ruled = _group(member_client, '2.64', policy='anti-affinity',
                   rules={'max_server_per_host': 2}).json['server_group']
    assert set(ruled) == {'id', 'name', 'policy', 'rules', 'members', 'project_id',
                          'user_id'}
    assert ruled['rules'] == {'max_server_per_host': 2}
    assert _group(member_client, '2.64', policy='affinity',
                  rules={'max_server_per_host': 2}).status_int == 400
    assert _group(member_client, '2.64', policy='anti-affinity',
                  rules={'max_server_per_host': 0}).status_int == 400
    shown = member_client.get(V + '/os-server-groups/' + group['id'],
                              **mv('2.64')).json['server_group']
    assert (shown['policy'], shown['rules']) == ('soft-anti-affinity', {})
    # Names repeat, as in Nova, at every version.
    names = [g['name'] for g in member_client.get(V + '/os-server-groups').json[
        'server_groups']]
    assert names == ['g'] * 3
    assert member_client.get(V + '/os-server-groups?x=1', **mv('2.75')
                             ).status_int == 400


# -- hypervisors and services ------------------------------------------------------

def test_hypervisors_at_2_28_2_33_2_53_2_88(admin_client, admin_context, conf):
    fixtures.add_host('h1')
    instance_id = fixtures.add_instance(admin_context)
    with db_api.transaction() as session:
        session.get(models.Instance, instance_id).host = 'h1'
    h1_uuid = hosts.show('h1')['id']

    detail = admin_client.get(V + '/os-hypervisors/detail', **mv('2.27')).json
    assert all(isinstance(h['cpu_info'], str) for h in detail['hypervisors'])
    detail = admin_client.get(V + '/os-hypervisors/detail', **mv('2.28')).json
    assert all(set(h['cpu_info']) == {'arch'} for h in detail['hypervisors'])

    page = admin_client.get(V + '/os-hypervisors?limit=1', **mv('2.33')).json
    assert len(page['hypervisors']) == 1 and 'hypervisors_links' in page
    assert len(admin_client.get(V + '/os-hypervisors?limit=1', **mv('2.32')).json[
        'hypervisors']) == 2

    index = admin_client.get(V + '/os-hypervisors', **mv('2.53')).json['hypervisors']
    assert admin_client.get(V + '/os-hypervisors?foo=1', **mv('2.52')).status_int == 200
    assert admin_client.get(V + '/os-hypervisors?foo=1', **mv('2.53')).status_int == 400
    assert h1_uuid in {h['id'] for h in index}
    shown = admin_client.get(V + '/os-hypervisors/%s?with_servers=1' % h1_uuid,
                             **mv('2.53')).json['hypervisor']
    assert shown['servers'] == [{'name': 'vm1', 'uuid': instance_id}]
    assert shown['service']['id'] == h1_uuid and 'vcpus' in shown
    assert admin_client.get(V + '/os-hypervisors/12', **mv('2.53')).status_int == 400
    assert admin_client.get(V + '/os-hypervisors/h/search', **mv('2.53')
                            ).status_int == 404
    assert admin_client.get(V + '/os-hypervisors/h1/servers', **mv('2.52')).json[
        'hypervisors'][0]['servers'] == [{'name': 'vm1', 'uuid': instance_id}]
    found = admin_client.get(V + '/os-hypervisors?hypervisor_hostname_pattern=h1',
                             **mv('2.53')).json['hypervisors']
    assert [h['hypervisor_hostname'] for h in found] == ['h1']
    assert admin_client.get(V + '/os-hypervisors?hypervisor_hostname_pattern=zz',
                            **mv('2.53')).status_int == 404
    local = [h for h in index if h['hypervisor_hostname'] == conf.host][0]
    empty = admin_client.get(V + '/os-hypervisors/%s?with_servers=true' % local['id'],
                             **mv('2.75')).json['hypervisor']
    assert empty['servers'] == []

    new = admin_client.get(V + '/os-hypervisors/%s' % local['id'],
                           **mv('2.88')).json['hypervisor']
    assert 'load average' in new['uptime'] and 'vcpus' not in new
    assert 'cpu_info' not in new and 'running_vms' not in new
    assert admin_client.get(V + '/os-hypervisors/statistics', **mv('2.88')
                            ).status_int == 404
    assert admin_client.get(V + '/os-hypervisors/statistics', **mv('2.87')
                            ).status_int == 200
    assert admin_client.get(V + '/os-hypervisors/%s/uptime' % local['id'],
                            **mv('2.88')).status_int == 404


def test_services_force_down_and_update_by_id(admin_client):
    fixtures.add_host('h1')
    h1_uuid = hosts.show('h1')['id']
    [old] = admin_client.get(V + '/os-services?host=h1', **mv('2.10')).json['services']
    assert 'forced_down' not in old and isinstance(old['id'], int)
    body = {'host': 'h1', 'binary': 'nova-compute', 'forced_down': True}
    assert admin_client.put(V + '/os-services/force-down', body, **mv('2.10')
                            ).status_int == 404
    forced = admin_client.put(V + '/os-services/force-down', body, **mv('2.11'))
    assert forced.json == {'service': body}
    [service] = admin_client.get(V + '/os-services?host=h1', **mv('2.11')).json[
        'services']
    assert (service['forced_down'], service['state']) == (True, 'down')

    path = V + '/os-services/' + h1_uuid
    assert admin_client.put(path, {'forced_down': False}, **mv('2.52')
                            ).status_int == 404
    updated = admin_client.put(path, {'status': 'disabled', 'disabled_reason': 'swap',
                                      'forced_down': False}, **mv('2.53'))
    assert updated.status_int == 200, updated.text
    shown = updated.json['service']
    assert (shown['id'], shown['status'], shown['disabled_reason'], shown['state'],
            shown['forced_down']) == (h1_uuid, 'disabled', 'swap', 'up', False)
    assert admin_client.put(path, {}, **mv('2.53')).status_int == 400
    assert admin_client.put(path, {'status': 'enabled', 'disabled_reason': 'x'},
                            **mv('2.53')).status_int == 400
    assert admin_client.put(V + '/os-services/' + str(uuid.uuid4()),
                            {'status': 'enabled'}, **mv('2.53')).status_int == 404
    assert admin_client.put(V + '/os-services/1', {'status': 'enabled'},
                            **mv('2.53')).status_int == 400
    assert admin_client.put(path, {'status': 'enabled'}, **mv('2.53')).json[
        'service']['status'] == 'enabled'


# -- instance actions --------------------------------------------------------------

def _actions_of_a_server(admin_context, member_client):
    from provisioner.compute import actions
    from tests.unit.api.test_compute_quotas_and_hosts import _context_of
    context = _context_of(member_client)
    instance_id = fixtures.add_instance(context)
    with db_api.transaction() as session:
        first = actions.record(session, context, instance_id, 'create')
        session.add(models.InstanceEvent(
            instance_id=instance_id, name='build', host='h1', action_id=first,
            started_at=models.utcnow(), finished_at=models.utcnow(), result='Error',
            message='disk full'))
    return instance_id, context.request_id


def test_instance_action_events_by_version(member_client, admin_client, admin_context):
    instance_id, request_id = _actions_of_a_server(admin_context, member_client)
    path = V + '/servers/%s/os-instance-actions/%s' % (instance_id, request_id)
    assert 'events' not in member_client.get(path, **mv('2.50')).json['instanceAction']
    [event] = member_client.get(path, **mv('2.51')).json['instanceAction']['events']
    assert set(event) == {'event', 'start_time', 'finish_time', 'result'}
    [event] = member_client.get(path, **mv('2.62')).json['instanceAction']['events']
    assert set(event) == {'event', 'start_time', 'finish_time', 'result', 'hostId'}
    assert event['hostId']
    [event] = admin_client.get(path, **mv('2.61')).json['instanceAction']['events']
    assert event['traceback'] == 'disk full' and 'host' not in event
    [event] = admin_client.get(path, **mv('2.62')).json['instanceAction']['events']
    assert event['host'] == 'h1' and 'details' not in event
    [event] = admin_client.get(path, **mv('2.84')).json['instanceAction']['events']
    assert event['details'] == 'disk full'
    assert 'updated_at' not in member_client.get(path, **mv('2.57')).json[
        'instanceAction']
    assert member_client.get(path, **mv('2.58')).json['instanceAction']['updated_at']


def test_instance_actions_paging_and_deleted_servers(member_client, admin_context):
    instance_id, request_id = _actions_of_a_server(admin_context, member_client)
    path = V + '/servers/%s/os-instance-actions' % instance_id
    listed = member_client.get(path + '?limit=1', **mv('2.58')).json
    assert [a['request_id'] for a in listed['instanceActions']] == [request_id]
    assert listed['instanceActions'][0]['updated_at']
    assert member_client.get(path + '?changes-since=2999-01-01T00:00:00Z',
                             **mv('2.58')).json['instanceActions'] == []
    assert member_client.get(path + '?changes-before=2000-01-01T00:00:00Z',
                             **mv('2.58')).json['instanceActions'] == []
    assert member_client.get(path + '?changes-since=2999-01-01T00:00:00Z&'
                             'changes-before=2000-01-01T00:00:00Z',
                             **mv('2.58')).status_int == 400
    assert member_client.get(path + '?marker=nope', **mv('2.58')).status_int == 400
    assert member_client.get(path + '?foo=1', **mv('2.75')).status_int == 400
    with db_api.transaction() as session:
        session.get(models.Instance, instance_id).vm_state = 'deleted'
    assert member_client.get(path, **mv('2.20')).status_int == 404
    assert member_client.get(path, **mv('2.21')).json['instanceActions']


# -- quotas and limits -------------------------------------------------------------

def test_quotas_and_limits_drop_fields(member_client, admin_client):
    from tests.unit.api.test_compute_quotas_and_hosts import project_of
    path = V + '/os-quota-sets/' + project_of(member_client)
    assert 'floating_ips' in member_client.get(path, **mv('2.35')).json['quota_set']
    at_236 = member_client.get(path, **mv('2.36')).json['quota_set']
    assert 'floating_ips' not in at_236 and 'injected_files' in at_236
    at_257 = member_client.get(path + '/detail', **mv('2.57')).json['quota_set']
    assert not {'security_groups', 'injected_files'} & set(at_257)
    assert 'injected_files' not in member_client.get(path + '/defaults',
                                                     **mv('2.57')).json['quota_set']
    assert admin_client.put(path, {'quota_set': {'floating_ips': 10}},
                            **mv('2.35')).status_int == 200
    assert admin_client.put(path, {'quota_set': {'floating_ips': 10}},
                            **mv('2.36')).status_int == 400
    assert admin_client.put(path, {'quota_set': {'injected_files': 5}},
                            **mv('2.57')).status_int == 400

    def absolute(version):
        return member_client.get(V + '/limits', **mv(version)).json['limits']['absolute']
    assert {'maxTotalFloatingIps', 'totalSecurityGroupsUsed'} <= set(absolute('2.35'))
    assert not {'maxTotalFloatingIps', 'maxSecurityGroups',
                'totalSecurityGroupsUsed'} & set(absolute('2.36'))
    assert 'maxImageMeta' in absolute('2.38') and 'maxImageMeta' not in absolute('2.39')
    assert 'maxPersonality' in absolute('2.56')
    assert not {'maxPersonality', 'maxPersonalitySize'} & set(absolute('2.57'))


# -- consoles, migrations, topology ------------------------------------------------

def test_remote_consoles_none_is_enabled(member_client, admin_client, admin_context):
    from tests.unit.api.test_compute_quotas_and_hosts import _context_of
    instance_id = fixtures.add_instance(_context_of(member_client))
    path = V + '/servers/%s/remote-consoles' % instance_id

    def console(version, protocol, kind):
        return member_client.post(path, {'remote_console': {
            'protocol': protocol, 'type': kind}}, **mv(version))
    assert console('2.5', 'vnc', 'novnc').status_int == 404
    refused = console('2.6', 'vnc', 'novnc')
    assert refused.status_int == 400
    assert fault(refused)[1] == 'Unavailable console type novnc.'
    assert console('2.6', 'serial', 'serial').status_int == 400
    assert console('2.7', 'mks', 'webmks').status_int == 400  # not in the schema
    assert console('2.8', 'mks', 'webmks').status_int == 501
    assert member_client.post(V + '/servers/%s/remote-consoles' % uuid.uuid4(), {
        'remote_console': {'protocol': 'vnc', 'type': 'novnc'}},
        **mv('2.6')).status_int == 404
    token_path = V + '/os-console-auth-tokens/abc'
    assert admin_client.get(token_path, **mv('2.30')).status_int == 400
    assert admin_client.get(token_path, **mv('2.31')).status_int == 404
    assert member_client.get(token_path, **mv('2.31')).status_int == 403


def test_migrations_and_topology(member_client, admin_client):
    from tests.unit.api.test_compute_quotas_and_hosts import _context_of
    instance_id = fixtures.add_instance(_context_of(member_client))
    assert admin_client.get(V + '/os-migrations').json == {'migrations': []}
    assert member_client.get(V + '/os-migrations').status_int == 403
    assert admin_client.get(V + '/os-migrations?marker=x', **mv('2.59')
                            ).status_int == 400
    assert admin_client.get(V + '/os-migrations?user_id=x', **mv('2.79')
                            ).status_int == 400
    assert admin_client.get(V + '/os-migrations?user_id=x', **mv('2.80')).json == {
        'migrations': []}
    path = V + '/servers/%s/migrations' % instance_id
    assert admin_client.get(path, **mv('2.22')).status_int == 404
    assert admin_client.get(path, **mv('2.23')).json == {'migrations': []}
    assert admin_client.get(path + '/1', **mv('2.23')).status_int == 404
    topology = V + '/servers/%s/topology' % instance_id
    assert member_client.get(topology, **mv('2.77')).status_int == 404
    assert member_client.get(topology, **mv('2.78')).json == {'nodes': [],
                                                             'pagesize_kb': None}


def test_unknown_query_parameters_are_400_from_2_75(member_client):
    for path in ('/flavors?foo=1', '/flavors/detail?foo=1', '/limits?foo=1'):
        assert member_client.get(V + path, **mv('2.74')).status_int == 200, path
        refused = member_client.get(V + path, **mv('2.75'))
        assert refused.status_int == 400, path
        assert "'foo' was unexpected" in fault(refused)[1]
