"""The metadata service through the whole WSGI application: only signed requests,
each answered with its own instance's documents."""

import base64
import logging
import os

import pytest

from provisioner import metadata_signing as signing
from provisioner import virt
from tests.unit.api.test_servers import application  # noqa: F401 (fixtures)
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401
from tests.unit.test_metadata_tree import KEY

SECRET = 'metadata-proxy-secret-42'


@pytest.fixture
def servers(conf, application, cloud, admin_context):  # noqa: F811
    conf.set_override('proxy_shared_secret', SECRET, 'metadata')
    key = call(application, 'POST', '/compute/v2.1/os-keypairs',
               {'keypair': {'name': 'k1', 'public_key': KEY}}, cloud['token'])
    assert key.status_int == 200, key.text
    first = boot(application, cloud, name='first', key_name='k1',
                 metadata={'role': 'web'},
                 user_data=base64.b64encode(b'#!/bin/sh\necho first\n').decode())
    second = boot(application, cloud, name='second')
    found = {}
    for server_id in (first, second):
        server = call(application, 'GET', '/compute/v2.1/servers/%s' % server_id,
                      token=cloud['token']).json['server']
        found[server['name']] = {'id': server_id, 'project_id': server['tenant_id'],
                                 'ip': server['addresses']['net1'][0]['addr']}
    return found


def by_id(server, secret=SECRET, tenant=None):
    return {signing.INSTANCE_ID: server['id'],
            signing.TENANT_ID: tenant or server['project_id'],
            signing.INSTANCE_ID_SIGNATURE: signing.sign(secret, server['id'])}


def by_source(network_id, address, secret=SECRET):
    return {signing.NETWORK_ID: network_id, signing.FORWARDED_FOR: address,
            signing.PROXY_SIGNATURE: signing.sign(
                secret, signing.source_message(network_id, address))}


def get(application, path, headers):  # noqa: F811
    return call(application, 'GET', '/metadata' + path, headers=headers)


def test_signed_instance_id_gets_its_own_documents(application, servers):  # noqa: F811
    first = servers['first']
    response = get(application, '/openstack/latest/meta_data.json', by_id(first))
    assert response.status_int == 200, response.text
    data = response.json
    assert data['uuid'] == first['id'] and data['name'] == 'first'
    assert data['public_keys'] == {'k1': KEY} and data['meta'] == {'role': 'web'}
    user_data = get(application, '/openstack/latest/user_data', by_id(first))
    assert user_data.body == b'#!/bin/sh\necho first\n'
    assert get(application, '/latest/meta-data/local-ipv4',
               by_id(first)).text == first['ip']
    assert get(application, '/latest/user-data', by_id(first)).status_int == 200
    network = get(application, '/openstack/latest/network_data.json', by_id(first)).json
    assert network['networks'][0]['ip_address'] == first['ip']
    second = servers['second']
    assert get(application, '/openstack/latest/user_data', by_id(second)).status_int \
        == 404
    assert get(application, '/latest/meta-data/public-keys/', by_id(second)) \
        .status_int == 404


def test_signed_source_gets_the_instance_holding_the_address(application, servers,  # noqa: F811
                                                             cloud):  # noqa: F811
    for server in servers.values():
        response = get(application, '/openstack/latest/meta_data.json',
                       by_source(cloud['network'], server['ip']))
        assert response.status_int == 200, response.text
        assert response.json['uuid'] == server['id']
    # An address no port holds on the network, a network that has no such port.
    assert get(application, '/latest/meta-data/', by_source(
        cloud['network'], '10.66.0.250')).status_int == 404
    assert get(application, '/latest/meta-data/', by_source(
        'another-network', servers['first']['ip'])).status_int == 404


def test_unsigned_or_badly_signed_is_refused_and_the_secret_never_logged(
        application, servers, cloud, caplog):  # noqa: F811
    caplog.set_level(logging.DEBUG)
    first, second = servers['first'], servers['second']
    forged = [
        {},
        {signing.INSTANCE_ID: first['id'], signing.TENANT_ID: first['project_id']},
        by_id(first, secret='guessed'),
        # A signature for one instance does not open another's.
        dict(by_id(first), **{signing.INSTANCE_ID: second['id']}),
        {signing.NETWORK_ID: cloud['network'], signing.FORWARDED_FOR: first['ip']},
        by_source(cloud['network'], first['ip'], secret='guessed'),
        # Signed for one address, sent for another.
        dict(by_source(cloud['network'], second['ip']),
             **{signing.FORWARDED_FOR: first['ip']}),
    ]
    for headers in forged:
        response = get(application, '/openstack/latest/meta_data.json', headers)
        assert response.status_int == 403, (headers, response.text)
        assert response.content_type == 'text/plain'
        assert first['id'] not in response.text or headers == {}
    assert SECRET not in caplog.text
    assert signing.sign(SECRET, first['id']) not in caplog.text
    assert 'echo first' not in caplog.text


def test_another_tenant_is_not_found(application, servers):  # noqa: F811
    response = get(application, '/openstack/latest/meta_data.json',
                   by_id(servers['first'], tenant='someone-else'))
    assert response.status_int == 404


def test_version_list_is_public_and_unconfigured_service_says_so(application, conf,  # noqa: F811
                                                                 servers):
    response = get(application, '/', {})
    assert response.status_int == 200
    assert response.text.splitlines()[-1] == 'latest'
    conf.clear_override('proxy_shared_secret', 'metadata')
    response = get(application, '/openstack/latest/meta_data.json',
                   by_id(servers['first']))
    assert response.status_int == 503
    assert 'proxy_shared_secret' in response.text


def test_only_get(application, servers):  # noqa: F811
    response = call(application, 'POST', '/metadata/openstack/latest/password',
                    headers=by_id(servers['first']), raw=b'x')
    assert response.status_int == 405


def test_a_deleted_server_is_not_found(application, servers, cloud):  # noqa: F811
    first = servers['first']
    deleted = call(application, 'DELETE', '/compute/v2.1/servers/%s' % first['id'],
                   token=cloud['token'])
    assert deleted.status_int == 204
    assert get(application, '/openstack/latest/meta_data.json',
               by_id(first)).status_int == 404
    assert get(application, '/openstack/latest/meta_data.json',
               by_source(cloud['network'], first['ip'])).status_int == 404




def test_without_force_config_drive_only_servers_asking_get_one(application, cloud,  # noqa: F811
                                                                 conf):
    driver = virt.get_driver()
    conf.set_override('force_config_drive', False, 'compute')
    plain = boot(application, cloud, name='plain')
    asked = boot(application, cloud, name='asked', config_drive=True)
    assert call(application, 'POST', '/compute/v2.1/servers', {'server': {
        'name': 'bad', 'imageRef': cloud['image'], 'flavorRef': cloud['flavor'],
        'networks': [{'uuid': cloud['network']}], 'config_drive': 'maybe'}},
        cloud['token']).status_int == 400
    conf.clear_override('force_config_drive', 'compute')
    forced = boot(application, cloud, name='forced')
    for server_id, has_drive in ((plain, False), (asked, True), (forced, True)):
        server = call(application, 'GET', '/compute/v2.1/servers/%s' % server_id,
                      token=cloud['token']).json['server']
        assert server['status'] == 'ACTIVE'
        assert server['config_drive'] == ('True' if has_drive else '')
        assert os.path.exists(driver.config_drive_path(server_id)) == has_drive
    listed = call(application, 'GET', '/compute/v2.1/servers/detail?config_drive=True',
                  token=cloud['token'], headers={'OpenStack-API-Version': 'compute 2.83'})
    assert {s['id'] for s in listed.json['servers']} == {asked, forced}
