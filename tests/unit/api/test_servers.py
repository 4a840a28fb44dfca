"""The compute API's servers, actions and instance actions, through the WSGI app.

Flows run synchronously on libvirt's test:/// driver (a dispatcher that runs them
in the request), so a test sees the state a user would see once the flow is done.
"""

import base64
import json

import pytest
import sqlalchemy as sa
import webob

from provisioner.api import app
from provisioner.catalog import flavors
from provisioner.catalog import images
from provisioner.network import shared as networks
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.identity import admin
from provisioner.identity import service as identity
from provisioner import virt
from tests.unit import fixtures


@pytest.fixture
def cloud(conf, tmp_path, admin_context):
    node = tmp_path / 'node.xml'
    node.write_text('<node/>')
    conf.set_override('connection_uri', 'test://%s' % node, 'libvirt')
    conf.set_override('virt_type', 'qemu', 'libvirt')
    (tmp_path / 'vmlinuz').write_bytes(b'kernel')
    (tmp_path / 'initrd').write_bytes(b'initrd')
    ids = {'flavor': flavors.create('tiny', 1, 128, 1)['id'],
           'image': images.create('guest', kernel=str(tmp_path / 'vmlinuz'),
                                  ramdisk=str(tmp_path / 'initrd'))['id'],
           'network': networks.create(virt.get_driver(), 'net1', '10.66.0.0/24')['id'],
           'token': identity.authenticate('admin', 'admin-secret', 'admin')}
    return ids


@pytest.fixture
def application(conf):
    return app.build_app(fixtures.deployment(fixtures.InlineDispatcher()))


def call(application, method, path, body=None, token=None, headers=None, raw=None):
    all_headers = {'Content-Type': 'application/json'}
    if token:
        all_headers['X-Auth-Token'] = token
    all_headers.update(headers or {})
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None
                                        else b'')
    request = webob.Request.blank(path, method=method, headers=all_headers, body=data)
    return request.get_response(application)


def server_body(cloud, name='vm1', **extra):
    server = {'name': name, 'imageRef': cloud['image'], 'flavorRef': cloud['flavor'],
              'networks': [{'uuid': cloud['network']}]}
    server.update(extra)
    return {'server': server}


def boot(application, cloud, **extra):
    response = call(application, 'POST', '/compute/v2.1/servers',
                    server_body(cloud, **extra), cloud['token'])
    assert response.status_int == 202, response.text
    return response.json['server']['id']


def instance_count():
    with db_api.transaction() as session:
        return session.execute(sa.select(sa.func.count())
                               .select_from(models.Instance)).scalar()


def test_boot_shows_active_with_nova_fields(application, cloud):
    user_data = base64.b64encode(b'hello').decode()
    server_id = boot(application, cloud, user_data=user_data,
                     metadata={'role': '<b>web</b> $(id)'},
                     block_device_mapping_v2=[
                         {'uuid': cloud['image'], 'boot_index': 0,
                          'source_type': 'image', 'destination_type': 'local',
                          'delete_on_termination': True},
                         {'source_type': 'blank', 'destination_type': 'volume',
                          'volume_size': '1', 'delete_on_termination': True}])
    response = call(application, 'GET', '/compute/v2.1/servers/%s' % server_id,
                    token=cloud['token'])
    assert response.status_int == 200
    assert response.headers['X-OpenStack-Nova-API-Version'] == '2.1'
    assert response.headers['x-openstack-request-id'].startswith('req-')
    server = response.json['server']
    assert server['status'] == 'ACTIVE'
    assert server['OS-EXT-STS:power_state'] == 1
    assert server['metadata'] == {'role': '<b>web</b> $(id)'}
    assert server['image']['id'] == cloud['image']
    assert server['flavor']['id'] == cloud['flavor']
    [address] = server['addresses']['net1']
    assert address['addr'].startswith('10.66.0.')
    assert len(server['os-extended-volumes:volumes_attached']) == 1
    # 2.1 has neither the 2.3 attributes nor delete_on_termination.
    assert 'OS-EXT-SRV-ATTR:user_data' not in server
    assert 'delete_on_termination' not in server['os-extended-volumes:volumes_attached'][0]
    newer = call(application, 'GET', '/compute/v2.1/servers/%s' % server_id,
                 token=cloud['token'], headers={'OpenStack-API-Version': 'compute 2.3'})
    assert newer.headers['OpenStack-API-Version'] == 'compute 2.3'
    assert newer.json['server']['OS-EXT-SRV-ATTR:user_data'] == user_data


def test_markup_in_name_is_kept_verbatim(application, cloud):
    name = '<img src=x onerror=alert(1)>'
    server_id = boot(application, cloud, name=name)
    listed = call(application, 'GET', '/compute/v2.1/servers', token=cloud['token'])
    assert [s['name'] for s in listed.json['servers']] == [name]
    assert listed.json['servers'][0]['id'] == server_id


def test_events_are_the_boot_steps(application, cloud):
    server_id = boot(application, cloud)
    actions = call(application, 'GET', '/compute/v2.1/servers/%s/os-instance-actions'
                   % server_id, token=cloud['token']).json['instanceActions']
    assert [a['action'] for a in actions] == ['create']
    action = call(application, 'GET', '/compute/v2.1/servers/%s/os-instance-actions/%s'
                  % (server_id, actions[0]['request_id']),
                  token=cloud['token']).json['instanceAction']
    steps = [e['event'] for e in action['events']]
    for step in ('select-hosts', 'claim-resources', 'fetch-image', 'allocate-ports',
                 'build-config-drive', 'define-domain', 'start-domain', 'mark-active'):
        assert step in steps
    assert {e['result'] for e in action['events']} == {'Success'}


def test_stop_start_reboot(application, cloud):
    server_id = boot(application, cloud)
    path = '/compute/v2.1/servers/%s' % server_id

    def act(body):
        return call(application, 'POST', path + '/action', body, cloud['token'])

    assert act({'os-stop': None}).status_int == 202
    assert call(application, 'GET', path, token=cloud['token']).json['server'][
        'status'] == 'SHUTOFF'
    conflict = act({'os-stop': None})
    assert conflict.status_int == 409
    assert 'conflictingRequest' in conflict.json
    assert act({'os-start': None}).status_int == 202
    assert act({'reboot': {'type': 'HARD'}}).status_int == 202
    server = call(application, 'GET', path, token=cloud['token']).json['server']
    assert (server['status'], server['OS-EXT-STS:task_state']) == ('ACTIVE', None)
    listed = call(application, 'GET', path + '/os-instance-actions',
                  token=cloud['token']).json['instanceActions']
    assert [a['action'] for a in listed] == ['reboot', 'start', 'stop', 'create']
    assert act({'reboot': {'type': 'SIDEWAYS'}}).status_int == 400
    assert act({'os-explode': None}).status_int == 400


def test_console_output_is_text(application, cloud):
    server_id = boot(application, cloud)
    log = virt.get_driver().console_log_path(server_id)
    with open(log, 'wb') as f:
        f.write(b'line1\n<script>alert(1)</script>\n\xff\xfeend\n')
    response = call(application, 'POST', '/compute/v2.1/servers/%s/action' % server_id,
                    {'os-getConsoleOutput': {'length': 2}}, cloud['token'])
    assert response.status_int == 200
    # Nova's tail: the last 2 pieces between newlines (the log ends in one).
    assert response.json['output'] == '\ufffd\ufffdend\n'
    response = call(application, 'POST', '/compute/v2.1/servers/%s/action' % server_id,
                    {'os-getConsoleOutput': {'length': 3}}, cloud['token'])
    assert response.json['output'].split('\n') == ['<script>alert(1)</script>',
                                                   '\ufffd\ufffdend', '']


def test_rename_and_delete(application, cloud):
    server_id = boot(application, cloud)
    path = '/compute/v2.1/servers/%s' % server_id
    renamed = call(application, 'PUT', path, {'server': {'name': 'web 1'}},
                   cloud['token'])
    assert renamed.json['server']['name'] == 'web 1'
    assert call(application, 'DELETE', path, token=cloud['token']).status_int == 204
    gone = call(application, 'GET', path, token=cloud['token'])
    assert gone.status_int == 404
    assert 'itemNotFound' in gone.json


def test_list_pages_with_limit_and_marker(application, cloud):
    ids = [boot(application, cloud, name='vm%d' % i) for i in range(3)]
    first = call(application, 'GET', '/compute/v2.1/servers/detail?limit=2',
                 token=cloud['token']).json
    assert len(first['servers']) == 2
    next_href = first['servers_links'][0]['href']
    assert 'marker=%s' % first['servers'][-1]['id'] in next_href
    rest = call(application, 'GET', '/compute/v2.1/servers/detail?limit=2&marker=%s'
                % first['servers'][-1]['id'], token=cloud['token']).json
    assert {s['id'] for s in first['servers'] + rest['servers']} == set(ids)
    assert 'servers_links' not in rest
    by_name = call(application, 'GET', '/compute/v2.1/servers?name=vm1',
                   token=cloud['token']).json['servers']
    assert [s['name'] for s in by_name] == ['vm1']


@pytest.mark.parametrize('body, status', [
    (None, 400),                                            # no body
    ({'server': {'name': 'x'}}, 400),                       # no flavorRef
    ({'server': {'name': 'x', 'flavorRef': 'tiny', 'imageRef': 'guest',
                 'bogus': 1}}, 400),                        # unknown field
    ({'server': {'name': 'x', 'flavorRef': 'nope', 'imageRef': 'guest'}}, 400),
    ({'server': {'name': 'x', 'flavorRef': 'tiny', 'imageRef': 'nope'}}, 400),
    ({'server': {'name': 'x', 'flavorRef': 'tiny', 'imageRef': 'guest',
                 'networks': [{'uuid': 'nope'}]}}, 400),
    ({'server': {'name': 'x', 'flavorRef': 'tiny', 'imageRef': 'guest',
                 'user_data': '%%%'}}, 400),
    ({'server': {'name': ' x', 'flavorRef': 'tiny', 'imageRef': 'guest'}}, 400),
    ({'server': {'name': 'x', 'flavorRef': 'tiny', 'imageRef': 'guest',
                 'key_name': 'nope'}}, 400),
    ({'server': {'name': 'x', 'flavorRef': 'tiny', 'imageRef': 'guest',
                 'min_count': 3, 'max_count': 2}}, 400),
    ({'server': {'name': 'x', 'flavorRef': 'tiny', 'imageRef': 'guest',
                 'max_count': 0}}, 400),
    ({'server': {'name': 'x', 'flavorRef': 'tiny', 'imageRef': 'guest',
                 'accessIPv4': '1.1.1.1.1'}}, 400),
    ({'server': {'name': 'x', 'flavorRef': 'tiny', 'imageRef': 'guest',
                 'accessIPv6': 'notvalid'}}, 400),
])
def test_bad_requests_create_nothing(application, cloud, body, status):
    response = call(application, 'POST', '/compute/v2.1/servers', body, cloud['token'])
    assert response.status_int == status, response.text
    assert set(response.json) == {'badRequest'}
    assert instance_count() == 0


def test_protocol_faults(application, cloud, conf):
    token = cloud['token']
    malformed = call(application, 'POST', '/compute/v2.1/servers', token=token,
                     raw=b'{"server": ')
    assert malformed.status_int == 400
    conf.set_override('max_request_body_size', 2048, 'api')
    big = call(application, 'POST', '/compute/v2.1/servers', token=token,
               raw=b'{"server": {"name": "' + b'x' * 4096 + b'"}}')
    assert big.status_int == 413
    assert set(big.json) == {'overLimit'}
    version = call(application, 'GET', '/compute/v2.1/servers', token=token,
                   headers={'X-OpenStack-Nova-API-Version': '2.999'})
    assert version.status_int == 406
    latest = call(application, 'GET', '/compute/v2.1/servers', token=token,
                  headers={'OpenStack-API-Version': 'compute latest'})
    assert latest.headers['OpenStack-API-Version'] == 'compute 2.90'
    assert call(application, 'GET', '/compute/v2.1/servers').status_int == 401
    forged = call(application, 'GET', '/compute/v2.1/servers', token='gAAAA' + 'x' * 80)
    assert forged.status_int == 401
    assert set(forged.json) == {'unauthorized'}
    assert 'Traceback' not in forged.text
    assert instance_count() == 0


def test_another_projects_server_is_not_found(application, cloud, admin_context):
    server_id = boot(application, cloud)
    admin.create_project(admin_context, 'other')
    admin.create_user(admin_context, 'alice', 'alice-secret')
    admin.add_role(admin_context, 'alice', 'other', 'member')
    alice = identity.authenticate('alice', 'alice-secret', 'other')
    for method, suffix, body in (('GET', '', None), ('DELETE', '', None),
                                 ('POST', '/action', {'os-stop': None}),
                                 ('GET', '/os-instance-actions', None)):
        response = call(application, method, '/compute/v2.1/servers/%s%s'
                        % (server_id, suffix), body, alice)
        assert response.status_int == 404, (method, suffix, response.text)
    assert call(application, 'GET', '/compute/v2.1/servers',
                token=alice).json['servers'] == []


def test_a_reader_sees_a_server_but_cannot_resume_roll_back_or_delete_it(
        application, cloud, admin_context):
    server_id = boot(application, cloud)
    admin.create_user(admin_context, 'rita', 'rita-secret')
    admin.add_role(admin_context, 'rita', 'admin', 'reader')
    rita = identity.authenticate('rita', 'rita-secret', 'admin')
    posted = []
    fixtures.with_dispatcher(application, type('Recorder', (), {
        name: lambda self, *args, name=name: posted.append((name,) + args)
        for name in ('resume', 'rollback', 'delete')})())
    assert call(application, 'GET', '/compute/v2.1/servers/%s' % server_id,
                token=rita).status_int == 200
    for method, body, rule in (
            ('POST', {'provisioner:resume': None}, 'instance:resume'),
            ('POST', {'provisioner:rollback': None}, 'instance:rollback'),
            ('DELETE', None, 'instance:delete')):
        response = call(application, method, '/compute/v2.1/servers/%s%s' % (
            server_id, '/action' if body else ''), body, rita)
        assert response.status_int == 403 and rule in response.text, response.text
    assert posted == []


def test_version_documents_need_no_token(application):
    versions = call(application, 'GET', '/compute/')
    assert versions.status_int == 200
    legacy, version = versions.json['versions']
    assert (legacy['id'], legacy['status'], legacy['version']) == ('v2.0', 'SUPPORTED',
                                                                   '')
    assert (version['min_version'], version['version']) == ('2.1', '2.90')
    assert version['links'][0]['href'].endswith('/compute/v2.1/')


def test_a_deleted_servers_actions_stay_readable(application, cloud):
    server_id = boot(application, cloud)
    path = '/compute/v2.1/servers/%s' % server_id
    assert call(application, 'DELETE', path, token=cloud['token']).status_int == 204
    since = {'OpenStack-API-Version': 'compute 2.21'}  # Nova's: 404 before 2.21
    assert call(application, 'GET', path + '/os-instance-actions',
                token=cloud['token']).status_int == 404
    listed = call(application, 'GET', path + '/os-instance-actions', token=cloud['token'],
                  headers=since)
    assert [a['action'] for a in listed.json['instanceActions']] == ['delete', 'create']
    delete = call(application, 'GET', path + '/os-instance-actions/%s'
                  % listed.json['instanceActions'][0]['request_id'],
                  token=cloud['token'], headers=since).json['instanceAction']
    assert 'mark-deleted' in [e['event'] for e in delete['events']]


def test_a_servers_ports_and_what_isolated_networks_lack(application, cloud,
                                                         admin_context):
    server_id = boot(application, cloud)
    server = call(application, 'GET', '/compute/v2.1/servers/%s' % server_id,
                  token=cloud['token']).json['server']
    [address] = server['addresses']['net1']
    ports = call(application, 'GET', '/network/v2.0/ports?device_id=%s' % server_id,
                 token=cloud['token']).json['ports']
    assert [(p['device_id'], p['mac_address'], p['fixed_ips'][0]['ip_address'],
             p['network_id']) for p in ports] == [
        (server_id, address['OS-EXT-IPS-MAC:mac_addr'], address['addr'],
         cloud['network'])]
    assert call(application, 'GET', '/network/v2.0/ports/%s' % ports[0]['id'],
                token=cloud['token']).json['port']['id'] == ports[0]['id']
    for collection in ('routers', 'floatingips'):
        listed = call(application, 'GET', '/network/v2.0/%s' % collection,
                      token=cloud['token'])
        assert listed.json == {collection: []}
    groups = call(application, 'GET', '/compute/v2.1/servers/%s/os-security-groups'
                  % server_id, token=cloud['token'])
    assert [g['name'] for g in groups.json['security_groups']] == ['default']
    admin.create_project(admin_context, 'other')
    admin.create_user(admin_context, 'bob', 'bob-secret1')
    admin.add_role(admin_context, 'bob', 'other', 'member')
    bob = identity.authenticate('bob', 'bob-secret1', 'other')
    assert call(application, 'GET', '/network/v2.0/ports', token=bob).json == {
        'ports': []}
    assert call(application, 'GET', '/network/v2.0/ports/%s' % ports[0]['id'],
                token=bob).status_int == 404


def test_every_action_the_schema_lets_through_has_a_handler():
    from provisioner.api.compute.schemas import servers as schemas
    from provisioner.api.compute import server_actions
    assert set(server_actions.ACTIONS) == set(schemas.ACTIONS)


def test_what_provisioner_cannot_honour_is_refused_by_the_schema_saying_why(
        application, cloud):
    cases = [
        ({'personality': [{'path': '/etc/x', 'contents': ''}]},
         'personality is not supported: files reach the guest as user_data'),
        ({'block_device_mapping': [{}]}, 'block_device_mapping (v1) is not supported: '
                                         'use block_device_mapping_v2'),
        ({'networks': [{'fixed_ip': '10.66.0.9'}]},
         'Each network needs a uuid or a port.'),
        ({'user_data': 'not base64 !!'}, 'User data needs to be valid base 64.'),
    ]
    for extra, message in cases:
        response = call(application, 'POST', '/compute/v2.1/servers',
                        server_body(cloud, **extra), cloud['token'])
        assert response.status_int == 400, response.text
        assert response.json == {'badRequest': {'code': 400, 'message': message}}
    assert instance_count() == 0
    for index, count in enumerate((1, '1', '01')):  # a count however written
        boot(application, cloud, name='vm%d' % index, min_count=count, max_count=count)
    assert instance_count() == 3


def test_a_boot_gives_its_ports_the_security_groups_it_names(application, cloud):
    """What Ansible's server module and `server create --security-group` send."""
    web = call(application, 'POST', '/network/v2.0/security-groups',
               {'security_group': {'name': 'web'}}, cloud['token']).json['security_group']
    unknown = call(application, 'POST', '/compute/v2.1/servers', server_body(
        cloud, security_groups=[{'name': 'no-such-group'}]), cloud['token'])
    assert unknown.status_int == 400 and 'no-such-group' in unknown.text
    before = instance_count()
    server_id = boot(application, cloud, name='grouped',
                     security_groups=[{'name': 'web'}, {'name': web['id']}])
    assert instance_count() == before + 1
    groups = call(application, 'GET', '/compute/v2.1/servers/%s/os-security-groups'
                  % server_id, token=cloud['token']).json['security_groups']
    assert [g['name'] for g in groups] == ['web']
    [port] = call(application, 'GET', '/network/v2.0/ports?device_id=%s' % server_id,
                  token=cloud['token']).json['ports']
    assert port['security_groups'] == [web['id']]
    shown = call(application, 'GET', '/compute/v2.1/servers/%s' % server_id,
                 token=cloud['token']).json['server']
    assert shown['security_groups'] == [{'name': 'web'}]
