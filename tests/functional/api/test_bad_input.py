"""Bad input through the real HTTP API: the right status, the service's own error body,
no traceback, and nothing recorded; hostile names and metadata come back verbatim."""

import base64
import subprocess
import sys
import uuid

import pytest

from tests.functional import conftest as base
from tests.functional.api import conftest as api

HOSTILE_NAME = '<img src=x onerror=alert(1)>'
HOSTILE_METADATA = {'k': '$(rm -rf /); <b>'}


@pytest.fixture(scope='module')
def refs(api_cloud):
    """Ids of flavor tiny, image guest and network net1, as the services list them."""
    http = api_cloud.http
    flavors = http.compute('GET', '/flavors/detail').json()['flavors']
    images = http.request('GET', '/image/v2/images?name=guest').json()['images']
    networks = http.request('GET', '/network/v2.0/networks?name=net1').json()['networks']
    return {'flavor': [f['id'] for f in flavors if f['name'] == 'tiny'][0],
            'image': [i['id'] for i in images if i['name'] == 'guest'][0],
            'network': [n['id'] for n in networks if n['name'] == 'net1'][0]}


def server_body(refs, **changes):
    server = {'name': 'api-bad', 'flavorRef': refs['flavor'], 'imageRef': refs['image'],
              'networks': [{'uuid': refs['network']}]}
    server.update(changes)
    return {'server': server}


def expired_token(api_cloud):
    """A token signed with the cloud's own keys that expired a minute ago."""
    user_id, project_id = api_cloud.query(
        'SELECT users.id, projects.id FROM users, projects '
        'WHERE users.name = ? AND projects.name = ?', (api.USER, api.PROJECT))[0]
    code = ('import sys; from provisioner.conf import CONF; '
            'CONF(["--config-file", sys.argv[1]], project="provisioner"); '
            'from provisioner.identity import fernet; '
            'print(fernet.issue(sys.argv[2], sys.argv[3], -60)[0])')
    return subprocess.run([sys.executable, '-c', code, str(api_cloud.config_file),
                           user_id, project_id], capture_output=True, text=True,
                          check=True, cwd=base.REPO).stdout.strip()


def error_of(response):
    """The message of a service's error body, checked for shape and for no traceback.

    Nova and Cinder: {"<fault>": {"code", "message"}}; Keystone (and keystonemiddleware's
    401 on every service): {"error": {"code", "title", "message"}}; Neutron:
    {"NeutronError": {"type", "message", "detail"}}; Glance (webob's): {"code": "401
    Unauthorized", "title", "message"}.
    """
    text = response.text
    assert 'Traceback' not in text and 'File "/' not in text, text
    assert response.headers.get('Content-Type', '').startswith('application/json'), \
        (response.headers, text)
    body = response.json()
    assert response.headers.get('x-openstack-request-id', '').startswith('req-')
    if 'NeutronError' in body:
        fault = body['NeutronError']
        assert set(fault) >= {'type', 'message'}, body
    elif len(body) == 1 and isinstance(next(iter(body.values())), dict):
        fault = next(iter(body.values()))
        assert fault.get('code') == response.status_code, body
    else:  # Glance's (webob's): "code": "401 Unauthorized"
        fault = body
        assert str(fault.get('code')).split()[0] == str(response.status_code), body
    assert isinstance(fault.get('message'), str) and fault['message'], body
    return fault['message']


def _cases():
    """(id, request(http, refs) -> response, expected status)."""
    def post_servers(body=None, data=None, **kwargs):
        return lambda http, refs: http.compute(
            'POST', '/servers', body=body(refs) if callable(body) else body,
            data=data, **kwargs)

    latest_big = base64.b64encode(b'x' * 150000).decode()
    return [
        ('malformed-json', post_servers(data='{"server": {"name": "x",'), 400),
        ('not-an-object', post_servers(data='[1, 2, 3]'), 400),
        ('no-body', post_servers(data=''), 400),
        ('unknown-field', post_servers(lambda refs: server_body(refs, bogus=1)), 400),
        ('unknown-network-field', post_servers(lambda refs: server_body(
            refs, networks=[{'uuid': refs['network'], 'bogus': 1}])), 400),
        ('name-wrong-type', post_servers(lambda refs: server_body(refs, name=5)), 400),
        ('no-flavor', post_servers(lambda refs: {'server': {
            k: v for k, v in server_body(refs)['server'].items() if k != 'flavorRef'}}),
         400),
        ('nonexistent-flavor', post_servers(
            lambda refs: server_body(refs, flavorRef='no-such-flavor')), 400),
        ('nonexistent-image', post_servers(
            lambda refs: server_body(refs, imageRef=str(uuid.uuid4()))), 400),
        ('nonexistent-network', post_servers(
            lambda refs: server_body(refs, networks=[{'uuid': str(uuid.uuid4())}])), 400),
        ('nonexistent-keypair', post_servers(
            lambda refs: server_body(refs, key_name='no-such-key')), 400),
        ('user-data-not-base64', post_servers(
            lambda refs: server_body(refs, user_data='not base64 !!')), 400),
        ('body-over-the-limit', post_servers(
            lambda refs: server_body(refs, user_data=latest_big)), 413),
        ('microversion-2.999', lambda http, refs: http.compute(
            'GET', '/servers', headers={'OpenStack-API-Version': 'compute 2.999'}), 406),
        ('microversion-2.0', lambda http, refs: http.compute(
            'GET', '/servers', headers={'X-OpenStack-Nova-API-Version': '2.0'}), 406),
        ('microversion-garbage', lambda http, refs: http.compute(
            'GET', '/servers', headers={'OpenStack-API-Version': 'compute two'}), 400),
        ('no-token', post_servers(server_body, token=False), 401),
        ('forged-token', post_servers(server_body, token='gAAAAABforged' + 'A' * 80),
         401),
        ('forged-token-image', lambda http, refs: http.request(
            'GET', '/image/v2/images', token='forged'), 401),
        ('forged-token-network', lambda http, refs: http.request(
            'GET', '/network/v2.0/networks', token='forged'), 401),
        ('no-token-identity-projects', lambda http, refs: http.request(
            'GET', '/identity/v3/projects', token=False), 401),
        ('wrong-password', lambda http, refs: http.request(
            'POST', '/identity/v3/auth/tokens', token=False, body={'auth': {
                'identity': {'methods': ['password'], 'password': {'user': {
                    'name': api.USER, 'password': 'wrong',
                    'domain': {'name': 'Default'}}}}}}), 401),
        ('auth-malformed-json', lambda http, refs: http.request(
            'POST', '/identity/v3/auth/tokens', token=False, data='{"auth":'), 400),
        ('nonexistent-server', lambda http, refs: http.compute(
            'GET', '/servers/%s' % uuid.uuid4()), 404),
        ('action-on-nonexistent-server', lambda http, refs: http.compute(
            'POST', '/servers/%s/action' % uuid.uuid4(), body={'os-stop': None}), 404),
    ]


CASES = _cases()


@pytest.mark.parametrize('name,send,status', CASES, ids=[c[0] for c in CASES])
def test_bad_request_is_refused_and_records_nothing(api_cloud, refs, name, send,
                                                    status):
    before = api_cloud.counts()
    response = send(api_cloud.http, refs)
    assert response.status_code == status, (response.status_code, response.text)
    error_of(response)
    assert api_cloud.counts() == before


def test_expired_token_is_401(api_cloud):
    response = api_cloud.http.compute('GET', '/servers', token=expired_token(api_cloud))
    assert response.status_code == 401, response.text
    error_of(response)


def test_latest_microversion_is_the_advertised_maximum(api_cloud):
    http = api_cloud.http
    version = http.request('GET', '/compute/v2.1', token=False).json()['version']
    response = http.compute('GET', '/servers',
                            headers={'OpenStack-API-Version': 'compute latest'})
    assert response.status_code == 200, response.text
    assert response.headers['OpenStack-API-Version'] == 'compute %s' % version['version']
    assert response.headers['X-OpenStack-Nova-API-Version'] == version['version']


def test_markup_and_shell_characters_are_stored_and_returned_verbatim(api_cloud, refs,
                                                                      openstack):
    http = api_cloud.http
    response = http.compute('POST', '/servers', body=server_body(
        refs, name=HOSTILE_NAME, metadata=HOSTILE_METADATA))
    assert response.status_code == 202, response.text
    server_id = response.json()['server']['id']
    try:
        shown = http.compute('GET', '/servers/%s' % server_id).json()['server']
        assert (shown['name'], shown['metadata']) == (HOSTILE_NAME, HOSTILE_METADATA)
        osc = openstack.json('server', 'show', server_id)
        assert osc['name'] == HOSTILE_NAME
        assert osc['properties'] == HOSTILE_METADATA
        listed = [s for s in openstack.json('server', 'list') if s['ID'] == server_id]
        assert [s['Name'] for s in listed] == [HOSTILE_NAME]
    finally:
        api_cloud.delete_and_check(server_id)
