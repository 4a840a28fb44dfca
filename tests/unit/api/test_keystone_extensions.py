"""Keystone's v3 extensions: OS-INHERIT, OS-EC2, OS-EP-FILTER endpoint groups,
OS-OAUTH1 consumers, a domain's configuration, a project acting as a domain."""

from tests.unit.api.test_identity import assert_keystone_error
from tests.unit.api.test_keystone_resources import _create
from tests.unit.api.test_keystone_resources import _token
from tests.unit.api.test_keystone_resources import V3


def test_inherited_domain_role_reaches_its_projects(client, admin_client):
    domain = _create(admin_client, 'domain', {'name': 'inh'})
    top = _create(admin_client, 'project', {'name': 'inh-top', 'domain_id': domain['id']})
    leaf = _create(admin_client, 'project', {'name': 'inh-leaf',
                                             'parent_id': top['id']})
    user = _create(admin_client, 'user', {'name': 'inh-u', 'password': 'pw-inh-1234',
                                          'domain_id': domain['id']})
    grant = '%s/OS-INHERIT/domains/%s/users/%s/roles/member/inherited_to_projects' % (
        V3, domain['id'], user['id'])
    assert admin_client.put(grant).status_int == 204
    assert admin_client.head(grant).status_int == 204
    for project in (top, leaf):
        response = _token(client, user['id'], 'pw-inh-1234', project['id'])
        assert response.status_int == 201, response.text
        found = admin_client.get('%s/role_assignments?effective&user.id=%s&'
                                 'scope.project.id=%s' % (V3, user['id'], project['id']))
        assert [a['role']['id'] for a in found.json['role_assignments']] == ['member']
    listed = admin_client.get(V3 + '/role_assignments?user.id=' + user['id'])
    [assignment] = listed.json['role_assignments']
    assert assignment['scope'] == {'domain': {'id': domain['id']},
                                   'OS-INHERIT:inherited_to': 'projects'}
    assert admin_client.delete(grant).status_int == 204
    assert_keystone_error(_token(client, user['id'], 'pw-inh-1234', leaf['id']), 401)
    # Under a project: its subtree, not the project itself.
    subtree = '%s/OS-INHERIT/projects/%s/users/%s/roles/member/inherited_to_projects' % (
        V3, top['id'], user['id'])
    assert admin_client.put(subtree).status_int == 204
    assert _token(client, user['id'], 'pw-inh-1234', leaf['id']).status_int == 201
    assert_keystone_error(_token(client, user['id'], 'pw-inh-1234', top['id']), 401)


def test_ec2_credentials_of_their_user(member_client, admin_client):
    me = member_client.get(V3 + '/auth/tokens', headers={
        'X-Subject-Token': member_client.token}).json['token']
    url = '%s/users/%s/credentials/OS-EC2' % (V3, me['user']['id'])
    response = member_client.post(url, {'tenant_id': me['project']['id']})
    assert response.status_int == 201, response.text
    made = response.json['credential']
    assert made['access'] and made['secret'] and made['tenant_id'] == me['project']['id']
    listed = member_client.get(url).json['credentials']
    assert [c['access'] for c in listed] == [made['access']]
    shown = member_client.get(url + '/' + made['access']).json['credential']
    assert shown['secret'] == made['secret']
    assert member_client.delete(url + '/' + made['access']).status_int == 204
    assert_keystone_error(member_client.get(url + '/' + made['access']), 404)
    admin_id = admin_client.get(V3 + '/users?name=admin').json['users'][0]['id']
    assert_keystone_error(member_client.get('%s/users/%s/credentials/OS-EC2'
                                            % (V3, admin_id)), 403)


def test_endpoint_groups_and_consumers(admin_client, member_client):
    group = _create(admin_client, 'endpoint_group', {
        'name': 'eg', 'filters': {'interface': 'public'}}, 'OS-EP-FILTER/endpoint_groups')
    url = '%s/OS-EP-FILTER/endpoint_groups/%s' % (V3, group['id'])
    assert admin_client.head(url).status_int == 200
    updated = admin_client.patch(url, {'endpoint_group': {'name': 'eg2'}})
    assert updated.json['endpoint_group']['name'] == 'eg2'
    assert admin_client.delete(url).status_int == 204
    assert_keystone_error(admin_client.get(url), 404)
    consumer = _create(admin_client, 'consumer', {'description': 'c'},
                       'OS-OAUTH1/consumers')
    assert consumer['secret']
    url = '%s/OS-OAUTH1/consumers/%s' % (V3, consumer['id'])
    assert 'secret' not in admin_client.get(url).json['consumer']
    assert_keystone_error(member_client.get(url), 403)
    assert admin_client.delete(url).status_int == 204


def test_domain_configuration(admin_client):
    domain = _create(admin_client, 'domain', {'name': 'cfg'})
    url = '%s/domains/%s/config' % (V3, domain['id'])
    assert_keystone_error(admin_client.get(url), 404)
    config = {'identity': {'driver': 'ldap'}, 'ldap': {'url': 'ldap://x'}}
    response = admin_client.put(url, {'config': config})
    assert response.status_int == 201 and response.json['config'] == config
    assert_keystone_error(admin_client.put(url, {'config': {'other': {}}}), 403)
    merged = admin_client.patch(url + '/ldap', {'config': {'ldap': {'user': 'u'}}})
    assert merged.json['config']['ldap'] == {'url': 'ldap://x', 'user': 'u'}
    assert admin_client.get(url + '/ldap/user').json['config'] == {'user': 'u'}
    assert admin_client.delete(url + '/ldap/user').status_int == 204
    assert_keystone_error(admin_client.get(url + '/ldap/user'), 404)
    assert admin_client.delete(url).status_int == 204
    assert_keystone_error(admin_client.get(url), 404)
    defaults = admin_client.get(V3 + '/domains/config/identity/driver/default')
    assert defaults.json['config'] == {'driver': 'sql'}


def test_a_project_acting_as_a_domain(admin_client):
    project = _create(admin_client, 'project', {'name': 'as-domain', 'is_domain': True})
    assert (project['is_domain'], project['domain_id']) == (True, None)
    shown = admin_client.get('%s/domains/%s' % (V3, project['id'])).json['domain']
    assert shown['name'] == 'as-domain'
    listed = admin_client.get(V3 + '/projects?is_domain=true').json['projects']
    assert project['id'] in [p['id'] for p in listed]
    assert project['id'] not in [p['id'] for p in admin_client.get(
        V3 + '/projects').json['projects']]
    url = '%s/projects/%s' % (V3, project['id'])
    assert_keystone_error(admin_client.delete(url), 403)  # enabled
    assert admin_client.patch(url, {'project': {'enabled': False}}).status_int == 200
    assert admin_client.delete(url).status_int == 204
    assert_keystone_error(admin_client.get('%s/domains/%s' % (V3, project['id'])), 404)
