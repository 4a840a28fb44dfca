"""The browser session: an HttpOnly cookie for the token, a CSRF token for changes."""

import json

import pytest
import webob

from provisioner.api import session
from provisioner.identity import fernet

ADMIN_PASSWORD = 'admin-secret'
LOGIN = {'username': 'admin', 'password': ADMIN_PASSWORD, 'project': 'admin'}


def send(app, method, path, body=None, cookie=None, headers=None, raw=None,
         content_type='application/json'):
    req = webob.Request.blank(path, method=method)
    if body is not None or raw is not None:
        req.body = raw if raw is not None else json.dumps(body).encode()
        req.content_type = content_type
    if cookie is not None:
        req.headers['Cookie'] = '%s=%s' % (session.COOKIE, cookie)
    for name, value in (headers or {}).items():
        req.headers[name] = value
    return req.get_response(app)


def cookie_of(response):
    headers = response.headers.getall('Set-Cookie')
    assert len(headers) == 1, headers
    return headers[0]


@pytest.fixture
def logged_in(app, admin_context):
    response = send(app, 'POST', '/dashboard/session', LOGIN)
    assert response.status_int == 201, response.text
    token = cookie_of(response).split(';')[0].partition('=')[2]
    return token, response


def test_login_sets_an_httponly_samesite_cookie_and_no_token_in_the_body(logged_in):
    token, response = logged_in
    header = cookie_of(response)
    assert header.startswith(session.COOKIE + '=')
    attributes = [part.strip().lower() for part in header.split(';')]
    assert 'httponly' in attributes
    assert 'samesite=strict' in attributes
    assert 'path=/' in attributes
    assert 'secure' not in attributes  # served over http, public_url unset
    assert token and token not in response.text
    body = response.json['session']
    assert body['user']['name'] == 'admin'
    assert body['project']['name'] == 'admin'
    assert 'admin' in body['roles'] and body['is_admin'] is True
    assert body['expires_at'].endswith('Z')
    assert body['csrf_token'] == session.csrf_token(token)
    assert body['csrf_token'] != token


def test_the_cookie_is_secure_when_the_public_url_is_https(app, admin_context, conf):
    conf.set_override('public_url', 'https://cloud.example.com', 'api')
    response = send(app, 'POST', '/dashboard/session', LOGIN)
    assert response.status_int == 201
    assert 'secure' in [p.strip().lower() for p in cookie_of(response).split(';')]


def test_get_session_after_a_reload(app, logged_in):
    token, _ = logged_in
    response = send(app, 'GET', '/dashboard/session', cookie=token)
    assert response.status_int == 200, response.text
    assert response.json['session']['csrf_token'] == session.csrf_token(token)
    assert token not in response.text


def test_the_cookie_authenticates_a_get(app, logged_in):
    token, _ = logged_in
    response = send(app, 'GET', '/compute/v2.1/flavors', cookie=token)
    assert response.status_int == 200, response.text
    assert send(app, 'GET', '/compute/v2.1/flavors').status_int == 401


@pytest.mark.parametrize('csrf', [None, 'wrong', ''])
def test_a_change_with_the_cookie_and_no_or_a_wrong_csrf_token_is_403(app, logged_in,
                                                                       csrf):
    token, _ = logged_in
    headers = {session.CSRF_HEADER: csrf} if csrf is not None else {}
    response = send(app, 'POST', '/compute/v2.1/os-keypairs',
                    {'keypair': {'name': 'kp1'}}, cookie=token, headers=headers)
    assert response.status_int == 403, response.text
    assert session.CSRF_HEADER in response.text
    listed = send(app, 'GET', '/compute/v2.1/os-keypairs', cookie=token)
    assert listed.json['keypairs'] == []  # nothing changed


def test_a_change_with_the_right_csrf_token_works(app, logged_in):
    token, _ = logged_in
    response = send(app, 'POST', '/compute/v2.1/os-keypairs',
                    {'keypair': {'name': 'kp1'}}, cookie=token,
                    headers={session.CSRF_HEADER: session.csrf_token(token)})
    assert response.status_int == 200, response.text
    listed = send(app, 'GET', '/compute/v2.1/os-keypairs', cookie=token)
    assert [k['keypair']['name'] for k in listed.json['keypairs']] == ['kp1']


def test_a_csrf_token_of_another_session_is_refused(app, logged_in, admin_context):
    token, _ = logged_in
    other = send(app, 'POST', '/dashboard/session', LOGIN).json['session']['csrf_token']
    response = send(app, 'DELETE', '/compute/v2.1/os-keypairs/none', cookie=token,
                    headers={session.CSRF_HEADER: other})
    assert response.status_int == 403


def test_x_auth_token_needs_no_csrf_token(app, logged_in):
    token, _ = logged_in
    response = send(app, 'POST', '/compute/v2.1/os-keypairs',
                    {'keypair': {'name': 'kp2'}}, headers={'X-Auth-Token': token})
    assert response.status_int == 200, response.text


def test_logout_clears_the_cookie_and_needs_the_csrf_token(app, logged_in):
    token, _ = logged_in
    refused = send(app, 'DELETE', '/dashboard/session', cookie=token)
    assert refused.status_int == 403
    assert not refused.headers.getall('Set-Cookie')
    response = send(app, 'DELETE', '/dashboard/session', cookie=token,
                    headers={session.CSRF_HEADER: session.csrf_token(token)})
    assert response.status_int == 204
    header = cookie_of(response)
    assert header.startswith(session.COOKIE + '=;') or \
        header.startswith(session.COOKIE + '="";')
    assert 'max-age=0' in header.lower()


@pytest.mark.parametrize('cookie', ['garbage', 'expired', None])
def test_an_expired_garbage_or_missing_cookie_is_401(app, admin_context, cookie):
    if cookie == 'expired':
        cookie = fernet.issue(admin_context.user_id, admin_context.project_id, -10)[0]
    response = send(app, 'GET', '/dashboard/session', cookie=cookie)
    assert response.status_int == 401, response.text
    assert send(app, 'GET', '/compute/v2.1/flavors', cookie=cookie).status_int == 401


def test_a_wrong_password_is_401_and_sets_nothing(app, admin_context):
    response = send(app, 'POST', '/dashboard/session', dict(LOGIN, password='nope'))
    assert response.status_int == 401
    assert 'wrong user name, password or project' in response.json['error']['message']
    assert not response.headers.getall('Set-Cookie')
    assert 'nope' not in response.text


def test_a_form_encoded_login_is_415(app, admin_context):
    response = send(app, 'POST', '/dashboard/session',
                    raw=b'username=admin&password=admin-secret&project=admin',
                    content_type='application/x-www-form-urlencoded')
    assert response.status_int == 415
    assert not response.headers.getall('Set-Cookie')


def test_a_bad_login_body_is_400_without_echoing_the_password(app, admin_context):
    response = send(app, 'POST', '/dashboard/session',
                    {'username': 'admin', 'password': 'sekrit-value', 'project': 7})
    assert response.status_int == 400
    assert 'sekrit-value' not in response.text
