"""The compute API's resources besides servers, through the WSGI application.

Flavors, key pairs and server groups (quotas, limits and hosts are in
test_compute_quotas_and_hosts.py): the shapes the clients read at 2.1 - 2.5, policy,
bad input and the microversion differences.
"""

import uuid

import pytest

from provisioner.db import api as db_api
from tests.unit.api.compute import V, fault, microversion
from tests.unit import fixtures

SSH_KEY = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKEMWVXgbcMhFDxKVnDs8LCF6IECKgmO1ErXX'
           'fEsfKnq user@example')
pytestmark = pytest.mark.usefixtures('test_hypervisor')


# -- flavors -----------------------------------------------------------------------

FLAVOR_KEYS = {'id', 'name', 'ram', 'vcpus', 'disk', 'OS-FLV-EXT-DATA:ephemeral',
               'swap', 'rxtx_factor', 'os-flavor-access:is_public',
               'OS-FLV-DISABLED:disabled', 'links'}


def osc_flavor(name='m1.tiny', **extra):
    """The body of `openstack flavor create` (OSC 10)."""
    flavor = {'name': name, 'ram': 512, 'vcpus': 1, 'disk': 1, 'id': None, 'swap': 0,
              'OS-FLV-EXT-DATA:ephemeral': 0, 'os-flavor-access:is_public': True}
    flavor.update(extra)
    return {'flavor': flavor}


def test_flavor_create_show_list_delete(admin_client, member_client):
    created = admin_client.post(V + '/flavors', osc_flavor())
    assert created.status_int == 200, created.text
    flavor = created.json['flavor']
    assert set(flavor) == FLAVOR_KEYS
    assert uuid.UUID(flavor['id'])
    assert (flavor['ram'], flavor['vcpus'], flavor['disk'], flavor['swap'],
            flavor['rxtx_factor']) == (512, 1, 1, '', 1.0)
    assert [link['rel'] for link in flavor['links']] == ['self', 'bookmark']
    assert flavor['links'][0]['href'].endswith('/compute/v2.1/flavors/' + flavor['id'])

    shown = member_client.get(V + '/flavors/' + flavor['id'])
    assert shown.status_int == 200 and shown.json['flavor'] == flavor
    # A name is not an id: 404, and the clients list and match.
    assert member_client.get(V + '/flavors/m1.tiny').status_int == 404
    listed = member_client.get(V + '/flavors/detail?is_public=None')
    assert listed.json == {'flavors': [flavor]}
    assert member_client.get(V + '/flavors').json == {
        'flavors': [{'id': flavor['id'], 'name': 'm1.tiny', 'links': flavor['links']}]}
    assert member_client.get(V + '/flavors/%s/os-extra_specs' % flavor['id']).json == {
        'extra_specs': {}}

    assert member_client.delete(V + '/flavors/' + flavor['id']).status_int == 403
    deleted = admin_client.delete(V + '/flavors/' + flavor['id'])
    assert deleted.status_int == 202 and deleted.body == b''
    assert admin_client.get(V + '/flavors/' + flavor['id']).status_int == 404
    assert admin_client.delete(V + '/flavors/' + flavor['id']).status_int == 404


def test_flavor_given_id_strings_and_conflicts(admin_client):
    created = admin_client.post(V + '/flavors', osc_flavor(
        'small', id='42', ram='1024', vcpus='2', disk='10', rxtx_factor=1.0))
    assert created.status_int == 200, created.text
    assert created.json['flavor']['id'] == '42'
    assert created.json['flavor']['ram'] == 1024
    again = admin_client.post(V + '/flavors', osc_flavor('other', id='42'))
    assert again.status_int == 409
    assert fault(again) == ('conflictingRequest', 'Flavor with ID 42 already exists.')
    same_name = admin_client.post(V + '/flavors', osc_flavor('small'))
    assert same_name.status_int == 409
    assert 'small' in fault(same_name)[1]


@pytest.mark.parametrize('change', [
    {'swap': -1}, {'OS-FLV-EXT-DATA:ephemeral': 'x'}, {'rxtx_factor': 0},
    {'os-flavor-access:is_public': 'maybe'}, {'ram': 0}, {'ram': 'lots'},
    {'vcpus': -1}, {'disk': None}, {'description': 'new at 2.55'},
    {'name': ' padded'}, {'name': ''}, {'id': ' x'}])
def test_flavor_create_refuses(admin_client, change):
    response = admin_client.post(V + '/flavors', osc_flavor(**change))
    assert response.status_int == 400, response.text
    assert fault(response)[0] == 'badRequest'
    assert admin_client.get(V + '/flavors').json == {'flavors': []}


def test_flavor_create_needs_admin_and_a_body(admin_client, member_client):
    response = member_client.post(V + '/flavors', osc_flavor())
    assert response.status_int == 403 and fault(response)[0] == 'forbidden'
    assert admin_client.post(V + '/flavors', {'flavour': {}}).status_int == 400
    assert admin_client.post(V + '/flavors', raw=b'{"flavor":').status_int == 400
    assert admin_client.get(V + '/flavors').json == {'flavors': []}


def test_flavor_delete_in_use_is_409(admin_client, admin_context):
    fixtures.add_instance(admin_context)  # its flavor is f-vm1
    flavor_id = [f for f in admin_client.get(V + '/flavors').json['flavors']
                 if f['name'] == 'f-vm1'][0]['id']
    response = admin_client.delete(V + '/flavors/' + flavor_id)
    assert response.status_int == 409


def test_flavor_list_filters_sorting_and_pages(admin_client, member_client):
    ids = []
    for name, ram, disk in (('a', 256, 1), ('b', 1024, 20), ('c', 2048, 40)):
        ids.append(admin_client.post(V + '/flavors', osc_flavor(
            name, ram=ram, disk=disk, id='id-' + name)).json['flavor']['id'])
    names = lambda r: [f['name'] for f in r.json['flavors']]  # noqa: E731
    assert names(member_client.get(V + '/flavors/detail?minRam=1000')) == ['b', 'c']
    assert names(member_client.get(V + '/flavors?minDisk=30')) == ['c']
    assert names(member_client.get(V + '/flavors?sort_key=memory_mb&sort_dir=desc')) \
        == ['c', 'b', 'a']
    # Members always see the public flavors; admins may ask for the private ones.
    assert names(member_client.get(V + '/flavors?is_public=False')) == ['a', 'b', 'c']
    assert names(admin_client.get(V + '/flavors?is_public=false')) == []
    assert names(admin_client.get(V + '/flavors?is_public=True')) == ['a', 'b', 'c']

    first = member_client.get(V + '/flavors/detail?limit=2')
    assert names(first) == ['a', 'b']
    [link] = first.json['flavors_links']
    assert link['rel'] == 'next' and 'marker=id-b' in link['href']
    assert '/flavors/detail?' in link['href']
    rest = member_client.get(V + '/flavors/detail?limit=2&marker=id-b')
    assert names(rest) == ['c'] and 'flavors_links' not in rest.json

    for bad in ('minRam=x', 'minDisk=1.5', 'limit=-1', 'marker=nope', 'sort_key=ram',
                'sort_dir=up'):
        assert member_client.get(V + '/flavors?' + bad).status_int == 400, bad
    assert admin_client.get(V + '/flavors?is_public=maybe').status_int == 400


def test_flavor_extra_specs(admin_client, member_client):
    flavor_id = admin_client.post(V + '/flavors', osc_flavor()).json['flavor']['id']
    specs = V + '/flavors/%s/os-extra_specs' % flavor_id
    assert member_client.get(specs + '/hw:cpu_policy').status_int == 404
    assert member_client.get(V + '/flavors/nope/os-extra_specs').status_int == 404
    assert member_client.post(specs, {'extra_specs': {'a': 'b'}}).status_int == 403
    made = admin_client.post(specs, {'extra_specs': {'hw:cpu_policy': 'shared',
                                                     'quota:n': 2}})
    assert made.json == {'extra_specs': {'hw:cpu_policy': 'shared', 'quota:n': '2'}}
    assert member_client.get(specs + '/quota:n').json == {'quota:n': '2'}
    assert admin_client.put(specs + '/quota:n', {'quota:n': 'x'}).json == {'quota:n': 'x'}
    assert admin_client.put(specs + '/quota:n', {'other': 'x'}).status_int == 400
    assert admin_client.post(specs, {'extra_specs': {'bad/key': 'b'}}).status_int == 400
    assert admin_client.delete(specs + '/quota:n').status_int == 200
    assert admin_client.delete(specs + '/quota:n').status_int == 404
    assert member_client.get(specs).json == {'extra_specs': {'hw:cpu_policy': 'shared'}}
    shown = member_client.get(V + '/flavors/' + flavor_id,
                              headers=microversion('2.61')).json['flavor']
    assert shown['extra_specs'] == {'hw:cpu_policy': 'shared'}


def test_a_private_flavor_is_seen_and_booted_by_its_projects_only(
        admin_client, member_client):
    created = admin_client.post(V + '/flavors', osc_flavor(
        'private', **{'os-flavor-access:is_public': 'False', 'swap': 0}))
    flavor = created.json['flavor']
    assert flavor['os-flavor-access:is_public'] is False
    flavor_id = flavor['id']
    assert member_client.get(V + '/flavors/' + flavor_id).status_int == 404
    assert flavor_id not in {f['id'] for f in member_client.get(V + '/flavors').json[
        'flavors']}
    assert flavor_id not in {f['id'] for f in admin_client.get(V + '/flavors').json[
        'flavors']}  # an admin's default view is the public flavors, as Nova's
    assert flavor_id in {f['id'] for f in admin_client.get(
        V + '/flavors?is_public=false').json['flavors']}
    access = V + '/flavors/%s/os-flavor-access' % flavor_id
    assert admin_client.get(access).json == {'flavor_access': []}
    action = V + '/flavors/%s/action' % flavor_id
    [demo] = [p['id'] for p in admin_client.get('/identity/v3/projects').json['projects']
              if p['name'] == 'demo']
    boot = {'server': {'name': 's', 'flavorRef': flavor_id, 'imageRef': 'no-such-image',
                       'networks': 'none'}}
    refused = member_client.post(V + '/servers', boot, headers=microversion('2.37'))
    assert refused.status_int == 400 and flavor_id in fault(refused)[1]
    assert member_client.post(action, {'addTenantAccess': {
        'tenant': demo}}).status_int == 403
    added = admin_client.post(action, {'addTenantAccess': {'tenant': demo}})
    assert added.json == {'flavor_access': [{'flavor_id': flavor_id, 'tenant_id': demo}]}
    assert admin_client.post(action, {'addTenantAccess': {
        'tenant': demo}}).status_int == 409
    assert member_client.get(V + '/flavors/' + flavor_id).status_int == 200
    refused = member_client.post(V + '/servers', boot, headers=microversion('2.37'))
    assert refused.status_int == 400 and 'no-such-image' in fault(refused)[1]
    assert admin_client.post(action, {'removeTenantAccess': {
        'tenant': demo}}).json == {'flavor_access': []}
    assert admin_client.post(action, {'removeTenantAccess': {
        'tenant': demo}}).status_int == 404
    public = admin_client.post(V + '/flavors', osc_flavor('pub')).json['flavor']
    assert admin_client.get(V + '/flavors/%s/os-flavor-access'
                            % public['id']).status_int == 404


# -- key pairs ---------------------------------------------------------------------

def test_keypair_import_list_show_delete_at_2_1(member_client):
    created = member_client.post(V + '/os-keypairs', {'keypair': {
        'name': 'my key', 'public_key': SSH_KEY}})
    assert created.status_int == 200, created.text
    keypair = created.json['keypair']
    assert set(keypair) == {'name', 'public_key', 'fingerprint', 'user_id'}
    assert keypair['public_key'] == SSH_KEY
    assert len(keypair['fingerprint'].split(':')) == 16

    listed = member_client.get(V + '/os-keypairs')
    assert listed.json == {'keypairs': [{'keypair': {
        'name': 'my key', 'public_key': SSH_KEY, 'fingerprint': keypair['fingerprint']}}]}
    shown = member_client.get(V + '/os-keypairs/my%20key').json['keypair']
    assert set(shown) == {'name', 'public_key', 'fingerprint', 'user_id', 'id',
                          'created_at', 'deleted', 'deleted_at', 'updated_at'}
    assert (shown['deleted'], shown['deleted_at'], shown['updated_at']) == (
        False, None, None)
    assert shown['user_id'] == keypair['user_id']

    deleted = member_client.delete(V + '/os-keypairs/my%20key')
    assert deleted.status_int == 202
    assert member_client.get(V + '/os-keypairs/my%20key').status_int == 404
    assert member_client.get(V + '/os-keypairs').json == {'keypairs': []}


def test_keypair_type_from_2_2(member_client):
    header = microversion('2.2')
    created = member_client.post(V + '/os-keypairs', {'keypair': {
        'name': 'k1', 'public_key': SSH_KEY, 'type': 'ssh'}}, headers=header)
    assert created.status_int == 201, created.text
    assert created.json['keypair']['type'] == 'ssh'
    assert member_client.get(V + '/os-keypairs', headers=header).json[
        'keypairs'][0]['keypair']['type'] == 'ssh'
    assert member_client.get(V + '/os-keypairs/k1', headers=header).json[
        'keypair']['type'] == 'ssh'
    # At 2.1 there is no type: not in answers, refused in requests.
    assert 'type' not in member_client.get(V + '/os-keypairs/k1').json['keypair']
    refused = member_client.post(V + '/os-keypairs', {'keypair': {
        'name': 'k2', 'public_key': SSH_KEY, 'type': 'ssh'}})
    assert refused.status_int == 400
    assert member_client.post(V + '/os-keypairs', {'keypair': {
        'name': 'k2', 'type': 'rsa'}}, headers=header).status_int == 400
    assert member_client.delete(V + '/os-keypairs/k1', headers=header).status_int == 204


def test_keypair_generated_private_key_is_returned_once(member_client):
    created = member_client.post(V + '/os-keypairs', {'keypair': {'name': 'gen'}})
    assert created.status_int == 200, created.text
    keypair = created.json['keypair']
    assert keypair['private_key'].startswith('-----BEGIN RSA PRIVATE KEY-----')
    assert keypair['public_key'].startswith('ssh-rsa ')
    shown = member_client.get(V + '/os-keypairs/gen').json['keypair']
    assert 'private_key' not in shown
    assert shown['public_key'] == keypair['public_key']


def test_keypair_x509_at_2_2(member_client):
    created = member_client.post(V + '/os-keypairs', {'keypair': {
        'name': 'win', 'type': 'x509'}}, headers=microversion('2.2'))
    assert created.status_int == 201, created.text
    keypair = created.json['keypair']
    assert keypair['public_key'].startswith('-----BEGIN CERTIFICATE-----')
    assert len(keypair['fingerprint'].split(':')) == 20  # SHA-1


@pytest.mark.parametrize('body, status', [
    ({'keypair': {'name': 'bad', 'public_key': 'ssh-rsa notakey'}}, 400),
    ({'keypair': {'name': 'bad', 'public_key': 'hello'}}, 400),
    ({'keypair': {'name': 'semi;colon'}}, 400),
    ({'keypair': {'name': 'x' * 256}}, 400),
    ({'keypair': {'name': ''}}, 400),
    ({'keypair': {'name': 7}}, 400),
    ({'keypair': {'name': 'k', 'extra': 1}}, 400),
    ({'keypair': {}}, 400),
    ({'key_pair': {'name': 'k'}}, 400),
])
def test_keypair_bad_input(member_client, body, status):
    response = member_client.post(V + '/os-keypairs', body)
    assert response.status_int == status, response.text
    assert member_client.get(V + '/os-keypairs').json == {'keypairs': []}


def test_keypair_bad_key_message_is_novas(member_client):
    response = member_client.post(V + '/os-keypairs', {'keypair': {
        'name': 'bad', 'public_key': 'ssh-rsa notakey'}})
    assert fault(response) == ('badRequest', 'Keypair data is invalid: failed to '
                                             'generate fingerprint')


def test_keypair_duplicate_is_409_and_other_users_are_404(member_client, app,
                                                         make_token):
    body = {'keypair': {'name': 'dup', 'public_key': SSH_KEY}}
    assert member_client.post(V + '/os-keypairs', body).status_int == 200
    again = member_client.post(V + '/os-keypairs', body)
    assert again.status_int == 409
    assert fault(again) == ('conflictingRequest', "Key pair 'dup' already exists.")
    other = member_client.as_(make_token('other-user', 'member', 'demo'))
    assert other.get(V + '/os-keypairs/dup').status_int == 404
    assert other.delete(V + '/os-keypairs/dup').status_int == 404
    assert other.get(V + '/os-keypairs').json == {'keypairs': []}
    # The same name is free for another user.
    assert other.post(V + '/os-keypairs', body).status_int == 200


def test_keypair_needs_a_token(client):
    assert client.get(V + '/os-keypairs').status_int == 401


# -- server groups -----------------------------------------------------------------

def test_server_group_create_show_list_delete(member_client):
    created = member_client.post(V + '/os-server-groups', {'server_group': {
        'name': 'apart', 'policies': ['anti-affinity']}})
    assert created.status_int == 200, created.text
    group = created.json['server_group']
    # 2.1 - 2.12: no project_id or user_id.
    assert set(group) == {'id', 'name', 'policies', 'members', 'metadata'}
    assert (group['name'], group['policies'], group['members'], group['metadata']) == (
        'apart', ['anti-affinity'], [], {})
    assert member_client.get(V + '/os-server-groups/' + group['id']).json == {
        'server_group': group}
    assert member_client.get(V + '/os-server-groups/apart').status_int == 404
    assert member_client.get(V + '/os-server-groups').json == {'server_groups': [group]}
    deleted = member_client.delete(V + '/os-server-groups/' + group['id'])
    assert deleted.status_int == 204
    assert member_client.get(V + '/os-server-groups/' + group['id']).status_int == 404


def test_server_group_members_are_instance_ids(member_client, make_token):
    from provisioner.compute import server_groups
    from provisioner.identity import service as identity
    group = member_client.post(V + '/os-server-groups', {'server_group': {
        'name': 'g', 'policies': ['affinity']}}).json['server_group']
    context = identity.validate(member_client.token)
    instance_id = fixtures.add_instance(context)
    with db_api.transaction() as session:
        server_groups.add_member(session, context, group['id'], instance_id)
    shown = member_client.get(V + '/os-server-groups/' + group['id']).json
    assert shown['server_group']['members'] == [instance_id]


@pytest.mark.parametrize('spec', [
    {'name': 'g', 'policies': ['soft-anti-affinity']},
    {'name': 'g', 'policies': ['affinity', 'anti-affinity']},
    {'name': 'g', 'policies': []},
    {'name': 'g', 'policies': 'affinity'},
    {'name': 'g', 'policy': 'affinity'},
    {'name': 'g', 'policies': ['affinity'], 'rules': {}},
    {'policies': ['affinity']},
])
def test_server_group_bad_input(member_client, spec):
    response = member_client.post(V + '/os-server-groups', {'server_group': spec})
    assert response.status_int == 400, response.text
    assert member_client.get(V + '/os-server-groups').json == {'server_groups': []}


def test_server_group_projects_and_paging(member_client, admin_client):
    for name in ('g1', 'g2', 'g3'):
        assert member_client.post(V + '/os-server-groups', {'server_group': {
            'name': name, 'policies': ['affinity']}}).status_int == 200
    names = lambda r: [g['name'] for g in r.json['server_groups']]  # noqa: E731
    assert names(member_client.get(V + '/os-server-groups?limit=2&offset=1')) == [
        'g2', 'g3']
    assert member_client.get(V + '/os-server-groups?limit=x').status_int == 400
    # Another project's groups: not seen, not found; all_projects is for admins.
    assert names(admin_client.get(V + '/os-server-groups')) == []
    assert names(admin_client.get(V + '/os-server-groups?all_projects=True')) == [
        'g1', 'g2', 'g3']
    assert names(member_client.get(V + '/os-server-groups?all_projects=True')) == [
        'g1', 'g2', 'g3']
    group_id = member_client.get(V + '/os-server-groups').json['server_groups'][0]['id']
    assert admin_client.delete(V + '/os-server-groups/' + group_id).status_int == 404


def test_server_group_quota(member_client):
    for n in range(10):
        assert member_client.post(V + '/os-server-groups', {'server_group': {
            'name': 'g%d' % n, 'policies': ['affinity']}}).status_int == 200
    response = member_client.post(V + '/os-server-groups', {'server_group': {
        'name': 'one-too-many', 'policies': ['affinity']}})
    assert response.status_int == 403
