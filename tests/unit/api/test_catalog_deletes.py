"""Deleting an image or flavor that deleted servers booted with: a clear 409, not a 500.

Deleted servers are soft-deleted: their rows keep the ids of their image and flavor
(foreign keys), so the database refuses to delete either.
"""

from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture


def test_image_and_flavor_of_deleted_servers(application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    assert call(application, 'DELETE', '/compute/v2.1/servers/' + server_id,
                token=cloud['token']).status_int == 204
    image = call(application, 'DELETE', '/image/v2/images/' + cloud['image'],
                 token=cloud['token'])
    assert image.status_int == 409, image.text
    assert 'records of deleted servers (vm1)' in image.json['message']  # Glance's body
    flavor = call(application, 'DELETE', '/compute/v2.1/flavors/' + cloud['flavor'],
                  token=cloud['token'])
    assert flavor.status_int == 409, flavor.text
    assert 'records of deleted servers (vm1)' in \
        flavor.json['conflictingRequest']['message']
    for path in ('/image/v2/images/' + cloud['image'],
                 '/compute/v2.1/flavors/' + cloud['flavor']):
        assert call(application, 'GET', path, token=cloud['token']).status_int == 200
