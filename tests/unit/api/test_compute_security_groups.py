"""Nova's security group proxy (os-security-groups, os-security-group-rules): the
same groups as Neutron's API, in Nova's shapes and with Nova's errors."""

import uuid

from tests.unit.api.compute import fault
from tests.unit.api.compute import microversion
from tests.unit.api.compute import V

NET = '/network/v2.0/'


def _group(client, name='web', description='web servers'):
    created = client.post(V + '/os-security-groups', {'security_group': {
        'name': name, 'description': description}})
    assert created.status_int == 200, created.text
    return created.json['security_group']


def test_a_group_made_through_nova_is_neutrons_group(member_client):
    group = _group(member_client)
    assert (group['name'], group['description'], group['rules']) == (
        'web', 'web servers', [])  # Neutron's egress rules are not Nova's to show
    seen = member_client.get(NET + 'security-groups/' + group['id']).json
    assert seen['security_group']['name'] == 'web'
    listed = member_client.get(V + '/os-security-groups').json['security_groups']
    assert [g['name'] for g in listed] == ['default', 'web']
    renamed = member_client.put(V + '/os-security-groups/' + group['id'], {
        'security_group': {'name': 'web2', 'description': 'd'}})
    assert renamed.json['security_group']['name'] == 'web2'
    assert member_client.delete(V + '/os-security-groups/' + group['id']).status_int == 202
    gone = member_client.get(V + '/os-security-groups/' + group['id'])
    assert gone.status_int == 404 and fault(gone)[0] == 'itemNotFound'


def test_ids_names_and_the_default_group_answer_as_nova(member_client):
    assert member_client.get(V + '/os-security-groups/not-a-uuid').status_int == 400
    assert member_client.get(V + '/os-security-groups/%s' % uuid.uuid4()).status_int == 404
    for bad in ({'name': 'x' * 256, 'description': ''}, {'name': 'x'},
                {'name': 1, 'description': ''}):
        refused = member_client.post(V + '/os-security-groups', {'security_group': bad})
        assert refused.status_int == 400, bad
    [default] = [g for g in member_client.get(V + '/os-security-groups').json[
        'security_groups'] if g['name'] == 'default']
    refused = member_client.delete(V + '/os-security-groups/' + default['id'])
    assert refused.status_int == 400
    assert member_client.get(V + '/os-security-groups', headers=microversion(
        '2.36')).status_int == 404


def test_rules_are_ingress_rules_checked_as_nova_checks_them(member_client):
    group, peer = _group(member_client), _group(member_client, 'peer')
    rules = V + '/os-security-group-rules'
    made = member_client.post(rules, {'security_group_rule': {
        'parent_group_id': group['id'], 'ip_protocol': 'tcp', 'from_port': 22,
        'to_port': 22, 'cidr': '10.0.0.0/8'}})
    assert made.status_int == 200, made.text
    rule = made.json['security_group_rule']
    assert {k: rule[k] for k in ('ip_protocol', 'from_port', 'to_port', 'ip_range',
                                 'group', 'parent_group_id')} == {
        'ip_protocol': 'tcp', 'from_port': 22, 'to_port': 22,
        'ip_range': {'cidr': '10.0.0.0/8'}, 'group': {}, 'parent_group_id': group['id']}
    neutron = member_client.get(NET + 'security-group-rules/' + rule['id']).json
    assert neutron['security_group_rule']['direction'] == 'ingress'
    from_peer = member_client.post(rules, {'security_group_rule': {
        'parent_group_id': group['id'], 'ip_protocol': 'icmp', 'from_port': -1,
        'to_port': -1, 'group_id': peer['id']}}).json['security_group_rule']
    assert from_peer['group'] == {'name': 'peer', 'tenant_id': peer['tenant_id']}
    assert (from_peer['from_port'], from_peer['to_port']) == (-1, -1)
    shown = member_client.get(V + '/os-security-groups/' + group['id']).json
    assert len(shown['security_group']['rules']) == 2
    bad = [{'ip_protocol': 'tcp', 'from_port': 22, 'to_port': 22},  # duplicate
           {'ip_protocol': 'tempest-999', 'from_port': 22, 'to_port': 22},
           {'ip_protocol': 'tcp', 'from_port': 65536, 'to_port': 22},
           {'ip_protocol': 'tcp', 'from_port': 22, 'to_port': 70000},
           {'ip_protocol': 'tcp', 'from_port': 80, 'to_port': 22},
           {'ip_protocol': 'tcp', 'from_port': 22, 'to_port': 22, 'cidr': '1.2.3.4/0'},
           {'cidr': '10.0.0.0/8'}]
    for body in bad:
        body = dict(body, parent_group_id=group['id'])
        if 'cidr' not in body:
            body['cidr'] = '10.0.0.0/8'
        refused = member_client.post(rules, {'security_group_rule': body})
        assert refused.status_int == 400, (body, refused.text)
    assert member_client.post(rules, {'security_group_rule': {
        'parent_group_id': 'x', 'ip_protocol': 'tcp', 'from_port': 1,
        'to_port': 2}}).status_int == 400
    assert member_client.post(rules, {'security_group_rule': {
        'parent_group_id': str(uuid.uuid4()), 'ip_protocol': 'tcp', 'from_port': 1,
        'to_port': 2}}).status_int == 404
    assert member_client.delete(rules + '/' + rule['id']).status_int == 202
    assert member_client.delete(rules + '/' + rule['id']).status_int == 404
    assert member_client.delete(rules + '/nope').status_int == 400


def test_another_projects_groups_are_not_found_and_admins_list_them_on_request(
        member_client, admin_client):
    group = _group(member_client)
    assert admin_client.get(V + '/os-security-groups/' + group['id']).status_int == 200
    own = admin_client.get(V + '/os-security-groups').json['security_groups']
    assert group['id'] not in {g['id'] for g in own}
    every = admin_client.get(V + '/os-security-groups?all_tenants=1').json
    assert group['id'] in {g['id'] for g in every['security_groups']}
