"""Nova's os-hosts (2.1 - 2.42): the services' hosts, a host's resources, status."""

import pytest

from tests.unit.api.compute import fault
from tests.unit.api.compute import microversion
from tests.unit.api.compute import V

pytestmark = pytest.mark.usefixtures('test_hypervisor')


def test_hosts_list_their_services_by_zone(admin_client):
    hosts = admin_client.get(V + '/os-hosts').json['hosts']
    computes = [h for h in hosts if h['service'] == 'compute']
    assert len(computes) == 1 and {'scheduler', 'conductor'} <= {
        h['service'] for h in hosts}
    zone = computes[0]['zone']
    assert computes[0] in admin_client.get(V + '/os-hosts?zone=%s' % zone).json['hosts']
    assert admin_client.get(V + '/os-hosts?zone=').json['hosts'] == hosts
    assert admin_client.get(V + '/os-hosts?zone=xxx').json == {'hosts': []}
    assert admin_client.get(V + '/os-hosts', headers=microversion('2.43')).status_int \
        == 404


def test_a_host_shows_its_total_and_used_resources(admin_client):
    [compute] = [h for h in admin_client.get(V + '/os-hosts').json['hosts']
                 if h['service'] == 'compute']
    name = compute['host_name']
    resources = admin_client.get(V + '/os-hosts/' + name).json['host']
    assert [r['resource']['project'] for r in resources[:3]] == [
        '(total)', '(used_now)', '(used_max)']
    assert {r['resource']['host'] for r in resources} == {name}
    assert resources[0]['resource']['cpu'] > 0
    missing = admin_client.get(V + '/os-hosts/no-such-host')
    assert missing.status_int == 404 and fault(missing)[0] == 'itemNotFound'


def test_status_updates_and_what_libvirt_cannot_do(admin_client, member_client):
    [compute] = [h for h in admin_client.get(V + '/os-hosts').json['hosts']
                 if h['service'] == 'compute']
    path = V + '/os-hosts/' + compute['host_name']
    assert member_client.get(V + '/os-hosts').status_int == 403
    assert member_client.put(path, {'status': 'enable'}).status_int == 403
    for bad in ({}, {'status': 'invalid'}, {'maintenance_mode': 'x'},
                {'status': 'enable', 'other': 1}):
        assert admin_client.put(path, bad).status_int == 400, bad
    assert admin_client.put(V + '/os-hosts/nope', {'status': 'enable'}).status_int \
        == 404
    assert admin_client.put(path, {'status': 'disable'}).json == {
        'host': compute['host_name'], 'status': 'disabled'}
    service = admin_client.get(V + '/os-services').json['services'][0]
    assert service['status'] == 'disabled'
    assert admin_client.put(path, {'status': 'Enable'}).json['status'] == 'enabled'
    assert admin_client.put(path, {'maintenance_mode': 'enable'}).status_int == 501
    for action in ('startup', 'shutdown', 'reboot'):
        assert admin_client.get(path + '/' + action).status_int == 501
        assert admin_client.get(V + '/os-hosts/nope/' + action).status_int == 404
        assert member_client.get(path + '/' + action).status_int == 403


def test_the_extension_list_names_what_is_served(member_client):
    listed = member_client.get(V + '/extensions').json['extensions']
    assert {'Hosts', 'SecurityGroups', 'FlavorAccess'} <= {e['name'] for e in listed}
    shown = member_client.get(V + '/extensions/os-consoles').json['extension']
    assert shown['alias'] == 'os-consoles'
    assert member_client.get(V + '/extensions/os-nope').status_int == 404


def test_the_usage_audit_log_says_no_host_ran_it(admin_client, member_client):
    log = admin_client.get(V + '/os-instance_usage_audit_log').json[
        'instance_usage_audit_logs']
    assert log['num_hosts'] == log['num_hosts_not_run'] == len(log['hosts_not_run']) >= 1
    assert log['overall_status'] == '0 of %d hosts done. 0 errors.' % log['num_hosts']
    dated = admin_client.get(V + '/os-instance_usage_audit_log/2026-03-15%2010:00:00')
    assert (dated.json['instance_usage_audit_log']['period_beginning'],
            dated.json['instance_usage_audit_log']['period_ending']) == (
        '2026-02-01 00:00:00', '2026-03-01 00:00:00')
    assert admin_client.get(V + '/os-instance_usage_audit_log/nope').status_int == 400
    assert member_client.get(V + '/os-instance_usage_audit_log').status_int == 403


def test_external_events_are_acknowledged_for_servers_that_exist(admin_client,
                                                                  member_client):
    missing = '8b0a6d2e-9d7a-4a34-9f3b-2f1c1c1c1c1c'
    events = {'events': [{'name': 'network-changed', 'server_uuid': missing}]}
    answered = admin_client.post(V + '/os-server-external-events', events)
    assert answered.status_int == 404
    assert answered.json['events'][0]['code'] == 404
    assert member_client.post(V + '/os-server-external-events', events).status_int \
        == 403
    assert admin_client.post(V + '/os-server-external-events', {'events': [
        {'name': 'volume-extended', 'server_uuid': missing}]}).status_int == 400
