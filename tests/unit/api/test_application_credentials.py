"""Keystone's application credentials: made by their user for the token's project,
the secret shown once, tokens of the credential's project and roles that end with it,
restricted ones that cannot make more, and the refusals."""

import datetime

import pytest

from provisioner.api import app as api_app
from provisioner.api import identity
from provisioner.identity import admin
from provisioner.identity import service

TOKENS = '/identity/v3/auth/tokens'


@pytest.fixture
def app():
    return api_app.Application(None, {'/identity': identity.SERVICE})


@pytest.fixture
def alice(admin_context, make_token):
    """A member and reader of project demo, and a client holding her token."""
    token = make_token('alice', 'member', 'demo')
    admin.add_role(admin_context, 'alice', 'demo', 'reader')
    return service.validate(token), token


def _url(user_id, *rest):
    return '/'.join(['/identity/v3/users', user_id, 'application_credentials'] +
                     list(rest))


def _credential_auth(**given):
    return {'auth': {'identity': {'methods': ['application_credential'],
                                  'application_credential': given}}}


def test_create_then_authenticate_with_the_secret_shown_once(client, alice):
    context, token = alice
    me = client.as_(token)
    made = me.post(_url(context.user_id), {'application_credential': {
        'name': 'monitoring', 'description': 'for the monitor'}})
    assert made.status_int == 201, made.text
    credential = made.json['application_credential']
    secret = credential['secret']
    assert len(secret) >= 64 and credential['project_id'] == context.project_id
    assert sorted(r['id'] for r in credential['roles']) == ['member', 'reader']
    assert (credential['unrestricted'], credential['expires_at'],
            credential['access_rules']) == (False, None, [])
    shown = me.get(_url(context.user_id, credential['id'])).json['application_credential']
    assert 'secret' not in shown and shown['name'] == 'monitoring'
    issued = client.post(TOKENS, _credential_auth(id=credential['id'], secret=secret))
    assert issued.status_int == 201, issued.text
    body = issued.json['token']
    assert body['methods'] == ['application_credential']
    assert body['project']['id'] == context.project_id
    assert body['application_credential'] == {'id': credential['id'],
                                              'name': 'monitoring', 'restricted': True}
    by_name = client.post(TOKENS, _credential_auth(
        name='monitoring', secret=secret, user={'name': 'alice',
                                                'domain': {'id': 'default'}}))
    assert by_name.status_int == 201, by_name.text
    wrong = client.post(TOKENS, _credential_auth(id=credential['id'], secret='x'))
    assert wrong.status_int == 401 and secret not in wrong.text


def test_its_token_carries_only_its_roles_and_cannot_make_more(client, alice):
    context, token = alice
    me = client.as_(token)
    made = me.post(_url(context.user_id), {'application_credential': {
        'name': 'reader-only', 'secret': 'given-secret', 'roles': [{'name': 'reader'}]}})
    credential = made.json['application_credential']
    assert made.status_int == 201 and credential['secret'] == 'given-secret'
    app_token = client.post(TOKENS, _credential_auth(
        id=credential['id'], secret='given-secret')).headers['X-Subject-Token']
    assert service.validate(app_token).roles == ('reader',)
    more = client.as_(app_token).post(_url(context.user_id), {'application_credential': {
        'name': 'another'}})
    assert more.status_int == 403, more.text
    assert client.as_(app_token).delete(_url(context.user_id,
                                              credential['id'])).status_int == 403
    rescoped = client.post(TOKENS, {'auth': {
        'identity': {'methods': ['token'], 'token': {'id': app_token}}}})
    assert rescoped.status_int == 201  # renewed, still the credential's only
    assert service.validate(rescoped.headers['X-Subject-Token']).roles == ('reader',)
    # Deleted: its tokens end at once.
    assert me.delete(_url(context.user_id, credential['id'])).status_int == 204
    assert client.as_(app_token).get(_url(context.user_id)).status_int == 401


def test_an_unrestricted_one_may_make_more_and_a_lost_role_ends_it(
        client, alice, admin_context):
    context, token = alice
    me = client.as_(token)
    credential = me.post(_url(context.user_id), {'application_credential': {
        'name': 'ci', 'unrestricted': True}}).json['application_credential']
    app_token = client.post(TOKENS, _credential_auth(
        id=credential['id'], secret=credential['secret'])).headers['X-Subject-Token']
    more = client.as_(app_token).post(_url(context.user_id), {'application_credential': {
        'name': 'child', 'roles': [{'id': 'member'}]}})
    assert more.status_int == 201, more.text
    admin.remove_role(admin_context, 'alice', 'demo', 'reader')
    assert client.as_(app_token).get(_url(context.user_id)).status_int == 401
    refused = client.post(TOKENS, _credential_auth(id=credential['id'],
                                                   secret=credential['secret']))
    assert refused.status_int == 401


def test_expiry_is_kept_as_given_and_ends_it(client, alice):
    context, token = alice
    me = client.as_(token)
    soon = datetime.datetime.utcnow() + datetime.timedelta(hours=1)
    made = me.post(_url(context.user_id), {'application_credential': {
        'name': 'short', 'expires_at': soon.isoformat()}}).json['application_credential']
    assert made['expires_at'] == soon.strftime('%Y-%m-%dT%H:%M:%S.%f')
    past = me.post(_url(context.user_id), {'application_credential': {
        'name': 'past', 'expires_at': '2001-01-01T00:00:00Z'}})
    assert past.status_int == 400, past.text


def test_list_by_name_and_the_refusals(client, alice, make_token):
    context, token = alice
    me = client.as_(token)
    for name in ('one', 'two'):
        assert me.post(_url(context.user_id), {'application_credential': {
            'name': name}}).status_int == 201
    listed = me.get(_url(context.user_id)).json['application_credentials']
    assert [c['name'] for c in listed] == ['one', 'two']
    assert [c['name'] for c in me.get(_url(context.user_id) + '?name=two').json[
        'application_credentials']] == ['two']
    duplicate = me.post(_url(context.user_id), {'application_credential': {'name': 'one'}})
    assert duplicate.status_int == 409
    for body, status in (({}, 400), ({'name': ''}, 400),
                         ({'name': 'x', 'roles': [{'name': 'admin'}]}, 404),
                         ({'name': 'x', 'access_rules': [{'path': '/v2.1/servers'}]}, 400),
                         ({'name': 'x', 'expires_at': 'tomorrow'}, 400)):
        refused = me.post(_url(context.user_id), {'application_credential': body})
        assert refused.status_int == status, (body, refused.text)
    bob = client.as_(make_token('bob', 'member', 'demo'))
    assert bob.post(_url(context.user_id), {'application_credential': {
        'name': 'theirs'}}).status_int == 403
    assert bob.get(_url(context.user_id)).status_int == 403
    assert bob.get(_url(context.user_id, listed[0]['id'])).status_int == 403
    assert [c['name'] for c in me.get(_url(context.user_id)).json[
        'application_credentials']] == ['one', 'two']


def test_a_deleted_user_takes_their_credentials(client, alice, admin_context):
    context, token = alice
    credential = client.as_(token).post(_url(context.user_id), {
        'application_credential': {'name': 'gone'}}).json['application_credential']
    admin.delete_user(admin_context, context.user_id)
    refused = client.post(TOKENS, _credential_auth(id=credential['id'],
                                                   secret=credential['secret']))
    assert refused.status_int == 401
