"""Nova's rebuild action through the WSGI app: what it answers, what the server then
is, what a refused or failed rebuild leaves. Flows run inline on libvirt's test:///
driver; the fields of later microversions are checked on their schemas and through
the compute API.
"""

import base64

import pytest

from provisioner.api.compute import rebuild as rebuild_api
from provisioner.api.compute.schemas import rebuild as schemas
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.catalog import images
from provisioner.compute import api as compute_api
from provisioner.compute import instances
from provisioner.compute import keypairs
from provisioner import virt

from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture
from tests.unit import fixtures

V = '/compute/v2.1'


@pytest.fixture
def other_image(cloud, tmp_path):  # noqa: F811
    (tmp_path / 'vmlinuz2').write_bytes(b'kernel2')
    return images.create('guest2', kernel=str(tmp_path / 'vmlinuz2'),
                         cmdline='console=ttyS0 quiet')['id']


def _action(application, server_id, body, token):  # noqa: F811
    return call(application, 'POST', V + '/servers/%s/action' % server_id, body, token)


def _server(application, server_id, token):  # noqa: F811
    return call(application, 'GET', V + '/servers/' + server_id,
                token=token).json['server']


def _actions(application, server_id, token):  # noqa: F811
    return call(application, 'GET', V + '/servers/%s/os-instance-actions' % server_id,
                token=token).json['instanceActions']


def test_rebuild_answers_rebuild_and_the_server_ends_active_on_the_new_image(
        application, cloud, other_image):  # noqa: F811
    server_id = boot(application, cloud, metadata={'old': '1'})
    response = _action(application, server_id, {'rebuild': {
        'imageRef': other_image, 'name': 'again', 'metadata': {'new': '2'},
        'accessIPv4': '192.0.2.7', 'adminPass': 'ignored-secret'}}, cloud['token'])
    assert response.status_int == 202, response.text
    answered = response.json['server']
    assert answered['status'] == 'REBUILD'
    assert answered['name'] == 'again'
    assert answered['image']['id'] == other_image
    assert answered['metadata'] == {'new': '2'}
    assert 'adminPass' not in answered
    assert 'OS-EXT-STS:vm_state' not in answered  # Nova's base view, as PUT's
    assert response.headers['Location'].endswith('/servers/' + server_id)
    server = _server(application, server_id, cloud['token'])
    assert (server['status'], server['name'], server['accessIPv4']) == (
        'ACTIVE', 'again', '192.0.2.7')
    assert server['image']['id'] == other_image
    rebuilt = _actions(application, server_id, cloud['token'])[0]
    assert rebuilt['action'] == 'rebuild' and rebuilt['message'] is None
    events = call(application, 'GET', V + '/servers/%s/os-instance-actions/%s'
                  % (server_id, rebuilt['request_id']),
                  token=cloud['token']).json['instanceAction']['events']
    assert {'rebuild-config-drive', 'redefine-domain', 'record-rebuild'} <= {
        event['event'] for event in events}
    assert virt.get_driver().power_state(server_id) == 'running'


def test_a_stopped_server_is_rebuilt_and_stays_stopped(
        application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    assert _action(application, server_id, {'os-stop': None},
                   cloud['token']).status_int == 202
    response = _action(application, server_id, {'rebuild': {'imageRef': cloud['image']}},
                       cloud['token'])
    assert response.status_int == 202, response.text
    assert _server(application, server_id, cloud['token'])['status'] == 'SHUTOFF'
    assert virt.get_driver().power_state(server_id) != 'running'


def test_refused_rebuilds_change_nothing(application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    for body, status, words in (
            ({'imageRef': 'no-such-image'}, 400, 'Cannot find image for rebuild'),
            ({'imageRef': cloud['image'], 'personality': [
                {'path': '/etc/x', 'contents': 'eA=='}]}, 400, 'personality'),
            ({'imageRef': cloud['image'], 'user_data': 'eA=='}, 400,
             'Additional properties'),  # a 2.57 field at 2.1
            ({'imageRef': cloud['image'], 'metadata': {
                'k%d' % i: 'v' for i in range(129)}}, 403, 'metadata items'),
            ({'name': 'x'}, 400, 'imageRef')):
        response = _action(application, server_id, {'rebuild': body}, cloud['token'])
        assert response.status_int == status, response.text
        assert words in response.text
    server = _server(application, server_id, cloud['token'])
    assert (server['name'], server['status']) == ('vm1', 'ACTIVE')
    assert [a['action'] for a in _actions(application, server_id,
                                          cloud['token'])] == ['create']


def test_a_server_in_a_task_or_building_refuses_rebuild(
        application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    instances.update(server_id, task_state='powering-off')
    body = {'rebuild': {'imageRef': cloud['image']}}
    assert _action(application, server_id, body, cloud['token']).status_int == 409
    instances.update(server_id, task_state=None, vm_state='building')
    assert _action(application, server_id, body, cloud['token']).status_int == 409


def test_a_locked_server_refuses_a_members_rebuild(
        application, cloud, admin_context):  # noqa: F811
    from provisioner.identity import admin
    from provisioner.identity import service as identity
    admin.create_user(admin_context, 'mia', 'mia-secret1')
    admin.add_role(admin_context, 'mia', 'admin', 'member')
    member = identity.authenticate('mia', 'mia-secret1', 'admin')
    server_id = boot(application, cloud)
    assert _action(application, server_id, {'lock': None}, member).status_int == 202
    body = {'rebuild': {'imageRef': cloud['image']}}
    assert _action(application, server_id, body, member).status_int == 409
    assert _action(application, server_id, body, cloud['token']).status_int == 202


def test_a_failed_rebuild_leaves_the_server_as_it_was(
        application, cloud, other_image, monkeypatch):  # noqa: F811
    server_id = boot(application, cloud, metadata={'old': '1'},
                     user_data=base64.b64encode(b'first').decode())
    driver = virt.get_driver()
    xml_before = driver._guest(server_id).xml(live=False)

    def broken(instance_uuid):
        raise RuntimeError('host fell over')

    monkeypatch.setattr(type(driver), 'delete_replaced_files',
                        lambda self, uuid: broken(uuid))
    response = _action(application, server_id, {'rebuild': {
        'imageRef': other_image, 'name': 'again', 'metadata': {'new': '2'}}},
        cloud['token'])
    assert response.status_int == 202
    server = _server(application, server_id, cloud['token'])
    assert (server['status'], server['name'], server['metadata']) == (
        'ACTIVE', 'vm1', {'old': '1'})
    assert server['image']['id'] == cloud['image']
    assert instances.user_data(server_id) == b'first'
    assert 'host fell over' in _actions(application, server_id,
                                        cloud['token'])[0]['message']
    assert driver._guest(server_id).xml(live=False) == xml_before
    assert driver.power_state(server_id) == 'running'


# -- the fields of later microversions ------------------------------------------------

@pytest.mark.parametrize('schema, field, value, valid', [
    (schemas.REBUILD, 'description', 'd', False),
    (schemas.REBUILD_V219, 'description', 'd', True),
    (schemas.REBUILD_V219, 'description', 'bad\x01', False),
    (schemas.REBUILD_V219, 'key_name', 'k', False),
    (schemas.REBUILD_V254, 'key_name', None, True),
    (schemas.REBUILD_V254, 'personality', [], True),
    (schemas.REBUILD_V257, 'personality', [], False),
    (schemas.REBUILD_V257, 'user_data', None, True),
    (schemas.REBUILD_V257, 'user_data', 'not base64!', False),
    (schemas.REBUILD_V257, 'trusted_image_certificates', ['a'], False),
    (schemas.REBUILD_V263, 'trusted_image_certificates', None, True),
    (schemas.REBUILD_V263, 'trusted_image_certificates', [], False),
    (schemas.REBUILD_V263, 'hostname', 'h', False),
    (schemas.REBUILD_V290, 'hostname', 'web-1.example', True),
    (schemas.REBUILD_V290, 'hostname', 'no spaces', False),
])
def test_the_schema_of_each_microversion(schema, field, value, valid):
    body = {'imageRef': 'i', field: value}
    if valid:
        assert validation.validate(body, schema) is body
    else:
        with pytest.raises(wsgi.HTTPError) as raised:
            validation.validate(body, schema)
        assert raised.value.status == 400


def test_key_name_and_user_data_are_replaced_or_unset(cloud, admin_context):  # noqa: F811
    api = compute_api.ComputeAPI(admin_context, fixtures.deployment())
    keypairs.create(admin_context, 'k1')
    server_id = api.create_instance('vm', cloud['flavor'], cloud['image'],
                                    [cloud['network']], user_data=b'old')
    instances.update(server_id, vm_state='active', host='h1')  # its boot is not run
    assert rebuild_api.changes({'imageRef': 'i'}).keys() == {
        'name', 'properties', 'access_ips', 'fields'}
    changes = rebuild_api.changes({'imageRef': 'i', 'key_name': 'k1',
                                   'user_data': base64.b64encode(b'new').decode()})
    api.rebuild(server_id, cloud['image'], **changes)
    assert instances.user_data(server_id) == b'new'
    assert instances.current_request(server_id).key_name == 'k1'
    instances.update(server_id, task_state=None)
    api.rebuild(server_id, cloud['image'],
                **rebuild_api.changes({'key_name': None, 'user_data': None}))
    assert instances.user_data(server_id) is None
    assert instances.current_request(server_id).key_name is None


def test_the_answer_shows_key_name_from_2_54_and_user_data_from_2_57(
        application, cloud, other_image):  # noqa: F811
    server_id = boot(application, cloud)
    encoded = base64.b64encode(b'#!/bin/sh\necho hi\n').decode()
    for version, body, shown in (
            ('2.53', {}, {}),
            ('2.54', {}, {'key_name': None}),
            ('2.57', {'user_data': encoded}, {'key_name': None, 'user_data': encoded}),
            ('2.57', {}, {'key_name': None, 'user_data': encoded})):
        response = call(application, 'POST', V + '/servers/%s/action' % server_id,
                        {'rebuild': dict(body, imageRef=other_image)}, cloud['token'],
                        headers={'OpenStack-API-Version': 'compute ' + version})
        assert response.status_int == 202, response.text
        answered = response.json['server']
        assert {k: answered[k] for k in ('key_name', 'user_data') if k in answered} \
            == shown, version
