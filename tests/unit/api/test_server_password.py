"""Nova's os-server-password: the encrypted password a guest posted, shown and
cleared. Flows run inline on libvirt's test:/// driver."""

import pytest

from provisioner.compute import server_password
from provisioner import exception

from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture


def test_none_then_posted_then_cleared(application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    path = '/compute/v2.1/servers/%s/os-server-password' % server_id
    assert call(application, 'GET', path, token=cloud['token']).json == {'password': ''}
    server_password.record(server_id, b'c2VjcmV0LWVuY3J5cHRlZA==')
    with pytest.raises(server_password.PasswordAlreadySet):
        server_password.record(server_id, b'again')  # Nova's 409: once only
    assert call(application, 'GET', path, token=cloud['token']).json == {
        'password': 'c2VjcmV0LWVuY3J5cHRlZA=='}
    cleared = call(application, 'DELETE', path, token=cloud['token'])
    assert cleared.status_int == 204 and cleared.body == b''
    assert server_password.kept(server_id) is None
    assert call(application, 'GET', path, token=cloud['token']).json == {'password': ''}
    with pytest.raises(exception.Invalid):
        server_password.record(server_id, 'x' * 1021)
    missing = '/compute/v2.1/servers/nope/os-server-password'
    assert call(application, 'GET', missing, token=cloud['token']).status_int == 404
    assert call(application, 'DELETE', missing, token=cloud['token']).status_int == 404
