"""Identity v3 through the WSGI application: discovery, tokens, projects, users, roles."""

import datetime
import re

import pytest

from provisioner.api import app as api_app
from provisioner.api import identity
from tests.unit.api import conftest

STAMP = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$')


@pytest.fixture
def app():
    # Identity alone: these tests do not depend on the other services.
    return api_app.Application(None, {'/identity': identity.SERVICE})


def password_auth(user='admin', password=conftest.ADMIN_PASSWORD, project='admin',
                  by_id=None):
    user_ref = {'password': password, 'name': user, 'domain': {'name': 'Default'}}
    project_ref = {'name': project, 'domain': {'name': 'Default'}}
    if by_id:
        user_ref = {'password': password, 'id': by_id[0]}
        project_ref = {'id': by_id[1]}
    return {'auth': {'identity': {'methods': ['password'],
                                  'password': {'user': user_ref}},
                     'scope': {'project': project_ref}}}


def assert_keystone_error(response, status):
    assert response.status_int == status, response.text
    error = response.json['error']
    assert error['code'] == status and error['title'] and error['message']


# -- discovery ----------------------------------------------------------------------

def test_versions_are_served_without_a_token(client):
    response = client.get('/identity')
    assert response.status_int == 300
    (version,) = response.json['versions']['values']
    assert version['id'].startswith('v3.') and version['status'] == 'stable'
    assert version['links'] == [{'rel': 'self', 'href': 'http://localhost/identity/v3/'}]
    assert response.headers['Location'] == 'http://localhost/identity/v3/'
    response = client.get('/identity/v3')
    assert response.status_int == 200
    assert response.json['version'] == version


def test_the_public_url_option_is_the_self_link(client, conf):
    conf.set_override('public_url', 'https://cloud.example:8774/', 'api')
    href = client.get('/identity/v3/').json['version']['links'][0]['href']
    assert href == 'https://cloud.example:8774/identity/v3/'


# -- POST /v3/auth/tokens -------------------------------------------------------------

def test_password_token_by_names(client, admin_context):
    response = client.post('/identity/v3/auth/tokens', password_auth())
    assert response.status_int == 201, response.text
    assert response.headers['X-Subject-Token']
    token = response.json['token']
    assert token['methods'] == ['password']
    assert token['user'] == {'id': admin_context.user_id, 'name': 'admin',
                             'domain': {'id': 'default', 'name': 'Default'},
                             'password_expires_at': None}
    assert token['project'] == {'id': admin_context.project_id, 'name': 'admin',
                                'domain': {'id': 'default', 'name': 'Default'}}
    assert token['roles'] == [{'id': 'admin', 'name': 'admin'}]
    assert STAMP.match(token['expires_at']) and STAMP.match(token['issued_at'])
    assert token['expires_at'] > token['issued_at']
    assert token['is_domain'] is False and len(token['audit_ids']) == 1
    urls = {entry['type']: entry['endpoints'][0]['url'] for entry in token['catalog']}
    assert urls == {'identity': 'http://localhost/identity',
                    'compute': 'http://localhost/compute/v2.1',
                    'image': 'http://localhost/image',
                    'network': 'http://localhost/network',
                    'block-storage': 'http://localhost/volume/v3/%s'
                                     % admin_context.project_id}
    endpoint = token['catalog'][0]['endpoints'][0]
    assert endpoint['interface'] == 'public'
    assert endpoint['region'] == endpoint['region_id'] == 'RegionOne'
    assert endpoint['id']


def test_password_token_by_ids(client, admin_context):
    body = password_auth(by_id=(admin_context.user_id, admin_context.project_id))
    response = client.post('/identity/v3/auth/tokens', body)
    assert response.status_int == 201, response.text
    assert response.json['token']['project']['name'] == 'admin'


def test_the_issued_token_works_for_other_calls(client, admin_context):
    token = client.post('/identity/v3/auth/tokens',
                        password_auth()).headers['X-Subject-Token']
    assert client.as_(token).get('/identity/v3/projects').status_int == 200


@pytest.mark.parametrize('body', [
    password_auth(password='wrong-password'),
    password_auth(user='nobody'),
    password_auth(project='nowhere'),
])
def test_bad_credentials_are_401(client, admin_context, body):
    response = client.post('/identity/v3/auth/tokens', body)
    assert_keystone_error(response, 401)
    assert 'X-Subject-Token' not in response.headers


def _unscoped(client, user='admin', password=conftest.ADMIN_PASSWORD, user_id=None):
    """An unscoped token as tempest asks for it: the user by id and name, with its
    domain by id, and no scope."""
    user_ref = {'name': user, 'password': password, 'domain': {'id': 'default'}}
    if user_id:
        user_ref['id'] = user_id
    return client.post('/identity/v3/auth/tokens', {'auth': {'identity': {
        'methods': ['password'], 'password': {'user': user_ref}}}})


def test_an_unscoped_token_names_the_user_only(client, admin_context):
    response = _unscoped(client, user_id=admin_context.user_id)
    assert response.status_int == 201, response.text
    token = response.json['token']
    assert set(token) == {'methods', 'user', 'expires_at', 'issued_at', 'audit_ids'}
    assert token['user']['id'] == admin_context.user_id
    assert token['methods'] == ['password']
    unscoped = response.headers['X-Subject-Token']
    # No service takes it: it is for getting a project-scoped token.
    assert_keystone_error(client.as_(unscoped).get('/identity/v3/auth/catalog'), 401)
    scoped = client.post('/identity/v3/auth/tokens', {'auth': {
        'identity': {'methods': ['token'], 'token': {'id': unscoped}},
        'scope': {'project': {'name': 'admin', 'domain': {'id': 'default'}}}}})
    assert scoped.status_int == 201, scoped.text
    assert scoped.json['token']['project']['name'] == 'admin'
    assert scoped.json['token']['expires_at'][:16] == token['expires_at'][:16]
    renewed = client.post('/identity/v3/auth/tokens', {'auth': {
        'identity': {'methods': ['token'], 'token': {'id': unscoped}}}})
    assert renewed.status_int == 201 and 'project' not in renewed.json['token']


def test_an_unscoped_token_is_validated_as_keystone_shows_it(admin_client, client):
    unscoped = _unscoped(client).headers['X-Subject-Token']
    response = admin_client.get('/identity/v3/auth/tokens',
                                headers={'X-Subject-Token': unscoped})
    assert response.status_int == 200, response.text
    assert 'project' not in response.json['token']
    assert 'catalog' not in response.json['token']


def test_unscoped_with_a_wrong_password_is_401(client, admin_context):
    assert_keystone_error(_unscoped(client, password='wrong-password'), 401)


def test_a_domain_scope_or_another_domain_is_refused(client, admin_context):
    body = password_auth()
    body['auth']['scope'] = {'domain': {'id': 'default'}}
    assert_keystone_error(client.post('/identity/v3/auth/tokens', body), 401)
    body = password_auth()
    body['auth']['scope']['project']['domain'] = {'name': 'Other'}
    assert_keystone_error(client.post('/identity/v3/auth/tokens', body), 401)


@pytest.mark.parametrize('raw,status', [
    (b'{not json', 400),
    (b'[]', 400),
    (b'{"auth": {"identity": {"methods": "password"}}}', 400),
    (b'{"auth": {"identity": {"methods": ["password"], "password": {"user": '
     b'{"name": "admin"}}}}}', 400),
    (b'{"auth": {"identity": {"methods": ["totp"]}, "scope": {"project": '
     b'{"id": "x"}}}}', 401),
])
def test_malformed_requests(client, admin_context, raw, status):
    response = client.request('POST', '/identity/v3/auth/tokens', raw=raw)
    assert_keystone_error(response, status)


def test_token_method_renews_without_extending(client, admin_token):
    body = {'auth': {'identity': {'methods': ['token'], 'token': {'id': admin_token}}}}
    response = client.post('/identity/v3/auth/tokens', body)
    assert response.status_int == 201, response.text
    renewed = response.json['token']
    old = client.as_(admin_token).get(
        '/identity/v3/auth/tokens', headers={'X-Subject-Token': admin_token}
    ).json['token']
    assert renewed['methods'] == ['password', 'token']  # Keystone's: they add up
    assert renewed['project']['name'] == 'admin'
    gap = (datetime.datetime.fromisoformat(old['expires_at'].rstrip('Z'))
           - datetime.datetime.fromisoformat(renewed['expires_at'].rstrip('Z')))
    assert abs(gap.total_seconds()) < 2


def test_token_method_rescopes_only_where_the_user_has_a_role(client, make_token):
    token = make_token('alice', 'member', 'demo')
    make_token('alice', 'reader', 'other')
    body = {'auth': {'identity': {'methods': ['token'], 'token': {'id': token}},
                     'scope': {'project': {'name': 'other',
                                           'domain': {'id': 'default'}}}}}
    response = client.post('/identity/v3/auth/tokens', body)
    assert response.status_int == 201, response.text
    assert response.json['token']['roles'] == [{'id': 'reader', 'name': 'reader'}]
    body['auth']['scope']['project']['name'] = 'admin'
    assert_keystone_error(client.post('/identity/v3/auth/tokens', body), 401)
    body['auth']['identity']['token']['id'] = 'forged'
    body['auth']['scope']['project']['name'] = 'other'
    # Keystone's: a token that does not validate is not found.
    assert_keystone_error(client.post('/identity/v3/auth/tokens', body), 404)


# -- GET/HEAD /v3/auth/tokens, the catalog ------------------------------------------

def test_validate_a_token(admin_client, admin_token):
    response = admin_client.get('/identity/v3/auth/tokens',
                                headers={'X-Subject-Token': admin_token})
    assert response.status_int == 200
    assert response.headers['X-Subject-Token'] == admin_token
    assert response.json['token']['user']['name'] == 'admin'
    assert 'catalog' in response.json['token']
    response = admin_client.get('/identity/v3/auth/tokens?nocatalog',
                                headers={'X-Subject-Token': admin_token})
    assert 'catalog' not in response.json['token']
    response = admin_client.head('/identity/v3/auth/tokens',
                                 headers={'X-Subject-Token': admin_token})
    assert response.status_int == 200 and not response.body


def test_validate_an_invalid_token_is_404(admin_client):
    response = admin_client.get('/identity/v3/auth/tokens',
                                headers={'X-Subject-Token': 'gAAAAAforged'})
    assert_keystone_error(response, 404)
    assert 'forged' not in response.text


def test_a_member_validates_only_their_own_tokens(member_client, admin_token):
    own = member_client.get('/identity/v3/auth/tokens',
                            headers={'X-Subject-Token': member_client.token})
    assert own.status_int == 200
    other = member_client.get('/identity/v3/auth/tokens',
                              headers={'X-Subject-Token': admin_token})
    assert_keystone_error(other, 403)


def test_delete_a_token(client, admin_client, make_token):
    token = make_token('ivan')
    mine = client.as_(token)
    second = make_token('ivan')
    assert mine.head('/identity/v3/auth/tokens',
                     headers={'X-Subject-Token': token}).status_int == 200
    response = mine.delete('/identity/v3/auth/tokens', headers={'X-Subject-Token': token})
    assert response.status_int == 204, response.text
    assert_keystone_error(mine.get('/identity/v3/auth/catalog'), 401)
    assert admin_client.head('/identity/v3/auth/tokens',
                             headers={'X-Subject-Token': token}).status_int == 404
    assert_keystone_error(admin_client.delete(
        '/identity/v3/auth/tokens', headers={'X-Subject-Token': token}), 404)
    # The user's other tokens go on.
    assert client.as_(second).get('/identity/v3/auth/catalog').status_int == 200


def test_a_member_revokes_only_their_own_tokens(member_client, admin_token):
    assert_keystone_error(member_client.delete(
        '/identity/v3/auth/tokens', headers={'X-Subject-Token': admin_token}), 403)


def test_requests_without_a_valid_token_are_401(client, admin_context):
    assert_keystone_error(client.get('/identity/v3/projects'), 401)
    assert_keystone_error(client.as_('forged').get('/identity/v3/auth/catalog'), 401)


def test_auth_catalog_and_projects(member_client):
    catalog = member_client.get('/identity/v3/auth/catalog').json['catalog']
    assert [entry['type'] for entry in catalog] == [
        'identity', 'compute', 'image', 'network', 'block-storage']
    projects = member_client.get('/identity/v3/auth/projects').json['projects']
    assert [p['name'] for p in projects] == ['demo']


# -- domains, projects ---------------------------------------------------------------

def test_the_default_domain(admin_client, member_client):
    domains = admin_client.get('/identity/v3/domains').json['domains']
    assert [(d['id'], d['name']) for d in domains] == [('default', 'Default')]
    assert admin_client.get('/identity/v3/domains?name=Other').json['domains'] == []
    assert_keystone_error(member_client.get('/identity/v3/domains'), 403)
    assert member_client.get('/identity/v3/domains/default').status_int == 200
    assert_keystone_error(member_client.get('/identity/v3/domains/Default'), 404)


def test_project_create_list_show(admin_client):
    response = admin_client.post('/identity/v3/projects', {'project': {
        'name': 'demo', 'domain_id': 'default', 'enabled': True, 'description': 'x'}})
    assert response.status_int == 201, response.text
    project = response.json['project']
    assert project['name'] == 'demo' and project['domain_id'] == 'default'
    assert project['links']['self'].endswith('/identity/v3/projects/' + project['id'])
    assert_keystone_error(admin_client.post('/identity/v3/projects',
                                            {'project': {'name': 'demo'}}), 409)
    names = [p['name'] for p in admin_client.get('/identity/v3/projects').json['projects']]
    assert names == ['admin', 'demo']
    listed = admin_client.get('/identity/v3/projects?name=demo').json['projects']
    assert [p['id'] for p in listed] == [project['id']]
    shown = admin_client.get('/identity/v3/projects/' + project['id']).json['project']
    assert shown == project
    assert_keystone_error(admin_client.get('/identity/v3/projects/demo'), 404)


def test_another_domain_is_not_found(admin_client):
    for kind in ('project', 'user'):
        body = {kind: {'name': 'p', 'password': 'p-password-1', 'domain_id': 'other'}}
        assert_keystone_error(admin_client.post('/identity/v3/%ss' % kind, body), 404)
    body = {'project': {'name': 'p', 'domain_id': 'default'}}
    assert admin_client.post('/identity/v3/projects', body).status_int == 201


@pytest.mark.parametrize('body', [
    {'project': {'name': 'p', 'is_domain': 'yes'}},
    {'project': {'name': 'p' * 65}},
    {'project': {}},
    {'name': 'p'},
])
def test_project_create_refuses_what_provisioner_cannot_do(admin_client, body):
    assert_keystone_error(admin_client.post('/identity/v3/projects', body), 400)


def test_members_see_only_their_own_project(member_client, admin_context):
    assert_keystone_error(member_client.get('/identity/v3/projects'), 403)
    assert_keystone_error(member_client.post('/identity/v3/projects',
                                             {'project': {'name': 'x'}}), 403)
    assert_keystone_error(
        member_client.get('/identity/v3/projects/' + admin_context.project_id), 403)
    own = member_client.get('/identity/v3/auth/projects').json['projects'][0]
    assert member_client.get('/identity/v3/projects/' + own['id']).status_int == 200


# -- users -------------------------------------------------------------------------------

def _create_user(admin_client, name='bob', password='bob-password-1'):
    response = admin_client.post('/identity/v3/users', {'user': {
        'name': name, 'password': password, 'domain_id': 'default', 'enabled': True}})
    assert response.status_int == 201, response.text
    return response.json['user']


def test_user_create_list_show(admin_client):
    user = _create_user(admin_client)
    assert user['name'] == 'bob' and user['enabled'] is True
    assert 'password' not in user and user['domain_id'] == 'default'
    names = [u['name'] for u in admin_client.get('/identity/v3/users').json['users']]
    assert names == ['admin', 'bob']
    assert admin_client.get('/identity/v3/users?name=bob').json['users'] == [user]
    assert admin_client.get('/identity/v3/users?enabled=false').json['users'] == []
    assert admin_client.get('/identity/v3/users/' + user['id']).json['user'] == user
    assert_keystone_error(admin_client.get('/identity/v3/users/bob'), 404)
    assert_keystone_error(admin_client.post('/identity/v3/users', {'user': {
        'name': 'bob', 'password': 'another-pass-1'}}), 409)
    # Keystone's: a user without a password exists, and cannot authenticate.
    assert admin_client.post('/identity/v3/users', {'user': {
        'name': 'carol'}}).status_int == 201


def test_user_created_disabled(admin_client):
    response = admin_client.post('/identity/v3/users', {'user': {
        'name': 'dave', 'password': 'dave-password-1', 'enabled': False}})
    assert response.status_int == 201 and response.json['user']['enabled'] is False


def test_user_set_password_ends_old_tokens(client, admin_client, make_token):
    token = make_token('erin')
    user_id = client.as_(token).get('/identity/v3/auth/tokens', headers={
        'X-Subject-Token': token}).json['token']['user']['id']
    response = admin_client.patch('/identity/v3/users/' + user_id,
                                  {'user': {'password': 'new-password-99'}})
    assert response.status_int == 200, response.text
    assert_keystone_error(client.as_(token).get('/identity/v3/auth/catalog'), 401)
    assert client.post('/identity/v3/auth/tokens', password_auth(
        'erin', 'new-password-99', 'demo')).status_int == 201


def test_user_disable_enable(client, admin_client, make_token):
    make_token('frank')
    user = admin_client.get('/identity/v3/users?name=frank').json['users'][0]
    url = '/identity/v3/users/' + user['id']
    assert admin_client.patch(url, {'user': {'enabled': False}}).json['user'][
        'enabled'] is False
    login = password_auth('frank', 'pw-frank-123456', 'demo')
    assert_keystone_error(client.post('/identity/v3/auth/tokens', login), 401)
    assert admin_client.patch(url, {'user': {'enabled': True}}).json['user']['enabled']
    assert client.post('/identity/v3/auth/tokens', login).status_int == 201


def test_user_rename_and_attributes(admin_client):
    user = _create_user(admin_client)
    url = '/identity/v3/users/' + user['id']
    response = admin_client.patch(url, {'user': {'name': 'robert', 'email': 'r@x.tm',
                                                 'description': 'Rob'}})
    assert response.status_int == 200, response.text
    shown = admin_client.get(url).json['user']
    assert (shown['name'], shown['email'], shown['description']) == ('robert', 'r@x.tm',
                                                                    'Rob')
    assert_keystone_error(admin_client.patch(url, {'user': {'domain_id': 'other'}}), 400)


def test_user_delete_ends_their_tokens(client, admin_client, make_token):
    token = make_token('grace')
    user_id = client.as_(token).get('/identity/v3/auth/tokens', headers={
        'X-Subject-Token': token}).json['token']['user']['id']
    url = '/identity/v3/users/' + user_id
    response = admin_client.delete(url)
    assert response.status_int == 204, response.text
    assert_keystone_error(admin_client.get(url), 404)
    assert_keystone_error(client.as_(token).get('/identity/v3/auth/catalog'), 401)
    assert_keystone_error(admin_client.delete(url), 404)
    assert not admin_client.get('/identity/v3/role_assignments?user.id=' + user_id)\
        .json['role_assignments']
    # The name is free again.
    assert _create_user(admin_client, 'grace')['name'] == 'grace'


def test_project_delete_leaves_what_it_owns(client, admin_client, make_token):
    from provisioner.db import api as db_api
    from provisioner.db import models

    token = make_token('heidi', 'member', 'doomed')
    project_id = client.as_(token).get('/identity/v3/auth/tokens', headers={
        'X-Subject-Token': token}).json['token']['project']['id']
    with db_api.transaction() as session:  # what Nova would keep of the project
        session.add(models.QuotaLimit(project_id=project_id, resource='instances',
                                      hard_limit=3))
    url = '/identity/v3/projects/' + project_id
    response = admin_client.delete(url)
    assert response.status_int == 204, response.text
    assert_keystone_error(admin_client.get(url), 404)
    assert_keystone_error(client.as_(token).get('/identity/v3/auth/catalog'), 401)
    assert_keystone_error(admin_client.delete(url), 404)
    with db_api.transaction() as session:
        assert session.get(models.QuotaLimit, (project_id, 'instances')) is not None


def test_only_an_admin_deletes_projects_and_users(member_client, admin_context):
    assert_keystone_error(member_client.delete(
        '/identity/v3/projects/' + admin_context.project_id), 403)
    assert_keystone_error(member_client.delete(
        '/identity/v3/users/' + admin_context.user_id), 403)


def test_users_see_only_themselves(member_client, admin_context):
    assert_keystone_error(member_client.get('/identity/v3/users'), 403)
    assert_keystone_error(
        member_client.get('/identity/v3/users/' + admin_context.user_id), 403)
    me = member_client.get('/identity/v3/auth/tokens', headers={
        'X-Subject-Token': member_client.token}).json['token']['user']
    assert member_client.get('/identity/v3/users/' + me['id']).status_int == 200
    projects = member_client.get('/identity/v3/users/%s/projects' % me['id'])
    assert [p['name'] for p in projects.json['projects']] == ['demo']
    assert_keystone_error(member_client.patch('/identity/v3/users/' + me['id'], {
        'user': {'password': 'my-new-password-1'}}), 403)


# -- roles and assignments ---------------------------------------------------------------

def test_roles(admin_client, member_client):
    roles = admin_client.get('/identity/v3/roles').json['roles']
    assert [(r['id'], r['name']) for r in roles] == [
        ('admin', 'admin'), ('member', 'member'), ('reader', 'reader'),
        ('service', 'service')]
    assert admin_client.get('/identity/v3/roles?name=reader').json['roles'][0][
        'id'] == 'reader'
    assert admin_client.get('/identity/v3/roles/member').json['role']['name'] == 'member'
    assert_keystone_error(admin_client.get('/identity/v3/roles/owner'), 404)
    assert_keystone_error(member_client.get('/identity/v3/roles'), 403)


def test_role_add_list_remove(client, admin_client, admin_context):
    user = _create_user(admin_client)
    project = admin_client.post('/identity/v3/projects',
                                {'project': {'name': 'demo'}}).json['project']
    grant = '/identity/v3/projects/%s/users/%s/roles/' % (project['id'], user['id'])
    login = password_auth('bob', 'bob-password-1', 'demo')
    assert_keystone_error(client.post('/identity/v3/auth/tokens', login), 401)
    assert_keystone_error(admin_client.get(grant + 'member'), 404)
    assert admin_client.put(grant + 'member').status_int == 204
    assert admin_client.put(grant + 'member').status_int == 204  # idempotent
    assert admin_client.get(grant + 'member').status_int == 204
    assert_keystone_error(admin_client.put(grant + 'owner'), 404)
    token = client.post('/identity/v3/auth/tokens', login).headers['X-Subject-Token']
    roles = admin_client.get(grant.rstrip('/')).json['roles']
    assert [r['id'] for r in roles] == ['member']

    found = admin_client.get('/identity/v3/role_assignments?user.id=%s' % user['id'])
    assert found.json['role_assignments'] == [{
        'role': {'id': 'member'}, 'user': {'id': user['id']},
        'scope': {'project': {'id': project['id']}},
        'links': {'assignment': 'http://localhost' + grant + 'member'}}]
    named = admin_client.get('/identity/v3/role_assignments?include_names&'
                             'scope.project.id=%s' % project['id'])
    (assignment,) = named.json['role_assignments']
    assert assignment['user']['name'] == 'bob'
    assert assignment['scope']['project']['name'] == 'demo'
    assert assignment['role']['name'] == 'member'
    everyone = admin_client.get('/identity/v3/role_assignments').json['role_assignments']
    assert len(everyone) == 2
    assert admin_client.get('/identity/v3/role_assignments?group.id=g').json[
        'role_assignments'] == []

    assert admin_client.delete(grant + 'member').status_int == 204
    assert_keystone_error(client.as_(token).get('/identity/v3/auth/catalog'), 401)
    assert_keystone_error(admin_client.delete(grant + 'member'), 404)


def test_members_cannot_grant_roles(member_client, admin_context):
    me = member_client.get('/identity/v3/auth/tokens', headers={
        'X-Subject-Token': member_client.token}).json['token']
    grant = '/identity/v3/projects/%s/users/%s/roles/admin' % (me['project']['id'],
                                                               me['user']['id'])
    assert_keystone_error(member_client.put(grant), 403)
    assert_keystone_error(member_client.get('/identity/v3/role_assignments'), 403)
