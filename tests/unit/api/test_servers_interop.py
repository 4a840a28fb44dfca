"""What the interop guideline's compute tests check of servers: several at once,
duplicate names, access addresses, the update view, metadata, addresses by network,
lock, request ids, version documents and key pair ids. Flows run inline on
libvirt's test:/// driver.
"""

import pytest

from provisioner.identity import admin
from provisioner.identity import service as identity

from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture
from tests.unit.api.test_servers import instance_count
from tests.unit.api.test_servers import server_body

V = '/compute/v2.1'


def _get(application, path, token):  # noqa: F811
    response = call(application, 'GET', V + path, token=token)
    assert response.status_int == 200, response.text
    return response.json


@pytest.fixture
def member(admin_context):
    """A member (not admin) of the admin project, where the cloud's servers are."""
    admin.create_user(admin_context, 'mia', 'mia-secret1')
    admin.add_role(admin_context, 'mia', 'admin', 'member')
    return identity.authenticate('mia', 'mia-secret1', 'admin')


def test_every_compute_answer_carries_the_request_id_as_nova_names_it(
        application, cloud):  # noqa: F811
    created = call(application, 'POST', V + '/servers', server_body(cloud),
                   cloud['token'])
    missing = call(application, 'GET', V + '/servers/nope', token=cloud['token'])
    for response in (created, missing):
        request_id = response.headers['x-openstack-request-id']
        assert response.headers['x-compute-request-id'] == request_id
    actions = _get(application, '/servers/%s/os-instance-actions'
                   % created.json['server']['id'], cloud['token'])['instanceActions']
    assert actions[0]['request_id'] == created.headers['x-compute-request-id']
    other = call(application, 'GET', '/network/v2.0/networks', token=cloud['token'])
    assert 'x-compute-request-id' not in other.headers


def test_names_may_repeat(application, cloud):  # noqa: F811
    first, second = boot(application, cloud), boot(application, cloud)
    listed = _get(application, '/servers?name=vm1', cloud['token'])['servers']
    assert sorted(s['id'] for s in listed) == sorted([first, second])


def test_min_and_max_count_boot_that_many_named_by_index(application, cloud):  # noqa: F811
    response = call(application, 'POST', V + '/servers',
                    server_body(cloud, name='web', min_count=2, max_count='3'),
                    cloud['token'])
    assert response.status_int == 202, response.text
    servers = _get(application, '/servers/detail', cloud['token'])['servers']
    assert sorted(s['name'] for s in servers) == ['web-1', 'web-2', 'web-3']
    assert response.json['server']['id'] in {s['id'] for s in servers}
    assert {s['status'] for s in servers} == {'ACTIVE'}


def test_return_reservation_id_answers_it_and_lists_by_it(application, cloud):  # noqa: F811
    response = call(application, 'POST', V + '/servers',
                    server_body(cloud, name='r', max_count=2,
                                return_reservation_id=True), cloud['token'])
    assert response.status_int == 202, response.text
    assert set(response.json) == {'reservation_id'}
    reservation = response.json['reservation_id']
    boot(application, cloud, name='other')
    listed = _get(application, '/servers?reservation_id=%s' % reservation,
                  cloud['token'])['servers']
    assert sorted(s['name'] for s in listed) == ['r-1', 'r-2']
    shown = call(application, 'GET', V + '/servers/%s' % listed[0]['id'],
                 token=cloud['token'], headers={
                     'OpenStack-API-Version': 'compute 2.3'}).json['server']
    assert shown['OS-EXT-SRV-ATTR:reservation_id'] == reservation


def test_several_servers_cannot_share_a_fixed_address(application, cloud):  # noqa: F811
    response = call(application, 'POST', V + '/servers', server_body(
        cloud, max_count=2, networks=[{'uuid': cloud['network'],
                                       'fixed_ip': '10.66.0.9'}]), cloud['token'])
    assert response.status_int == 400, response.text
    assert instance_count() == 0


def test_access_addresses_are_kept_shown_and_updated(application, cloud):  # noqa: F811
    server_id = boot(application, cloud, accessIPv4='1.1.1.1',
                     accessIPv6='0000:0000:0000:0000:0000:babe:220.12.22.2')
    path = '/servers/%s' % server_id
    shown = _get(application, path, cloud['token'])['server']
    assert (shown['accessIPv4'], shown['accessIPv6']) == ('1.1.1.1',
                                                          '::babe:dc0c:1602')
    updated = call(application, 'PUT', V + path, {'server': {
        'accessIPv4': '4.3.2.1', 'accessIPv6': '2001:2001::3'}}, cloud['token'])
    assert updated.status_int == 200, updated.text
    assert (updated.json['server']['accessIPv4'],
            updated.json['server']['accessIPv6']) == ('4.3.2.1', '2001:2001::3')
    bad = call(application, 'PUT', V + path, {'server': {'accessIPv4': '1.1.1.1.1'}},
               cloud['token'])
    assert bad.status_int == 400
    assert _get(application, path, cloud['token'])['server']['accessIPv4'] == '4.3.2.1'


def test_update_answers_nova_s_update_view(application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    response = call(application, 'PUT', V + '/servers/%s' % server_id,
                    {'server': {'name': 'renamed'}}, cloud['token'])
    assert response.status_int == 200, response.text
    server = response.json['server']
    assert server['name'] == 'renamed'
    assert set(server) == {'id', 'name', 'status', 'tenant_id', 'user_id', 'metadata',
                           'hostId', 'image', 'flavor', 'created', 'updated',
                           'addresses', 'accessIPv4', 'accessIPv6', 'OS-DCF:diskConfig',
                           'progress', 'links'}
    [(network, [address])] = server['addresses'].items()
    assert set(address) == {'version', 'addr'}


def test_metadata_read_replaced_merged_and_by_key(application, cloud):  # noqa: F811
    server_id = boot(application, cloud, metadata={'a': '1'})
    path = V + '/servers/%s/metadata' % server_id
    token = cloud['token']

    def send(method, suffix='', body=None):
        return call(application, method, path + suffix, body, token)

    assert send('GET').json == {'metadata': {'a': '1'}}
    assert send('PUT', body={'metadata': {'b': '2', 'c': '3'}}).json == {
        'metadata': {'b': '2', 'c': '3'}}
    assert send('POST', body={'metadata': {'c': '4', 'd': '5'}}).json == {
        'metadata': {'b': '2', 'c': '4', 'd': '5'}}
    assert send('GET', '/c').json == {'meta': {'c': '4'}}
    assert send('PUT', '/e', {'meta': {'e': '6'}}).json == {'meta': {'e': '6'}}
    assert send('DELETE', '/b').status_int == 204
    assert send('GET', '/b').status_int == 404
    assert send('DELETE', '/b').status_int == 404
    assert send('PUT', '/x', {'meta': {'y': '1'}}).status_int == 400  # key mismatch
    assert send('PUT', '/x', {'meta': {'x': '1', 'y': '2'}}).status_int == 400
    assert send('PUT', body={'metadata': {'': 'empty key'}}).status_int == 400
    assert _get(application, '/servers/%s' % server_id, token)['server'][
        'metadata'] == {'c': '4', 'd': '5', 'e': '6'}


def test_more_metadata_than_the_quota_is_a_403(application, cloud):  # noqa: F811
    many = {'k%d' % i: 'v' for i in range(129)}
    created = call(application, 'POST', V + '/servers',
                   server_body(cloud, metadata=many), cloud['token'])
    assert created.status_int == 403, created.text
    assert instance_count() == 0
    server_id = boot(application, cloud, metadata={'a': '1'})
    path = V + '/servers/%s/metadata' % server_id
    merged = dict(list(many.items())[:128])
    assert call(application, 'POST', path, {'metadata': merged},
                cloud['token']).status_int == 403  # 128 + 'a'
    assert call(application, 'PUT', path, {'metadata': merged},
                cloud['token']).status_int == 200


def test_addresses_by_network(application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    path = '/servers/%s/ips' % server_id
    addresses = _get(application, path, cloud['token'])['addresses']
    [(label, [address])] = addresses.items()
    assert label == 'net1' and address['version'] == 4
    assert address['addr'].startswith('10.66.0.')
    assert _get(application, path + '/net1', cloud['token']) == {'net1': [address]}
    assert call(application, 'GET', V + path + '/nope',
                token=cloud['token']).status_int == 404
    assert call(application, 'GET', V + '/servers/nope/ips',
                token=cloud['token']).status_int == 404


def test_a_locked_server_refuses_non_admins(application, cloud, member):  # noqa: F811
    server_id = boot(application, cloud)
    path = V + '/servers/%s' % server_id

    def act(body, token):
        return call(application, 'POST', path + '/action', body, token)

    assert act({'lock': {}}, member).status_int == 202
    assert act({'os-stop': None}, member).status_int == 409
    assert call(application, 'DELETE', path, token=member).status_int == 409
    assert call(application, 'POST', path + '/metadata', {'metadata': {'a': 'b'}},
                member).status_int == 409
    assert act({'unlock': None}, member).status_int == 202
    assert act({'os-stop': None}, member).status_int == 202
    # An admin's lock: admins still act, only an admin lifts it.
    assert act({'lock': None}, cloud['token']).status_int == 202
    assert act({'os-start': None}, cloud['token']).status_int == 202
    assert act({'unlock': None}, member).status_int == 403
    assert act({'unlock': None}, cloud['token']).status_int == 202


def test_any_action_on_a_missing_server_is_a_404(application, cloud):  # noqa: F811
    for body in ({'os-stop': None}, {'no-such-action': None}, {'lock': None}):
        response = call(application, 'POST', V + '/servers/nope/action', body,
                        cloud['token'])
        assert response.status_int == 404, response.text
    server_id = boot(application, cloud)
    unknown = call(application, 'POST', V + '/servers/%s/action' % server_id,
                   {'no-such-action': None}, cloud['token'])
    assert unknown.status_int == 400
    assert 'There is no such action: no-such-action' in unknown.text


def test_version_list_has_v2_0_and_v2_1(application):  # noqa: F811
    versions = call(application, 'GET', '/compute/').json['versions']
    assert [(v['id'], v['status']) for v in versions] == [('v2.0', 'SUPPORTED'),
                                                           ('v2.1', 'CURRENT')]
    for listed in versions:  # each self link answers its own document
        path = '/compute/' + listed['links'][0]['href'].split('/compute/')[1]
        shown = call(application, 'GET', path).json['version']
        assert (shown['id'], shown['status']) == (listed['id'], listed['status'])


def test_a_key_pair_shows_an_integer_id(application, cloud):  # noqa: F811
    created = call(application, 'POST', V + '/os-keypairs',
                   {'keypair': {'name': 'k1'}}, cloud['token'])
    assert created.status_int == 200, created.text
    for version in ('2.1', '2.2'):
        shown = call(application, 'GET', V + '/os-keypairs/k1', token=cloud['token'],
                     headers={'OpenStack-API-Version': 'compute %s' % version})
        assert isinstance(shown.json['keypair']['id'], int)


def test_rebuild_finds_the_server_first_and_says_what_is_missing(
        application, cloud):  # noqa: F811
    body = {'rebuild': {'imageRef': cloud['image'], 'name': 'again'}}
    missing = call(application, 'POST', V + '/servers/nope/action', body,
                   cloud['token'])
    assert missing.status_int == 404
    server_id = boot(application, cloud)
    path = V + '/servers/%s/action' % server_id
    assert call(application, 'POST', path, {'rebuild': {}},
                cloud['token']).status_int == 400  # no imageRef
    assert _get(application, '/servers/%s' % server_id, cloud['token'])['server'][
        'name'] == 'vm1'
    # What a rebuild then does: tests/unit/api/test_rebuild.py.
    assert call(application, 'POST', path, body, cloud['token']).status_int == 202


def test_an_unknown_status_lists_nothing(application, cloud):  # noqa: F811
    boot(application, cloud)
    for path in ('/servers', '/servers/detail'):
        assert _get(application, path + '?status=non_existing_status',
                    cloud['token'])['servers'] == []


def test_admin_state_reset_and_the_actions_of_soft_deletion(
        application, cloud, member):  # noqa: F811
    server_id = boot(application, cloud)
    path = V + '/servers/%s/action' % server_id
    for action in ({'os-resetState': {'state': 'error'}}, {'injectNetworkInfo': None}):
        assert call(application, 'POST', path, action, member).status_int == 403
    assert call(application, 'POST', path, {'os-resetState': {'state': 'paused'}},
                cloud['token']).status_int == 400
    assert call(application, 'POST', path, {'os-resetState': {'state': 'error'}},
                cloud['token']).status_int == 202
    shown = call(application, 'GET', V + '/servers/' + server_id, token=cloud['token'])
    assert shown.json['server']['status'] == 'ERROR'
    errored = call(application, 'GET', V + '/servers?status=ERROR', token=cloud['token'])
    assert [s['id'] for s in errored.json['servers']] == [server_id]
    assert call(application, 'POST', path, {'os-resetState': {'state': 'active'}},
                cloud['token']).status_int == 202
    assert call(application, 'GET', V + '/servers/' + server_id,
                token=cloud['token']).json['server']['status'] == 'ACTIVE'
    assert call(application, 'POST', path, {'injectNetworkInfo': None},
                cloud['token']).status_int == 202
    for action in ('restore', 'forceDelete'):
        refused = call(application, 'POST', path, {action: None}, cloud['token'])
        assert refused.status_int == 409 and 'vm_state active' in refused.text


def test_tenant_id_picks_a_project_only_with_all_tenants(application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    other = '0123456789abcdef0123456789abcdef'
    own = call(application, 'GET', V + '/servers?tenant_id=' + other,
               token=cloud['token']).json['servers']
    assert [s['id'] for s in own] == [server_id]  # ignored: the caller's project
    picked = call(application, 'GET', V + '/servers?all_tenants=1&tenant_id=' + other,
                  token=cloud['token']).json['servers']
    assert picked == []
