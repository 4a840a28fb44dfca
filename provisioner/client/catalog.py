"""CatalogAPI's interface over provisioner-api: flavors, images, networks and hosts.

Lists and shows come from provisioner's extension (``/provisioner/catalog/...`` and
``/provisioner/hosts``): the rows the all-in-one CLI prints. Writes use each
service's own API: Nova's flavors, Glance's image delete, the extension's host
update. Registering an image from a path and creating or deleting networks need
the image and network services' write APIs, which come later.
"""

from provisioner.client import http
from provisioner.client.http import quote
from provisioner.client.http import unwrap

COMPUTE = 'compute'


class RestCatalogAPI:
    """Catalog operations of one authenticated Session."""

    def __init__(self, session):
        self._session = session

    def _path(self, resource, name_or_id=None):
        path = ('/provisioner/hosts' if resource == 'host'
                else '/provisioner/catalog/%s' % resource)
        return path if name_or_id is None else '%s/%s' % (path, quote(name_or_id))

    def list(self, resource):
        return unwrap(self._session.get(COMPUTE, self._path(resource)))

    def show(self, resource, name_or_id):
        return unwrap(self._session.get(COMPUTE, self._path(resource, name_or_id)))

    def create_flavor(self, name, vcpus, ram_mib, disk_gib):
        flavor = self._session.post(COMPUTE, '/flavors', {'flavor': {
            'name': name, 'vcpus': vcpus, 'ram': ram_mib, 'disk': disk_gib,
            'id': None}})['flavor']
        return self.show('flavor', flavor['id'])

    def create_image(self, name, **fields):
        raise http.NotAvailable(what='image create')

    def create_network(self, name, cidr, **fields):
        raise http.NotAvailable(what='network create')

    def delete(self, resource, name_or_id):
        if resource == 'network':
            raise http.NotAvailable(what='network delete')
        resource_id = self.show(resource, name_or_id)['id']
        if resource == 'flavor':
            self._session.delete(COMPUTE, '/flavors/%s' % quote(resource_id))
        elif resource == 'image':
            self._session.delete('image', '/v2/images/%s' % quote(resource_id))
        else:
            raise http.NotAvailable(what='%s delete' % resource)

    def update_host(self, name_or_id, **fields):
        """Enable or disable a host, or set its zone and allocation ratios."""
        changes = {k: v for k, v in fields.items() if v is not None}
        return unwrap(self._session.put(COMPUTE, self._path('host', name_or_id),
                                        {'host': changes}))
