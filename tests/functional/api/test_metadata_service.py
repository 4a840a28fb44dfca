"""The metadata service over real HTTP, and a network's metadata proxy in a real
namespace: a "guest" namespace of this test, holding a server's address on the
network behind a veth, asks http://169.254.169.254/ as a guest would, and gets its
own server's documents, never another's.

The servers are booted by the all-in-one provisioner-api (real QEMU guests): the
metadata service reads their rows and ports. The proxy runs in this test's process,
as it runs in a worker, and forwards from here to the API on loopback.
"""

import base64
import ipaddress
import json
import secrets
import subprocess
import sys
import time

import pytest
import requests

from provisioner import metadata_signing as signing
from provisioner.virt import metadata_proxy

USER_DATA = b'#!/bin/sh\necho metadata-user-data-marker\n'


def _wait_active(http, server_id, timeout=300):
    deadline = time.monotonic() + timeout
    while True:
        server = http.compute('GET', '/servers/%s' % server_id).json()['server']
        if server['status'] == 'ACTIVE':
            return server
        assert server['status'] != 'ERROR', server
        assert time.monotonic() < deadline, server
        time.sleep(1)


@pytest.fixture(scope='module')
def servers(api_cloud, keypair):
    """Two servers on net1: 'md-one' with a key pair and user data, 'md-two'
    without: {name: {'id', 'project_id', 'ip'}}, and the network's id."""
    http = api_cloud.http
    refs = {
        'flavor': [f['id'] for f in http.compute('GET', '/flavors').json()['flavors']
                   if f['name'] == 'tiny'][0],
        'image': http.request('GET', '/image/v2/images?name=guest').json()
        ['images'][0]['id'],
        'network': http.request('GET', '/network/v2.0/networks?name=net1').json()
        ['networks'][0]['id']}
    made = {}
    for name, extra in (('md-one', {'key_name': keypair[0], 'user_data':
                                    base64.b64encode(USER_DATA).decode()}),
                        ('md-two', {})):
        body = {'server': dict({'name': name, 'flavorRef': refs['flavor'],
                                'imageRef': refs['image'],
                                'networks': [{'uuid': refs['network']}]}, **extra)}
        response = http.compute('POST', '/servers', body=body)
        assert response.status_code == 202, response.text
        made[name] = response.json()['server']['id']
    found = {}
    try:
        for name, server_id in made.items():
            server = _wait_active(http, server_id)
            found[name] = {'id': server_id, 'project_id': server['tenant_id'],
                           'ip': server['addresses']['net1'][0]['addr']}
        yield found, refs['network']
    finally:
        for server_id in made.values():
            http.compute('DELETE', '/servers/%s' % server_id)


def _get(api_cloud, path, headers):
    return requests.get(api_cloud.url + '/metadata' + path, headers=headers, timeout=30)


def _signed(api_cloud, server, secret=None, tenant=None):
    return {signing.INSTANCE_ID: server['id'],
            signing.TENANT_ID: tenant or server['project_id'],
            signing.INSTANCE_ID_SIGNATURE: signing.sign(
                secret or api_cloud.metadata_secret, server['id'])}


def test_the_api_answers_signed_requests_only(api_cloud, servers, keypair):
    found, _network = servers
    one, two = found['md-one'], found['md-two']
    log_start = api_cloud.api_log_size()
    response = _get(api_cloud, '/openstack/latest/meta_data.json',
                    _signed(api_cloud, one))
    assert response.status_code == 200, response.text
    meta = response.json()
    assert meta['uuid'] == one['id'] and meta['name'] == 'md-one'
    # The key as `keypair create --public-key` read its file (newline kept, as Nova).
    assert {k: v.strip() for k, v in meta['public_keys'].items()} == {
        keypair[0]: keypair[1]}
    assert _get(api_cloud, '/openstack/latest/user_data',
                _signed(api_cloud, one)).content == USER_DATA
    assert _get(api_cloud, '/latest/meta-data/public-keys/0/openssh-key',
                _signed(api_cloud, one)).text.strip() == keypair[1]
    assert _get(api_cloud, '/latest/meta-data/local-ipv4',
                _signed(api_cloud, one)).text == one['ip']
    assert _get(api_cloud, '/openstack/latest/user_data',
                _signed(api_cloud, two)).status_code == 404
    # Unsigned, wrongly signed, one instance's signature for another's id.
    unsigned = {signing.INSTANCE_ID: one['id'], signing.TENANT_ID: one['project_id']}
    assert _get(api_cloud, '/openstack/latest/meta_data.json', unsigned) \
        .status_code == 403
    assert _get(api_cloud, '/openstack/latest/meta_data.json', {}).status_code == 403
    assert _get(api_cloud, '/openstack/latest/meta_data.json', _signed(
        api_cloud, one, secret='not-the-secret')).status_code == 403
    borrowed = dict(_signed(api_cloud, one), **{signing.INSTANCE_ID: two['id']})
    assert _get(api_cloud, '/openstack/latest/meta_data.json', borrowed) \
        .status_code == 403
    # Rightly signed, but not that tenant's instance.
    assert _get(api_cloud, '/openstack/latest/meta_data.json', _signed(
        api_cloud, two, tenant='another-project')).status_code == 404
    log = api_cloud.api_log_text(log_start)
    assert 'Metadata request refused (403)' in log
    assert api_cloud.metadata_secret not in log
    assert 'metadata-user-data-marker' not in log


def _ip(*args, check=True):
    return subprocess.run(['ip'] + list(args), check=check, capture_output=True,
                          text=True)


@pytest.fixture
def namespaces(api_cloud):
    """A proxy side (the DHCP namespace's part) and a guest side joined by a veth:
    169.254.169.254/32 on the proxy side, a route to it on the guest's."""
    tag = secrets.token_hex(3)
    proxy_ns, guest_ns = 'mdp-%s' % tag, 'mdg-%s' % tag
    _ip('netns', 'add', proxy_ns)
    try:
        _ip('netns', 'add', guest_ns)
        _ip('link', 'add', 'mdp%s' % tag, 'netns', proxy_ns, 'type', 'veth',
            'peer', 'name', 'mdg%s' % tag, 'netns', guest_ns)
        _ip('-n', proxy_ns, 'link', 'set', 'mdp%s' % tag, 'up')
        _ip('-n', proxy_ns, 'addr', 'add', '169.254.169.254/32', 'dev', 'mdp%s' % tag)
        _ip('-n', proxy_ns, 'route', 'add', api_cloud.cidr, 'dev', 'mdp%s' % tag)
        _ip('-n', guest_ns, 'link', 'set', 'mdg%s' % tag, 'up')
        _ip('-n', guest_ns, 'route', 'add', '169.254.169.254/32', 'dev', 'mdg%s' % tag)
        yield proxy_ns, guest_ns, 'mdg%s' % tag
    finally:
        _ip('netns', 'del', guest_ns, check=False)
        _ip('netns', 'del', proxy_ns, check=False)


# What the guest runs: GET a path from 169.254.169.254 from one of its addresses,
# with headers of its choosing; prints {"status", "body"}.
_GUEST_CLIENT = '''
import http.client, json, sys
source, path, headers = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
conn = http.client.HTTPConnection("169.254.169.254", 80, timeout=30,
                                  source_address=(source, 0))
conn.request("GET", path, headers=headers)
response = conn.getresponse()
print(json.dumps({"status": response.status,
                  "body": response.read().decode("utf-8", "replace")}))
'''


def _guest_get(guest_ns, source, path, headers=None):
    result = subprocess.run(
        ['ip', 'netns', 'exec', guest_ns, sys.executable, '-c', _GUEST_CLIENT, source,
         path, json.dumps(headers or {})], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_guest_reads_its_own_metadata_through_the_proxy(api_cloud, servers,
                                                           namespaces):
    found, network_id = servers
    one, two = found['md-one'], found['md-two']
    proxy_ns, guest_ns, guest_dev = namespaces
    prefix = ipaddress.ip_network(api_cloud.cidr).prefixlen
    unused = str(ipaddress.ip_network(api_cloud.cidr)[250])
    for address in (one['ip'], unused):
        _ip('-n', guest_ns, 'addr', 'add', '%s/%d' % (address, prefix), 'dev',
            guest_dev)
    assert metadata_proxy.ensure(proxy_ns, network_id,
                                 api_url=api_cloud.url + '/metadata',
                                 secret=api_cloud.metadata_secret)
    try:
        answer = _guest_get(guest_ns, one['ip'], '/openstack/latest/meta_data.json')
        assert answer['status'] == 200, answer
        assert json.loads(answer['body'])['uuid'] == one['id']
        answer = _guest_get(guest_ns, one['ip'], '/latest/meta-data/instance-id')
        assert answer['body'] == 'i-%s' % one['id'].replace('-', '')[:8]
        user_data = _guest_get(guest_ns, one['ip'], '/latest/user-data')
        assert user_data['body'] == USER_DATA.decode()
        # Headers naming the other server are dropped: still its own documents.
        forged = _guest_get(guest_ns, one['ip'], '/openstack/latest/meta_data.json', {
            signing.INSTANCE_ID: two['id'], signing.TENANT_ID: two['project_id'],
            signing.INSTANCE_ID_SIGNATURE: signing.sign('guess', two['id']),
            signing.FORWARDED_FOR: two['ip'], signing.NETWORK_ID: network_id})
        assert forged['status'] == 200, forged
        assert json.loads(forged['body'])['uuid'] == one['id']
        # An address no server holds on the network gets nothing.
        stranger = _guest_get(guest_ns, unused, '/openstack/latest/meta_data.json',
                              {signing.INSTANCE_ID: one['id']})
        assert stranger['status'] == 404, stranger
        assert one['id'] not in stranger['body'] and two['id'] not in stranger['body']
        # A proxy made again (a worker re-ensuring its networks) serves the same.
        assert metadata_proxy.ensure(proxy_ns, network_id,
                                     api_url=api_cloud.url + '/metadata',
                                     secret=api_cloud.metadata_secret)
        again = _guest_get(guest_ns, one['ip'], '/latest/meta-data/local-ipv4')
        assert again == {'status': 200, 'body': one['ip']}
    finally:
        metadata_proxy.remove(proxy_ns, network_id)
    assert network_id not in metadata_proxy.serving()
    assert api_cloud.metadata_secret not in api_cloud.api_log_text()
