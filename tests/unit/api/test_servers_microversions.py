"""The servers resource at the microversions 2.6 - 2.90: each change is there at
its version and not below. Flows run inline on libvirt's test:/// driver."""

import pytest

from provisioner.identity import admin
from provisioner.identity import service as identity

from tests.unit.api.compute import fault
from tests.unit.api.compute import microversion
from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture
from tests.unit.api.test_servers import instance_count
from tests.unit.api.test_servers import server_body

V = '/compute/v2.1'


def _call(application, method, path, version, token, body=None):  # noqa: F811
    return call(application, method, V + path, body, token,
                headers=microversion(version))


def _create(application, cloud, version, **extra):  # noqa: F811
    response = _call(application, 'POST', '/servers', version, cloud['token'],
                     server_body(cloud, **extra))
    assert response.status_int == 202, response.text
    return response.json['server']['id']


def _show(application, cloud, server_id, version, token=None):  # noqa: F811
    response = _call(application, 'GET', '/servers/%s' % server_id, version,
                     token or cloud['token'])
    assert response.status_int == 200, response.text
    return response.json['server']


@pytest.fixture
def member(admin_context):
    admin.create_user(admin_context, 'mia', 'mia-secret1')
    admin.add_role(admin_context, 'mia', 'admin', 'member')
    return identity.authenticate('mia', 'mia-secret1', 'admin')


def test_versions_document_advertises_2_90(application):  # noqa: F811
    version = call(application, 'GET', V).json['version']
    assert version['version'] == '2.90'


def test_fields_appear_at_their_versions(application, cloud):  # noqa: F811
    server_id = _create(application, cloud, '2.90', description='web tier',
                        tags=['a', 'b'], hostname='web-1')
    new = _show(application, cloud, server_id, '2.90')
    assert new['locked'] is False and new['locked_reason'] is None
    assert new['description'] == 'web tier'
    assert new['tags'] == ['a', 'b']
    assert new['trusted_image_certificates'] is None
    assert new['server_groups'] == []
    assert new['host_status'] == 'UP'
    assert new['OS-EXT-SRV-ATTR:hostname'] == 'web-1'
    assert new['flavor'] == {'vcpus': 1, 'ram': 128, 'disk': 1, 'ephemeral': 0,
                             'swap': 0, 'original_name': 'tiny', 'extra_specs': {}}
    for version, key in (('2.8', 'locked'), ('2.15', 'host_status'),
                         ('2.18', 'description'), ('2.25', 'tags'),
                         ('2.62', 'trusted_image_certificates'),
                         ('2.70', 'server_groups'), ('2.72', 'locked_reason')):
        assert key not in _show(application, cloud, server_id, version), version
        higher = '2.%d' % (int(version.split('.')[1]) + 1)
        assert key in _show(application, cloud, server_id, higher), higher
    assert _show(application, cloud, server_id, '2.46')['flavor']['id'] == \
        cloud['flavor']
    listed = _call(application, 'GET', '/servers/detail', '2.90',
                   cloud['token']).json['servers']
    assert 'server_groups' not in listed[0] and listed[0]['tags'] == ['a', 'b']


def test_create_schema_per_version(application, cloud):  # noqa: F811
    before = instance_count()
    for version, extra in (('2.18', {'description': 'x'}), ('2.51', {'tags': []}),
                           ('2.31', {'networks': [{'uuid': cloud['network'],
                                                   'tag': 'nic1'}]}),
                           ('2.56', {'personality': [{'path': '/a',
                                                      'contents': ''}]}),
                           ('2.62', {'trusted_image_certificates': ['c']}),
                           ('2.66', {'block_device_mapping_v2': [{
                               'source_type': 'blank', 'destination_type': 'volume',
                               'volume_size': 1, 'volume_type': 'x'}]}),
                           ('2.73', {'host': 'h'}), ('2.89', {'hostname': 'h1'}),
                           ('2.90', {'tags': ['a,b']}),
                           ('2.90', {'tags': ['t%d' % i for i in range(51)]}),
                           ('2.90', {'personality': []})):
        response = _call(application, 'POST', '/servers', version, cloud['token'],
                         server_body(cloud, **extra))
        assert response.status_int == 400, (version, extra, response.text)
    body = server_body(cloud)
    del body['server']['networks']
    response = _call(application, 'POST', '/servers', '2.37', cloud['token'], body)
    assert response.status_int == 400
    assert instance_count() == before
    # What Ansible sends: "tags": [] at the negotiated version.
    server_id = _create(application, cloud, '2.90', tags=[],
                        networks=[{'uuid': cloud['network'], 'tag': 'nic1'}],
                        trusted_image_certificates=['cert-1'])
    shown = _show(application, cloud, server_id, '2.90')
    assert shown['tags'] == [] and shown['trusted_image_certificates'] == ['cert-1']
    _create(application, cloud, '2.90', name='many', max_count=2, tags=['m'],
            description='pair')
    listed = _call(application, 'GET', '/servers/detail?tags=m', '2.90',
                   cloud['token']).json['servers']
    assert sorted((s['name'], s['description']) for s in listed) == [
        ('many-1', 'pair'), ('many-2', 'pair')]
    # Below 2.19 Nova describes a server by its name.
    old = _create(application, cloud, '2.18', name='described')
    assert _show(application, cloud, old, '2.19')['description'] == 'described'
    for extra, words in (({'hostname': 'h1', 'max_count': 2},
                          'Unable to allocate a single hostname to multiple '
                          'instances'),
                         ({'block_device_mapping_v2': [{
                             'source_type': 'blank', 'destination_type': 'volume',
                             'volume_size': 1, 'delete_on_termination': True,
                             'volume_type': 'fast'}]},
                          'Volume type fast could not be found.')):
        response = _call(application, 'POST', '/servers', '2.90', cloud['token'],
                         server_body(cloud, **extra))
        assert fault(response) == ('badRequest', words)


def test_networks_auto_and_none(application, cloud):  # noqa: F811
    server_id = _create(application, cloud, '2.37', networks='auto')
    assert list(_show(application, cloud, server_id, '2.37')['addresses']) == ['net1']
    server_id = _create(application, cloud, '2.37', networks='none')
    shown = _show(application, cloud, server_id, '2.37')
    assert (shown['status'], shown['addresses']) == ('ACTIVE', {})


def test_requested_host(application, cloud, member):  # noqa: F811
    response = _call(application, 'POST', '/servers', '2.74', cloud['token'],
                     server_body(cloud, host='nowhere'))
    assert fault(response) == ('badRequest', 'Compute host nowhere could not be '
                                             'found.')
    response = _call(application, 'POST', '/servers', '2.74', member,
                     server_body(cloud, host='nowhere'))
    assert response.status_int == 403


def test_tags_api(application, cloud):  # noqa: F811
    server_id = _create(application, cloud, '2.90')
    path = '/servers/%s/tags' % server_id
    assert _call(application, 'GET', path, '2.25', cloud['token']).status_int == 404
    response = _call(application, 'PUT', path, '2.26', cloud['token'],
                     {'tags': ['x', 'y']})
    assert response.json == {'tags': ['x', 'y']}
    assert _call(application, 'PUT', path + '/z', '2.26',
                 cloud['token']).status_int == 201
    assert _call(application, 'PUT', path + '/z', '2.26',
                 cloud['token']).status_int == 204
    assert _call(application, 'GET', path + '/z', '2.26',
                 cloud['token']).status_int == 204
    assert _call(application, 'DELETE', path + '/x', '2.26',
                 cloud['token']).status_int == 204
    assert _call(application, 'GET', path + '/x', '2.26',
                 cloud['token']).status_int == 404
    assert _call(application, 'GET', path, '2.26',
                 cloud['token']).json == {'tags': ['y', 'z']}
    other = _create(application, cloud, '2.90', name='other', tags=['z'])
    for query, expected in (('tags=y,z', {server_id}), ('tags-any=z', {server_id, other}),
                            ('not-tags=y,z', {other}), ('not-tags-any=y', {other})):
        listed = _call(application, 'GET', '/servers?' + query, '2.26',
                       cloud['token']).json['servers']
        assert {s['id'] for s in listed} == expected, query
    assert _call(application, 'DELETE', path, '2.26', cloud['token']).status_int == 204
    assert _show(application, cloud, server_id, '2.26')['tags'] == []


def test_lock_reason_and_locked_filter(application, cloud):  # noqa: F811
    server_id = _create(application, cloud, '2.90')
    other = _create(application, cloud, '2.90', name='other')
    action = '/servers/%s/action' % server_id
    assert _call(application, 'POST', action, '2.72', cloud['token'],
                 {'lock': {'locked_reason': 'x'}}).status_int == 400
    assert _call(application, 'POST', action, '2.73', cloud['token'],
                 {'lock': {'locked_reason': 'maintenance'}}).status_int == 202
    shown = _show(application, cloud, server_id, '2.73')
    assert shown['locked'] is True and shown['locked_reason'] == 'maintenance'
    listed = _call(application, 'GET', '/servers?locked=true', '2.73',
                   cloud['token']).json['servers']
    assert [s['id'] for s in listed] == [server_id]
    listed = _call(application, 'GET', '/servers?locked=false', '2.73',
                   cloud['token']).json['servers']
    assert [s['id'] for s in listed] == [other]
    assert _call(application, 'GET', '/servers?locked=maybe', '2.73',
                 cloud['token']).status_int == 400


def test_list_query_strict_from_2_75_and_status_from_2_38(application, cloud):  # noqa: F811
    _create(application, cloud, '2.90')
    for version, query, status in (('2.74', 'foo=1', 200), ('2.75', 'foo=1', 400),
                                   ('2.37', 'status=bogus', 200),
                                   ('2.38', 'status=bogus', 400),
                                   ('2.38', 'status=PAUSED', 200)):
        response = _call(application, 'GET', '/servers?' + query, version,
                         cloud['token'])
        assert response.status_int == status, (version, query, response.text)
    assert _call(application, 'GET', '/servers?changes-before=2000-01-01T00:00:00Z',
                 '2.66', cloud['token']).json['servers'] == []


def test_update_view_and_fields(application, cloud, member):  # noqa: F811
    server_id = _create(application, cloud, '2.90')
    path = '/servers/%s' % server_id
    response = _call(application, 'PUT', path, '2.18', cloud['token'],
                     {'server': {'description': 'x'}})
    assert response.status_int == 400
    response = _call(application, 'PUT', path, '2.74', cloud['token'],
                     {'server': {'description': 'new'}})
    assert response.json['server']['description'] == 'new'
    assert 'OS-EXT-STS:vm_state' not in response.json['server']
    response = _call(application, 'PUT', path, '2.90', cloud['token'],
                     {'server': {'hostname': 'renamed', 'description': None}})
    assert response.json['server'] == _show(application, cloud, server_id, '2.90')
    assert response.json['server']['OS-EXT-SRV-ATTR:hostname'] == 'renamed'
    assert response.json['server']['description'] is None
    as_member = _show(application, cloud, server_id, '2.90', member)
    assert as_member['OS-EXT-SRV-ATTR:hostname'] == 'renamed'
    assert 'host_status' not in as_member
    assert 'OS-EXT-SRV-ATTR:hostname' not in _show(application, cloud, server_id,
                                                   '2.89', member)


def test_network_proxy_actions(application, cloud):  # noqa: F811
    server_id = _create(application, cloud, '2.90')
    action = '/servers/%s/action' % server_id
    body = {'removeFloatingIp': {'address': '10.0.0.1'}}
    assert _call(application, 'POST', action, '2.43', cloud['token'],
                 body).status_int == 404
    assert _call(application, 'POST', action, '2.44', cloud['token'],
                 body).status_int == 404
    assert _call(application, 'POST', action, '2.43', cloud['token'],
                 {'addFixedIp': {}}).status_int == 400
    assert _call(application, 'POST', action, '2.44', cloud['token'],
                 {'addFixedIp': {'networkId': 'x'}}).status_int == 404
