"""Nova's trigger_crash_dump (2.17): an NMI into the guest, through its host.
Flows run inline on libvirt's test:/// driver (which takes an NMI)."""

from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture
from tests.unit.api.test_servers_interop import member  # noqa: F401 - fixture

V = '/compute/v2.1'
V217 = {'OpenStack-API-Version': 'compute 2.17'}


def _dump(application, server_id, token, body=None, headers=V217):  # noqa: F811
    return call(application, 'POST', V + '/servers/%s/action' % server_id,
                body or {'trigger_crash_dump': None}, token, headers=headers)


def test_a_crash_dump_is_a_202_recorded_as_an_instance_action(
        application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    response = _dump(application, server_id, cloud['token'])
    assert response.status_int == 202, response.text
    assert response.body == b''
    listed = call(application, 'GET', V + '/servers/%s/os-instance-actions' % server_id,
                  token=cloud['token']).json['instanceActions']
    [dump] = [a for a in listed if a['action'] == 'trigger_crash_dump']
    assert dump['message'] is None
    assert dump['request_id'] == response.headers['x-openstack-request-id']


def test_below_2_17_the_action_does_not_exist(application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    older = _dump(application, server_id, cloud['token'],
                  headers={'OpenStack-API-Version': 'compute 2.16'})
    assert older.status_int == 404  # as Nova: no such method at that version


def test_the_body_is_null_only(application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    assert _dump(application, server_id, cloud['token'],
                 {'trigger_crash_dump': {}}).status_int == 400
    assert _dump(application, 'nope', cloud['token']).status_int == 404


def test_a_stopped_or_locked_server_is_a_409(application, cloud, member):  # noqa: F811
    server_id = boot(application, cloud)
    path = V + '/servers/%s/action' % server_id
    assert call(application, 'POST', path, {'lock': None}, member).status_int == 202
    locked = _dump(application, server_id, member)
    assert locked.status_int == 409
    assert 'is locked' in locked.text
    assert call(application, 'POST', path, {'unlock': None}, member).status_int == 202
    assert call(application, 'POST', path, {'os-stop': None},
                cloud['token']).status_int == 202
    stopped = _dump(application, server_id, cloud['token'])
    assert stopped.status_int == 409
    assert ("Cannot 'trigger_crash_dump' instance %s while it is in vm_state stopped"
            % server_id) in stopped.text
