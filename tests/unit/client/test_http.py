"""The REST client's plumbing: error bodies, exit codes, retries, the token cache."""

import json

import pytest

from provisioner.client import http
from provisioner import exception

AUTH = 'http://api.example:8774/identity'
CATALOG = [{'type': 'compute', 'name': 'nova', 'endpoints': [
    {'interface': 'internal', 'url': 'http://internal:8774/compute/v2.1'},
    {'interface': 'public', 'url': 'http://api.example:8774/compute/v2.1'}]}]


class FakeAPI:
    """Stands in for http.send: answers from a script, records every request."""

    def __init__(self, monkeypatch):
        self.sent = []
        self.refusals = 0        # connection errors before anything answers
        self.valid_tokens = {'token-1'}
        self.issued = 0
        monkeypatch.setattr(http, 'send', self.send)
        monkeypatch.setattr(http.time, 'sleep', lambda seconds: None)

    def send(self, method, url, body=None, headers=None):
        self.sent.append((method, url))
        if self.refusals:
            self.refusals -= 1
            raise ConnectionRefusedError(111, 'Connection refused')
        if url == AUTH + '/v3/auth/tokens' and method == 'POST':
            password = body['auth']['identity']['password']['user']['password']
            if password != 'secret':
                return 401, 'Unauthorized', {}, json.dumps(
                    {'error': {'code': 401, 'message': 'Authentication failed: '
                                                        'wrong password'}}).encode()
            self.issued += 1
            token = 'token-%d' % self.issued
            self.valid_tokens.add(token)
            return 201, 'Created', {'X-Subject-Token': token}, json.dumps({'token': {
                'expires_at': '2999-01-01T00:00:00.000000Z', 'catalog': CATALOG,
                'user': {'id': 'u1'}, 'project': {'id': 'p1'}}}).encode()
        if headers.get('X-Auth-Token') not in self.valid_tokens:
            return 401, 'Unauthorized', {}, b'{"unauthorized": {"message": "no"}}'
        return 200, 'OK', {}, json.dumps({'url': url}).encode()


def _session(password='secret'):
    return http.Session(AUTH, 'admin', password, 'admin')


def test_requests_go_to_the_public_endpoint_of_the_catalog(monkeypatch):
    api = FakeAPI(monkeypatch)
    session = _session()
    assert session.get('compute', '/flavors/x y', {'a': 1}) == {
        'url': 'http://api.example:8774/compute/v2.1/flavors/x y?a=1'}
    assert session.project_id == 'p1'
    assert session.endpoint('identity') == AUTH + '/v3'
    assert api.sent[0] == ('POST', AUTH + '/v3/auth/tokens')
    with pytest.raises(http.BadResponse, match='without a public network endpoint'):
        session.endpoint('network')


def test_a_get_is_retried_while_the_api_does_not_answer(monkeypatch):
    api = FakeAPI(monkeypatch)
    session = _session()
    session.get('compute', '/servers')
    api.refusals = 2
    assert session.get('compute', '/servers')['url'].endswith('/servers')
    assert api.sent[-3:] == [('GET', 'http://api.example:8774/compute/v2.1/servers')] * 3


def test_a_get_gives_up_and_nothing_else_is_sent_twice(monkeypatch):
    api = FakeAPI(monkeypatch)
    session = _session()
    session.get('compute', '/servers')
    api.refusals = 1000
    with pytest.raises(http.APIUnavailable, match='No provisioner-api answered at '
                       'http://api.example:8774/compute/v2.1/servers: connection '
                       'refused'):
        session.get('compute', '/servers', retry_for=0)
    before = len(api.sent)
    with pytest.raises(http.APIUnavailable):
        session.post('compute', '/servers', {'server': {}})
    assert len(api.sent) == before + 1


def test_the_token_is_cached_per_user_and_reused_only_with_the_right_password(
        monkeypatch, private_token_cache, conf):
    api = FakeAPI(monkeypatch)
    _session().get('compute', '/servers')
    _session().get('compute', '/servers')
    assert api.issued == 1
    with pytest.raises(exception.NotAuthenticated, match='wrong password'):
        _session('wrong-password').get('compute', '/servers')
    http.Session(AUTH, 'other', 'secret', 'admin').get('compute', '/servers')
    assert api.issued == 2


def test_a_refused_cached_token_is_replaced_once(monkeypatch, private_token_cache,
                                                 conf):
    api = FakeAPI(monkeypatch)
    _session().get('compute', '/servers')
    api.valid_tokens.clear()  # revoked
    assert _session().get('compute', '/servers')
    assert api.issued == 2
    api.valid_tokens.clear()
    session = _session()
    session.get('compute', '/servers')  # the cached token is renewed ...
    api.valid_tokens.clear()
    with pytest.raises(exception.NotAuthenticated):  # ... but a fresh one is not
        session.get('compute', '/servers')


@pytest.mark.parametrize('url,base', [
    ('http://h/identity', 'http://h/identity/v3'),
    ('http://h/identity/', 'http://h/identity/v3'),
    ('http://h/identity/v3/', 'http://h/identity/v3'),
])
def test_the_auth_url_may_name_the_version_or_not(url, base):
    assert http.identity_base(url) == base


@pytest.mark.parametrize('body,message', [
    (b'{"itemNotFound": {"code": 404, "message": "Flavor x not found."}}',
     'Flavor x not found.'),
    (b'{"error": {"code": 401, "title": "Unauthorized", "message": "Bad\\npassword"}}',
     'Bad password'),
    (b'{"NeutronError": {"type": "NetworkNotFound", "message": "Network n",'
     b' "detail": ""}}', 'Network n'),
    (b'<html>404 Not Found</html>', '<html>404 Not Found</html>'),
    (b'', 'HTTP 404 Not Found'),
])
def test_error_bodies_of_every_service_give_their_message(body, message):
    error = http.error_for(404, body, 'Not Found')
    assert isinstance(error, exception.NotFound) and str(error) == message


@pytest.mark.parametrize('status,code', [(400, 2), (413, 2), (404, 3), (409, 4),
                                         (401, 5), (403, 6), (405, 2), (500, 1),
                                         (503, 1)])
def test_statuses_map_to_the_cli_exit_codes(status, code):
    assert http.error_for(status, b'{}', 'X').exit_code == code
