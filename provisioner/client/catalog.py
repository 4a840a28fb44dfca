"""CatalogAPI's interface over provisioner-api: flavors, images, networks and hosts.

Lists and shows come from provisioner's extension (``/provisioner/catalog/...`` and
``/provisioner/hosts``): the rows the all-in-one CLI prints. Writes use each
service's own API: Nova's flavors, Glance's image delete, the extension's host
update. ``image create`` uploads the files' bytes to the image API (Glance's
create + PUT .../file), never a path; ``network create`` is Neutron's network and
subnet creates.
"""

import os

from provisioner.client import http
from provisioner.client.http import quote
from provisioner.client.http import unwrap
from provisioner import disk_formats
from provisioner import exception
from provisioner.network import addressing

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

    def create_image(self, name, file=None, kernel=None, ramdisk=None, disk_format=None,
                     cmdline=None, arch=None, hypervisor_type=None, min_ram_mib=0,
                     min_disk_gib=0):
        """Upload the files as Glance images (private to the caller's project).

        A disk is one image (qcow2 or raw, detected when not given); a kernel is an
        aki image with its ramdisk as an ari image ``NAME-ramdisk`` named by the
        ``ramdisk_id`` property. With a disk as well, the kernel is ``NAME-kernel``
        and the disk names both. Anything that fails deletes what was made.
        """
        if not file and not kernel:
            raise exception.Invalid(reason='an image needs --file (a disk image) or '
                                           '--kernel (with --ramdisk) for direct '
                                           'kernel boot')
        if ramdisk and not kernel:
            raise exception.Invalid(reason='--ramdisk needs --kernel')
        common = {'min_ram': min_ram_mib or 0, 'min_disk': min_disk_gib or 0}
        for key, value in (('architecture', arch), ('hypervisor_type', hypervisor_type),
                           ('os_command_line', cmdline)):
            if value:
                common[key] = value
        made = []
        try:
            links = {}
            if ramdisk:
                links['ramdisk_id'] = self._upload(made, name + '-ramdisk', 'ari',
                                                   ramdisk, {})
            if kernel:
                fields = dict(common, **links) if not file else dict(links)
                if cmdline:
                    fields['os_command_line'] = cmdline
                links['kernel_id'] = self._upload(
                    made, name + '-kernel' if file else name, 'aki', kernel, fields)
            if file:
                self._upload(made, name, disk_format or disk_formats.detect(file),
                             file, dict(common, **links))
        except BaseException:
            for image_id in reversed(made):
                try:
                    self._session.delete('image', '/v2/images/%s' % quote(image_id))
                except exception.ProvisionerError:
                    pass  # the error that stopped us matters more
            raise
        return self.show('image', made[-1])

    def _upload(self, made, name, disk_format, path, fields):
        """Create an image and upload ``path`` into it; its id (recorded in made)."""
        with open(path, 'rb') as data:
            size = os.fstat(data.fileno()).st_size
            image = self._session.post('image', '/v2/images', dict(
                fields, name=name, disk_format=disk_format, container_format='bare'))
            made.append(image['id'])
            self._session.request('PUT', 'image', '/v2/images/%s/file'
                                  % quote(image['id']), data,
                                  headers={'Content-Type': 'application/octet-stream',
                                           'Content-Length': str(size)})
        return image['id']

    def create_network(self, name, cidr, gateway=None, dhcp_start=None, dhcp_end=None):
        """A shared network and its subnet through the network API (Neutron's two
        creates); the network goes again if its subnet is refused."""
        subnet = {'cidr': cidr, 'ip_version': 4, 'name': name}
        if gateway:
            subnet['gateway_ip'] = gateway
        if dhcp_start or dhcp_end:  # the other end as network create defaults it
            default = addressing.plan(cidr, gateway or addressing.DEFAULT)
            subnet['allocation_pools'] = [{'start': dhcp_start or default['dhcp_start'],
                                           'end': dhcp_end or default['dhcp_end']}]
        net = self._session.post('network', '/v2.0/networks', {'network': {
            'name': name, 'shared': True}})['network']
        try:
            self._session.post('network', '/v2.0/subnets', {'subnet': dict(
                subnet, network_id=net['id'])})
        except BaseException:
            self._session.delete('network', '/v2.0/networks/%s' % quote(net['id']))
            raise
        return self.show('network', net['id'])

    def delete(self, resource, name_or_id):
        resource_id = self.show(resource, name_or_id)['id']
        if resource == 'network':
            self._session.delete('network', '/v2.0/networks/%s' % quote(resource_id))
        elif resource == 'flavor':
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
