"""The catalog API: flavors, images, networks and hosts on behalf of one caller.

Every call is authorized here (``<resource>:<action>`` rules), so the CLI and the
engine's RPC endpoint enforce the same policy; the resource modules below stay
policy-free.
"""

from provisioner.catalog import flavors
from provisioner.catalog import hosts
from provisioner.catalog import images
from provisioner.catalog import networks
from provisioner.conf import CONF
from provisioner import policy

_MODULES = {'flavor': flavors, 'image': images, 'network': networks, 'host': hosts}


class CatalogAPI:
    """Catalog operations for one authenticated RequestContext.

    ``driver`` is this host's hypervisor all-in-one; None in distributed mode, where
    each worker reports its host and defines a network when a port first needs it.
    """

    def __init__(self, context, driver):
        self.context = context
        self.driver = driver

    def _authorize(self, resource, action):
        policy.authorize(self.context, '%s:%s' % (resource, action))

    def create_flavor(self, name, vcpus, ram_mib, disk_gib, flavor_id=None):
        self._authorize('flavor', 'create')
        return flavors.create(name, vcpus, ram_mib, disk_gib, flavor_id)

    def create_image(self, name, **fields):
        self._authorize('image', 'create')
        return images.create(name, **fields)

    def create_network(self, name, cidr, **fields):
        self._authorize('network', 'create')
        return networks.create(self.driver, name, cidr, **fields)

    def list(self, resource):
        self._authorize(resource, 'list')
        if resource == 'host' and self.driver is not None:
            hosts.report_capacity(CONF.host, self.driver.capacity())
        return _MODULES[resource].list_all()

    def show(self, resource, name_or_id):
        self._authorize(resource, 'show')
        return _MODULES[resource].show(name_or_id)

    def delete(self, resource, name_or_id):
        self._authorize(resource, 'delete')
        if resource == 'network':
            return networks.delete(self.driver, name_or_id)
        return _MODULES[resource].delete(name_or_id)

    def update_host(self, name_or_id, **fields):
        """Enable or disable a host, or set its zone and allocation ratios."""
        self._authorize('host', 'update')
        return hosts.update(name_or_id, **fields)
