"""Keystone's v3 resources beyond tokens: domains, groups, roles and their
assignments, regions, services, endpoints, credentials, password change."""

from tests.unit.api.test_identity import assert_keystone_error

V3 = '/identity/v3'


def _create(client, kind, body, plural=None):
    response = client.post('%s/%s' % (V3, plural or kind + 's'), {kind: body})
    assert response.status_int == 201, response.text
    return response.json[kind]


def _token(client, user_id, password, project_id=None, domain=None):
    auth = {'identity': {'methods': ['password'], 'password': {'user': {
        'id': user_id, 'password': password}}}}
    if project_id:
        auth['scope'] = {'project': {'id': project_id}}
    if domain:
        auth['identity']['password']['user']['domain'] = domain
    return client.post(V3 + '/auth/tokens', {'auth': auth})


def test_domain_lifecycle_and_cascade(admin_client):
    domain = _create(admin_client, 'domain', {'name': 'd1', 'description': 'x'})
    assert (domain['enabled'], domain['description']) == (True, 'x')
    assert_keystone_error(admin_client.post(V3 + '/domains', {'domain': {'name': 'd1'}}),
                          409)
    assert_keystone_error(admin_client.post(V3 + '/domains', {'domain': {'name': ''}}),
                          400)
    user = _create(admin_client, 'user', {'name': 'u1', 'password': 'pw-u1-12345',
                                          'domain_id': domain['id']})
    group = _create(admin_client, 'group', {'name': 'g1', 'domain_id': domain['id']})
    url = '%s/domains/%s' % (V3, domain['id'])
    assert_keystone_error(admin_client.delete(url), 403)  # enabled
    listed = admin_client.get(V3 + '/domains?enabled=false').json['domains']
    assert listed == []
    assert admin_client.patch(url, {'domain': {'enabled': False}}).status_int == 200
    assert admin_client.delete(url).status_int == 204
    for path in (url, '%s/users/%s' % (V3, user['id']), '%s/groups/%s' % (V3, group['id'])):
        assert_keystone_error(admin_client.get(path), 404)
    assert_keystone_error(admin_client.delete(url), 404)


def test_users_authenticate_in_their_domain(client, admin_client):
    domain = _create(admin_client, 'domain', {'name': 'd2'})
    project = _create(admin_client, 'project', {'name': 'p2', 'domain_id': domain['id']})
    user = _create(admin_client, 'user', {'name': 'u2', 'password': 'pw-u2-12345',
                                          'domain_id': domain['id']})
    assert admin_client.put('%s/projects/%s/users/%s/roles/member' % (
        V3, project['id'], user['id'])).status_int == 204
    response = _token(client, user['id'], 'pw-u2-12345', project['id'],
                      {'name': 'd2'})
    assert response.status_int == 201, response.text
    token = response.json['token']
    assert token['user']['domain'] == {'id': domain['id'], 'name': 'd2'}
    assert token['project']['domain'] == {'id': domain['id'], 'name': 'd2'}
    assert token['roles'] == [{'id': 'member', 'name': 'member'}]
    assert_keystone_error(_token(client, user['id'], 'pw-u2-12345', project['id'],
                                 {'name': 'Default'}), 401)
    admin_client.patch('%s/domains/%s' % (V3, domain['id']),
                       {'domain': {'enabled': False}})
    assert_keystone_error(_token(client, user['id'], 'pw-u2-12345', project['id']), 401)


def test_group_roles_reach_members_tokens(client, admin_client):
    project = _create(admin_client, 'project', {'name': 'p3'})
    role = _create(admin_client, 'role', {'name': 'custom'})
    implied = _create(admin_client, 'role', {'name': 'implied'})
    user = _create(admin_client, 'user', {'name': 'u3', 'password': 'pw-u3-12345'})
    group = _create(admin_client, 'group', {'name': 'g3'})
    grant = '%s/projects/%s/groups/%s/roles/%s' % (V3, project['id'], group['id'],
                                                   role['id'])
    assert admin_client.put(grant).status_int == 204
    assert admin_client.head(grant).status_int == 204
    member = '%s/groups/%s/users/%s' % (V3, group['id'], user['id'])
    assert admin_client.head(member).status_int == 404
    assert admin_client.put(member).status_int == 204
    assert admin_client.head(member).status_int == 204
    assert admin_client.put('%s/roles/%s/implies/%s' % (V3, role['id'], implied['id']))\
        .status_int == 201
    response = _token(client, user['id'], 'pw-u3-12345', project['id'])
    assert response.status_int == 201, response.text
    assert sorted(r['name'] for r in response.json['token']['roles']) == [
        'custom', 'implied']
    found = admin_client.get(V3 + '/role_assignments?effective&user.id=' + user['id'])\
        .json['role_assignments']
    assert sorted(a['role']['id'] for a in found) == sorted([role['id'], implied['id']])
    assert all('membership' in a['links'] for a in found)
    direct = admin_client.get(V3 + '/role_assignments?include_names&group.id='
                              + group['id']).json['role_assignments']
    assert [(a['role']['name'], a['group']['name'], a['scope']['project']['name'])
            for a in direct] == [('custom', 'g3', 'p3')]
    groups = admin_client.get('%s/users/%s/groups' % (V3, user['id'])).json['groups']
    assert [g['name'] for g in groups] == ['g3']
    assert admin_client.delete(member).status_int == 204
    assert_keystone_error(_token(client, user['id'], 'pw-u3-12345', project['id']), 401)


def test_roles_domain_specific_and_system_grants(admin_client):
    domain = _create(admin_client, 'domain', {'name': 'd4'})
    global_role = _create(admin_client, 'role', {'name': 'r4'})
    domain_role = _create(admin_client, 'role', {'name': 'r4', 'domain_id': domain['id']})
    assert_keystone_error(admin_client.post(V3 + '/roles', {'role': {'name': 'r4'}}), 409)
    listed = admin_client.get(V3 + '/roles?domain_id=' + domain['id']).json['roles']
    assert [r['id'] for r in listed] == [domain_role['id']]
    assert_keystone_error(admin_client.put('%s/roles/%s/implies/%s' % (
        V3, global_role['id'], domain_role['id'])), 403)
    user = _create(admin_client, 'user', {'name': 'u4', 'password': 'pw-u4-12345'})
    system = '%s/system/users/%s/roles' % (V3, user['id'])
    assert admin_client.put(system + '/' + global_role['id']).status_int == 204
    assert [r['id'] for r in admin_client.get(system).json['roles']] == [
        global_role['id']]
    assert admin_client.delete(system + '/' + global_role['id']).status_int == 204
    assert admin_client.head(system + '/' + global_role['id']).status_int == 404
    renamed = admin_client.patch('%s/roles/%s' % (V3, global_role['id']),
                                 {'role': {'name': 'r4b'}}).json['role']
    assert renamed['name'] == 'r4b'
    assert_keystone_error(admin_client.delete(V3 + '/roles/admin'), 403)


def test_catalog_follows_services_and_endpoints(admin_client):
    region = admin_client.put(V3 + '/regions/r5', {'region': {'description': 'x'}})
    assert region.status_int == 201, region.text
    service = _create(admin_client, 'service', {'type': 'dns', 'name': 'designate'})
    endpoint = _create(admin_client, 'endpoint', {
        'service_id': service['id'], 'interface': 'public', 'region_id': 'r5',
        'url': 'http://dns.example/v2'})
    assert endpoint['region'] == 'r5'
    catalog = admin_client.get(V3 + '/auth/catalog').json['catalog']
    entry = next(e for e in catalog if e['type'] == 'dns')
    assert entry['endpoints'][0]['url'] == 'http://dns.example/v2'
    types = {s['type'] for s in admin_client.get(V3 + '/services').json['services']}
    assert {'identity', 'compute', 'dns'} <= types
    listed = admin_client.get(V3 + '/endpoints?service_id=' + service['id']).json
    assert [e['id'] for e in listed['endpoints']] == [endpoint['id']]
    assert_keystone_error(admin_client.delete(V3 + '/regions/nowhere'), 404)
    assert admin_client.delete('%s/services/%s' % (V3, service['id'])).status_int == 204
    assert_keystone_error(admin_client.get('%s/endpoints/%s' % (V3, endpoint['id'])),
                          404)
    catalog = admin_client.get(V3 + '/auth/catalog').json['catalog']
    assert 'dns' not in {e['type'] for e in catalog}
    own = admin_client.get(V3 + '/services?type=compute').json['services'][0]
    assert_keystone_error(admin_client.delete('%s/services/%s' % (V3, own['id'])), 403)


def test_credentials_are_their_owners(admin_client, member_client, make_token):
    me = member_client.get(V3 + '/auth/projects').json['projects'][0]
    user_id = admin_client.get(V3 + '/users?name=demo-member').json['users'][0]['id']
    mine = _create(member_client, 'credential', {'user_id': user_id, 'type': 'ec2',
                                                 'project_id': me['id'],
                                                 'blob': '{"access": "a", "secret": "s"}'})
    admin_id = admin_client.get(V3 + '/users?name=admin').json['users'][0]['id']
    theirs = _create(admin_client, 'credential', {'user_id': admin_id, 'type': 'totp',
                                                  'blob': 'secret'})
    listed = member_client.get(V3 + '/credentials').json['credentials']
    assert [c['id'] for c in listed] == [mine['id']]
    assert_keystone_error(member_client.get(V3 + '/credentials/' + theirs['id']), 404)
    assert len(admin_client.get(V3 + '/credentials').json['credentials']) == 2
    updated = admin_client.patch(V3 + '/credentials/' + theirs['id'],
                                 {'credential': {'blob': 'other'}}).json['credential']
    assert updated['blob'] == 'other'
    assert member_client.delete(V3 + '/credentials/' + mine['id']).status_int == 204


def test_password_change_needs_the_original(client, admin_client):
    user = _create(admin_client, 'user', {'name': 'u6', 'password': 'pw-u6-12345'})
    url = '%s/users/%s/password' % (V3, user['id'])
    wrong = client.post(url, {'user': {'original_password': 'nope',
                                       'password': 'pw-u6-new'}})
    assert_keystone_error(wrong, 401)
    right = client.post(url, {'user': {'original_password': 'pw-u6-12345',
                                       'password': 'pw-u6-new'}})
    assert right.status_int == 204, right.text
    assert _token(client, user['id'], 'pw-u6-new').status_int == 201
    assert_keystone_error(_token(client, user['id'], 'pw-u6-12345'), 401)


def test_project_attributes_and_filters(admin_client):
    parent = _create(admin_client, 'project', {'name': 'p7', 'tags': ['a']})
    child = _create(admin_client, 'project', {'name': 'p7c', 'parent_id': parent['id'],
                                              'enabled': False})
    assert (child['parent_id'], child['enabled']) == (parent['id'], False)
    assert parent['parent_id'] == 'default' and parent['tags'] == ['a']
    found = admin_client.get(V3 + '/projects?parent_id=' + parent['id']).json
    assert [p['id'] for p in found['projects']] == [child['id']]
    found = admin_client.get(V3 + '/projects?enabled=false').json['projects']
    assert [p['id'] for p in found] == [child['id']]
    tags = '%s/projects/%s/tags' % (V3, parent['id'])
    assert admin_client.put(tags + '/b').status_int == 201
    assert admin_client.get(tags).json['tags'] == ['a', 'b']
    assert admin_client.delete(tags + '/a').status_int == 204
    assert_keystone_error(admin_client.get(tags + '/a'), 404)


def test_system_scope_is_for_the_identity_api(client, admin_client):
    user = _create(admin_client, 'user', {'name': 'u8', 'password': 'pw-u8-12345'})
    auth = {'identity': {'methods': ['password'], 'password': {'user': {
        'id': user['id'], 'password': 'pw-u8-12345'}}}, 'scope': {'system': {'all': True}}}
    assert_keystone_error(client.post(V3 + '/auth/tokens', {'auth': auth}), 401)
    assert admin_client.put('%s/system/users/%s/roles/reader' % (V3, user['id']))\
        .status_int == 204
    response = client.post(V3 + '/auth/tokens', {'auth': auth})
    assert response.status_int == 201, response.text
    token = response.json['token']
    assert token['system'] == {'all': True} and 'project' not in token
    assert token['roles'] == [{'id': 'reader', 'name': 'reader'}]
    system = client.as_(response.headers['X-Subject-Token'])
    assert system.get(V3 + '/auth/system').json['system'] == [{'all': True}]
    assert system.get('/compute/v2.1/servers').status_int == 403
