"""Image v2, network v2.0 and block storage v3 through the WSGI application."""

import uuid

import pytest

from provisioner.api import app as api_app
from provisioner.api import identity
from provisioner.api import image
from provisioner.api import network
from provisioner.api import volume
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.identity import service as identity_service
from tests.unit import fixtures


@pytest.fixture
def app(deployment):
    # These services alone: the tests do not depend on compute.
    return api_app.Application(deployment, {
        '/identity': identity.SERVICE, '/image': image.SERVICE,
        '/network': network.SERVICE, '/volume': volume.SERVICE})


def add_image(name, **fields):
    row = models.Image(id=str(uuid.uuid4()), name=name, size_bytes=fields.pop('size', 10),
                       **fields)
    with db_api.transaction() as session:
        session.add(row)
    return row.id


# -- image v2 ------------------------------------------------------------------------

def test_image_versions_are_public(client):
    response = client.get('/image/')
    assert response.status_int == 300
    versions = response.json['versions']
    assert versions[0]['status'] == 'CURRENT' and versions[0]['id'] == 'v2.15'
    assert {v['links'][0]['href'] for v in versions} == {'http://localhost/image/v2/'}


def test_image_list_and_show(member_client):
    disk = add_image('cirros', disk_path='/srv/images/cirros.qcow2', disk_format='qcow2',
                     disk_sha256='ab' * 32, min_ram_mib=64, min_disk_gib=1,
                     arch='x86_64')
    kernel = add_image('kern', kernel_path='/srv/images/vmlinuz', kernel_sha256='cd' * 32,
                       ramdisk_path='/srv/images/initrd', cmdline='console=ttyS0')
    response = member_client.get('/image/v2/images')
    assert response.status_int == 200
    body = response.json
    assert body['schema'] == '/v2/schemas/images' and body['first'] == '/v2/images'
    assert 'next' not in body
    assert {i['name'] for i in body['images']} == {'cirros', 'kern'}
    shown = member_client.get('/image/v2/images/' + disk).json
    assert shown == {
        'id': disk, 'name': 'cirros', 'status': 'active', 'visibility': 'public',
        'container_format': 'bare', 'disk_format': 'qcow2', 'size': 10,
        'virtual_size': None, 'min_disk': 1, 'min_ram': 64, 'protected': False,
        'os_hidden': False, 'owner': None, 'checksum': None, 'os_hash_algo': 'sha256',
        'os_hash_value': 'ab' * 32, 'tags': [], 'created_at': shown['created_at'],
        'updated_at': shown['created_at'], 'self': '/v2/images/' + disk,
        'file': '/v2/images/%s/file' % disk, 'schema': '/v2/schemas/image',
        'provisioner_boot': 'disk', 'architecture': 'x86_64'}
    assert shown['created_at'].endswith('Z')
    kern = member_client.get('/image/v2/images/' + kernel).json
    assert kern['disk_format'] == 'aki' and kern['provisioner_boot'] == 'kernel'
    assert kern['os_command_line'] == 'console=ttyS0'
    assert kern['os_hash_value'] == 'cd' * 32
    assert '/srv/images' not in response.text + str(shown) + str(kern)


def test_image_show_by_name_is_404_so_clients_list_by_name(member_client):
    add_image('cirros')
    response = member_client.get('/image/v2/images/cirros')
    assert response.status_int == 404
    assert response.json['code'] == '404 Not Found'
    assert response.json['title'] == 'Not Found' and 'cirros' in response.json['message']
    found = member_client.get('/image/v2/images?name=cirros').json['images']
    assert [i['name'] for i in found] == ['cirros']


def test_image_filters(member_client):
    ids = [add_image(name) for name in ('a', 'b', 'c')]
    get = member_client.get

    def names(query):
        response = get('/image/v2/images?' + query)
        assert response.status_int == 200, response.text
        return [i['name'] for i in response.json['images']]

    assert names('id=in:%s,%s&sort=name:asc' % (ids[0], ids[2])) == ['a', 'c']
    assert names('id=%s' % ids[1]) == ['b']
    assert names('name=zzz') == []
    assert names('status=queued') == []
    assert names('visibility=private') == []
    assert names('visibility=public&sort=name:desc') == ['c', 'b', 'a']
    assert names('os_hidden=True') == []
    assert names('sort_key=name&sort_dir=asc') == ['a', 'b', 'c']
    assert get('/image/v2/images?sort=color:asc').status_int == 400
    assert get('/image/v2/images?limit=x').status_int == 400


def test_image_paging(member_client):
    for name in ('a', 'b', 'c'):
        add_image(name)
    page = member_client.get('/image/v2/images?sort=name:asc&limit=2').json
    assert [i['name'] for i in page['images']] == ['a', 'b']
    assert page['next'].startswith('/v2/images?')
    rest = member_client.get('/image' + page['next']).json
    assert [i['name'] for i in rest['images']] == ['c'] and 'next' not in rest
    response = member_client.get('/image/v2/images?marker=nope')
    assert response.status_int == 400 and response.json['code'] == '400 Bad Request'


def test_image_delete(admin_client, member_client, admin_context):
    unused = add_image('unused')
    assert member_client.delete('/image/v2/images/' + unused).status_int == 403
    assert admin_client.delete('/image/v2/images/unused').status_int == 404
    assert admin_client.delete('/image/v2/images/' + unused).status_int == 204
    assert admin_client.get('/image/v2/images/' + unused).status_int == 404
    instance = fixtures.add_instance(admin_context)
    with db_api.transaction() as session:
        in_use = session.get(models.Instance, instance).image_id
    response = admin_client.delete('/image/v2/images/' + in_use)
    assert response.status_int == 409 and 'vm1' in response.json['message']


def test_image_without_a_token_is_401(client, admin_context):
    response = client.get('/image/v2/images')
    assert response.status_int == 401 and response.json['code'] == '401 Unauthorized'


# -- network v2.0 ----------------------------------------------------------------------

def test_network_versions_are_public(client):
    response = client.get('/network/')
    assert response.status_int == 200
    assert response.json['versions'][0]['links'][0]['href'] == \
        'http://localhost/network/v2.0/'


def test_networks_and_subnets(member_client):
    net_id = fixtures.add_network('net1', '10.77.0.0/29', '10.77.0.2', '10.77.0.4')
    fixtures.add_network('net2', '10.78.0.0/24', '10.78.0.10', '10.78.0.20')
    networks = member_client.get('/network/v2.0/networks').json['networks']
    assert [n['name'] for n in networks] == ['net1', 'net2']
    net = member_client.get('/network/v2.0/networks/' + net_id).json['network']
    for field in ('id', 'name', 'admin_state_up', 'status', 'subnets', 'shared',
                  'project_id', 'tenant_id', 'router:external', 'mtu',
                  'port_security_enabled', 'availability_zones',
                  'availability_zone_hints', 'tags', 'description', 'created_at',
                  'updated_at', 'revision_number'):
        assert field in net, field
    assert net['status'] == 'ACTIVE' and net['shared'] is True and net['mtu'] == 1500
    (subnet_id,) = net['subnets']
    again = member_client.get('/network/v2.0/networks/' + net_id).json['network']
    assert again['subnets'] == [subnet_id]  # derived, stable
    subnet = member_client.get('/network/v2.0/subnets/' + subnet_id).json['subnet']
    assert subnet['network_id'] == net_id and subnet['cidr'] == '10.77.0.0/29'
    assert subnet['gateway_ip'] == '10.77.0.1' and subnet['ip_version'] == 4
    assert subnet['allocation_pools'] == [{'start': '10.77.0.2', 'end': '10.77.0.4'}]
    assert subnet['enable_dhcp'] is True
    assert subnet['dns_nameservers'] == [] and subnet['host_routes'] == []
    subnets = member_client.get('/network/v2.0/subnets?network_id=' + net_id).json
    assert [s['id'] for s in subnets['subnets']] == [subnet_id]


def test_network_filters_fields_and_paging(member_client):
    for index in range(3):
        fixtures.add_network('net%d' % index, '10.8%d.0.0/24' % index,
                             '10.8%d.0.2' % index, '10.8%d.0.9' % index)
    get = member_client.get
    assert [n['name'] for n in get('/network/v2.0/networks?name=net1').json[
        'networks']] == ['net1']
    assert len(get('/network/v2.0/networks?name=net1&name=net2').json['networks']) == 2
    assert get('/network/v2.0/networks?shared=False').json['networks'] == []
    assert len(get('/network/v2.0/networks?router%3Aexternal=False').json[
        'networks']) == 3
    only = get('/network/v2.0/networks?fields=id&fields=name').json['networks']
    assert set(only[0]) == {'id', 'name'}
    page = get('/network/v2.0/networks?limit=2').json
    assert len(page['networks']) == 2
    (link,) = page['networks_links']
    assert link['rel'] == 'next'
    rest = get(link['href'].replace('http://localhost', '')).json
    assert [n['name'] for n in rest['networks']] == ['net2']
    assert 'networks_links' not in rest


def test_network_errors_are_neutron_errors(client, member_client):
    fixtures.add_network('net1')
    response = member_client.get('/network/v2.0/networks/net1')
    assert response.status_int == 404
    error = response.json['NeutronError']
    assert error['type'] and 'net1' in error['message'] and error['detail'] == ''
    assert member_client.get('/network/v2.0/subnets/nope').status_int == 404
    response = client.get('/network/v2.0/networks')
    assert response.status_int == 401 and 'NeutronError' in response.json


def test_network_quotas(member_client, admin_client, admin_context):
    me = member_client.get('/identity/v3/auth/tokens', headers={
        'X-Subject-Token': member_client.token}).json['token']['project']['id']
    quota = member_client.get('/network/v2.0/quotas/' + me).json['quota']
    assert (quota['network'], quota['subnet'], quota['port']) == (100, 100, 500)
    assert (quota['router'], quota['security_group'],
            quota['security_group_rule']) == (10, 10, 100)
    assert quota['floatingip'] == 50  # Neutron's default
    details = member_client.get('/network/v2.0/quotas/%s/details' % me).json['quota']
    assert details['port'] == {'limit': 500, 'used': 0, 'reserved': 0}
    other = admin_context.project_id
    assert member_client.get('/network/v2.0/quotas/' + other).status_int == 404
    assert admin_client.get('/network/v2.0/quotas/' + me).status_int == 200


def test_network_extensions(member_client):
    extensions = member_client.get('/network/v2.0/extensions').json['extensions']
    assert 'quotas' in [e['alias'] for e in extensions]
    assert member_client.get('/network/v2.0/extensions/quotas').json['extension'][
        'alias'] == 'quotas'
    assert member_client.get('/network/v2.0/extensions/Availability%20Zone'
                             ).status_int == 404


# -- block storage v3 ----------------------------------------------------------------------

def test_volume_versions_are_public(client):
    response = client.get('/volume/')
    assert response.status_int == 300
    response = client.get('/volume/v3/')
    assert response.status_int == 200
    (version,) = response.json['versions']
    assert version['id'] == 'v3.0' and version['min_version'] == '3.0'
    assert version['version'] == '3.0' and version['status'] == 'CURRENT'
    assert {'rel': 'self', 'href': 'http://localhost/volume/v3/'} in version['links']


def add_volumes(context, name='vm1', sizes=(1, 2)):
    instance_id = fixtures.add_instance(context, volume_sizes=sizes, name=name)
    ids = []
    with db_api.transaction() as session:
        for index, size in enumerate(sizes):
            ids.append(str(uuid.uuid4()))
            session.add(models.Volume(id=ids[-1], instance_id=instance_id,
                                      project_id=context.project_id, index=index,
                                      size_gib=size, status='in-use',
                                      path='/var/lib/secret/%s.qcow2' % index))
    return instance_id, ids


@pytest.fixture
def member(member_client):
    """The demo member's client and RequestContext."""
    return member_client, identity_service.validate(member_client.token)


def test_volume_list_and_show(member):
    client, context = member
    instance_id, ids = add_volumes(context)
    base = '/volume/v3/%s' % context.project_id
    response = client.get(base + '/volumes/detail',
                          headers={'OpenStack-API-Version': 'volume 3.0'})
    assert response.status_int == 200, response.text
    assert response.headers['OpenStack-API-Version'] == 'volume 3.0'
    volumes = response.json['volumes']
    assert [v['name'] for v in volumes] == ['vm1-vol0', 'vm1-vol1']
    first = volumes[0]
    assert first['status'] == 'in-use' and first['size'] == 1
    assert first['bootable'] == 'false' and first['volume_type'] is None
    assert first['availability_zone'] == 'nova' and first['metadata'] == {}
    assert first['attachments'] == [{
        'id': ids[0], 'attachment_id': ids[0], 'volume_id': ids[0],
        'server_id': instance_id, 'host_name': None, 'device': '/dev/vda',
        'attached_at': first['created_at']}]
    assert volumes[1]['attachments'][0]['device'] == '/dev/vdb'
    assert 'os-vol-host-attr:host' not in first
    assert '/var/lib/secret' not in response.text
    summary = client.get(base + '/volumes').json['volumes']
    assert [set(v) for v in summary] == [{'id', 'name', 'links'}] * 2
    shown = client.get(base + '/volumes/' + ids[1]).json['volume']
    assert shown == volumes[1]
    assert client.get(base + '/volumes/detail?name=vm1-vol1').json['volumes'] == \
        [volumes[1]]
    assert client.get(base + '/volumes/vm1-vol1').status_int == 404


def test_volume_paging(member):
    client, context = member
    add_volumes(context, sizes=(1, 1, 1))
    base = '/volume/v3/%s/volumes/detail' % context.project_id
    page = client.get(base + '?limit=2').json
    (link,) = page['volumes_links']
    assert link['href'].startswith('http://localhost' + base + '?')
    rest = client.get(link['href'].replace('http://localhost', '')).json
    assert [v['name'] for v in rest['volumes']] == ['vm1-vol2']


def test_another_projects_volumes(member, admin_client, admin_context):
    client, context = member
    _, foreign = add_volumes(admin_context, name='adminvm', sizes=(1,))
    own = '/volume/v3/%s' % context.project_id
    assert client.get(own + '/volumes/detail').json['volumes'] == []
    response = client.get(own + '/volumes/' + foreign[0])
    assert response.status_int == 404 and 'itemNotFound' in response.json
    response = client.get('/volume/v3/%s/volumes/detail' % admin_context.project_id)
    assert response.status_int == 400 and 'badRequest' in response.json
    assert client.get(own + '/volumes/detail?all_tenants=1').json['volumes'] == []
    admin_base = '/volume/v3/%s' % admin_context.project_id
    add_volumes(context, sizes=(3,))
    assert len(admin_client.get(admin_base + '/volumes/detail').json['volumes']) == 1
    everyone = admin_client.get(admin_base + '/volumes/detail?all_tenants=1').json
    assert len(everyone['volumes']) == 2
    assert 'os-vol-host-attr:host' in everyone['volumes'][0]


def test_volume_microversions(member):
    client, context = member
    url = '/volume/v3/%s/volumes' % context.project_id
    for header, status in (('volume 3.0', 200), ('volume latest', 200),
                           ('compute 2.5', 200), ('volume 3.5', 406),
                           ('volume three', 400)):
        response = client.get(url, headers={'OpenStack-API-Version': header})
        assert response.status_int == status, header


def test_volume_quotas(member, admin_client, admin_context):
    client, context = member
    add_volumes(context, sizes=(2,))
    url = '/volume/v3/%s/os-quota-sets/%s' % (context.project_id, context.project_id)
    quota = client.get(url + '?usage=False').json['quota_set']
    assert quota['id'] == context.project_id and quota['gigabytes'] == 1000
    assert quota['volumes'] == quota['snapshots'] == -1 and quota['backups'] == 0
    usage = client.get(url + '?usage=True').json['quota_set']
    assert usage['volumes'] == {'limit': -1, 'in_use': 1, 'reserved': 0, 'allocated': 0}
    assert usage['gigabytes']['limit'] == 1000
    defaults = client.get(url + '/defaults').json['quota_set']
    assert defaults['gigabytes'] == 1000
    assert client.put(url, {'quota_set': {'gigabytes': 5}}).status_int == 403
    foreign = '/volume/v3/%s/os-quota-sets/%s' % (context.project_id,
                                                   admin_context.project_id)
    assert client.get(foreign).status_int == 404

    admin_url = '/volume/v3/%s/os-quota-sets/%s' % (admin_context.project_id,
                                                     context.project_id)
    response = admin_client.put(admin_url, {'quota_set': {'gigabytes': 5}})
    assert response.status_int == 200, response.text
    assert response.json['quota_set']['gigabytes'] == 5
    assert client.get(url).json['quota_set']['gigabytes'] == 5
    for body in ({'quota_set': {'groups': 10}}, {'quota_set': {'gigabytes': 'x'}},
                 {'quota': {}}):
        assert admin_client.put(admin_url, body).status_int == 400, body
    missing = '/volume/v3/%s/os-quota-sets/%s' % (admin_context.project_id, 'nope')
    assert admin_client.get(missing).status_int == 404


def test_volume_limits_zones_and_types(member):
    client, context = member
    base = '/volume/v3/%s' % context.project_id
    absolute = client.get(base + '/limits').json['limits']['absolute']
    assert absolute['maxTotalVolumeGigabytes'] == 1000
    assert absolute['totalGigabytesUsed'] == 0
    zones = client.get(base + '/os-availability-zone').json['availabilityZoneInfo']
    assert zones == [{'zoneName': 'nova', 'zoneState': {'available': True}}]
    fixtures.add_host('h1')
    zones = client.get(base + '/os-availability-zone').json['availabilityZoneInfo']
    assert [z['zoneName'] for z in zones] == ['nova']
    assert client.get(base + '/types').json == {'volume_types': []}


def test_volume_without_a_token_is_401(client, admin_context):
    response = client.get('/volume/v3/%s/volumes' % admin_context.project_id)
    assert response.status_int == 401 and response.json['unauthorized']['code'] == 401
