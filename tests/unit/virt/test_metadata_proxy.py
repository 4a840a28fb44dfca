"""The metadata proxy alone, in this process's own namespace (its setns path is the
same as in a namespace of its own), before a fake provisioner-api that records what
reaches it."""

import http.client
import http.server
import os
import socket
import threading
import time

import pytest

from provisioner import metadata_signing as signing
from provisioner.virt import metadata_proxy

SECRET = 'proxy-unit-secret'


@pytest.mark.parametrize('target, path', [
    ('/latest/meta-data/', '/latest/meta-data/'),
    ('/openstack/latest/meta_data.json?x=1#y', '/openstack/latest/meta_data.json'),
    ('/../compute/v2.1/servers', '/compute/v2.1/servers'),
    ('/%2e%2e/%2E%2E/identity/v3', '/identity/v3'),
    ('//a//b/', '/a/b/'),
    ('/a b', '/a%20b'),
])
def test_forwarded_path_stays_under_the_metadata_endpoint(target, path):
    assert metadata_proxy.metadata_path(target) == path


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_GET(self):
        self.seen.append((self.path, dict(self.headers)))
        status = 404 if self.path.endswith('/missing') else 200
        body = b'{"uuid": "x"}'
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def api():
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Recorder.seen = []
    yield 'http://127.0.0.1:%d/metadata/' % server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
def proxy(api, conf):
    if os.geteuid() != 0:
        pytest.skip('entering a network namespace needs root')
    assert metadata_proxy.ensure('/proc/self/ns/net', 'net-1', api_url=api,
                                 secret=SECRET, address='127.0.0.1', port=0)
    address = metadata_proxy.serving()['net-1']['address']
    yield address
    metadata_proxy.remove('/proc/self/ns/net', 'net-1')
    assert 'net-1' not in metadata_proxy.serving()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(address, timeout=5)


def _get(address, path, headers=None):
    conn = http.client.HTTPConnection(*address, timeout=10)
    try:
        conn.request('GET', path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_guest_identity_headers_are_replaced_by_signed_ones(proxy):
    status, body = _get(proxy, '/openstack/latest/meta_data.json', {
        signing.INSTANCE_ID: 'someone-else', signing.TENANT_ID: 'p2',
        signing.INSTANCE_ID_SIGNATURE: 'f' * 64, signing.FORWARDED_FOR: '10.0.0.99',
        signing.NETWORK_ID: 'net-2', 'X-Auth-Token': 'stolen', 'Accept': 'text/plain'})
    assert (status, body) == (200, b'{"uuid": "x"}')
    [(path, headers)] = _Recorder.seen
    assert path == '/metadata/openstack/latest/meta_data.json'
    headers = {name.lower(): value for name, value in headers.items()}
    assert signing.INSTANCE_ID.lower() not in headers
    assert signing.TENANT_ID.lower() not in headers
    assert 'x-auth-token' not in headers
    assert headers[signing.FORWARDED_FOR.lower()] == '127.0.0.1'
    assert headers[signing.NETWORK_ID.lower()] == 'net-1'
    assert signing.matches(SECRET, signing.source_message('net-1', '127.0.0.1'),
                           headers[signing.PROXY_SIGNATURE.lower()])
    assert headers['accept'] == 'text/plain'


def test_the_apis_status_reaches_the_guest(proxy):
    assert _get(proxy, '/latest/missing')[0] == 404


def test_ensure_is_idempotent_and_needs_its_settings(proxy, api):
    before = metadata_proxy.serving()['net-1']
    assert metadata_proxy.ensure('/proc/self/ns/net', 'net-1', api_url=api,
                                 secret=SECRET, address='127.0.0.1', port=0)
    assert metadata_proxy.serving()['net-1'] == before
    # No secret, no API URL: no metadata service, no proxy.
    assert not metadata_proxy.ensure('/proc/self/ns/net', 'net-9', api_url=api)
    assert not metadata_proxy.ensure('/proc/self/ns/net', 'net-9', secret=SECRET)
    assert 'net-9' not in metadata_proxy.serving()


def test_api_down_is_a_504(conf):
    if os.geteuid() != 0:
        pytest.skip('entering a network namespace needs root')
    metadata_proxy.ensure('/proc/self/ns/net', 'net-3', api_url='http://127.0.0.1:9/m',
                          secret=SECRET, address='127.0.0.1', port=0)
    try:
        address = metadata_proxy.serving()['net-3']['address']
        assert _get(address, '/latest/meta-data/')[0] == 504
    finally:
        metadata_proxy.remove(None, 'net-3')


def test_connections_beyond_the_limit_are_turned_away(proxy):
    held = []
    try:
        for _ in range(metadata_proxy.MAX_CONNECTIONS):
            held.append(socket.create_connection(proxy, timeout=10))
        extra = socket.create_connection(proxy, timeout=10)
        assert extra.recv(1) == b''  # closed without an answer
        extra.close()
    finally:
        for conn in held:
            conn.close()
    time.sleep(0.5)  # the held connections' threads end, their slots free
    assert _get(proxy, '/latest/meta-data/')[0] == 200
