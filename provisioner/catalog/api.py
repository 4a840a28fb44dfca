"""The catalog API: flavors, images and hosts on behalf of one caller, and networks.

Every call is authorized here (``<resource>:<action>`` rules), so the CLI and the
engine's RPC endpoint enforce the same policy; the resource modules below stay
policy-free. Networks are provisioner.network's: the CLI's network commands call
the same functions as the network API (which check the caller themselves).
"""

import functools

from provisioner.catalog import flavor_extras
from provisioner.catalog import flavors
from provisioner.catalog import hosts
from provisioner.catalog import image_members
from provisioner.catalog import images
from provisioner.conf import CONF
from provisioner.maintenance import networks as maintenance_networks
from provisioner.network import service as networks
from provisioner.network import shared as shared_networks
from provisioner import exception
from provisioner import policy

_MODULES = {'flavor': flavors, 'image': images, 'host': hosts}


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

    def create_flavor(self, name, vcpus, ram_mib, disk_gib, flavor_id=None,
                      description=None, **extra):
        self._authorize('flavor', 'create')
        return flavors.create(name, vcpus, ram_mib, disk_gib, flavor_id, description,
                              **extra)

    def set_flavor_description(self, flavor_id, description):
        self._authorize('flavor', 'create')  # who makes flavors describes them
        return flavors.set_description(flavor_id, description)

    def list_flavors(self, is_public=True):
        """flavors.list_visible's; other than the default view, admins only."""
        self._authorize('flavor', 'list')
        if is_public is not True:
            self._authorize('flavor', 'create')
        return flavors.list_visible(self.context, is_public)

    def flavor_access(self, flavor_id, change=None, project_id=None):
        """A private flavor's projects, after ``change`` ('add' or 'remove')."""
        self._authorize('flavor', 'create')  # who makes flavors shares them
        if change == 'add':
            return flavor_extras.add_access(flavor_id, project_id)
        if change == 'remove':
            return flavor_extras.remove_access(flavor_id, project_id)
        return flavor_extras.access_list(flavor_id)

    def flavor_extra_specs(self, flavor_id, set_specs=None, delete_key=None):
        """A flavor's extra specs (anyone who sees it), after setting some keys or
        deleting one (who makes flavors)."""
        self.show('flavor', flavor_id)
        if set_specs is not None or delete_key is not None:
            self._authorize('flavor', 'create')
        if set_specs is not None:
            flavor_extras.set_extra_specs(flavor_id, set_specs)
        if delete_key is not None:
            flavor_extras.delete_extra_spec(flavor_id, delete_key)
        return flavor_extras.extra_specs(flavor_id)

    def create_image(self, name, **fields):
        """Register an image from files on this host, by path (admin)."""
        self._authorize('image', 'register')
        return images.create(name, **fields)

    def create_network(self, name, cidr, **fields):
        """A shared network with its subnet (the operator's: admin)."""
        self._authorize('network', 'create:shared')
        return shared_networks.create(self.driver, name, cidr, **fields)

    def list(self, resource):
        if resource == 'network':
            return networks.list_networks(self.context)
        self._authorize(resource, 'list')
        if resource == 'host' and self.driver is not None:
            hosts.report_capacity(CONF.host, self.driver.capacity())
        if resource == 'image':
            return images.list_visible(self.context)
        if resource == 'flavor':
            return flavors.list_visible(self.context)
        return _MODULES[resource].list_all()

    def show(self, resource, name_or_id):
        if resource == 'network':
            return networks.find_network(self.context, name_or_id)
        self._authorize(resource, 'show')
        if resource == 'image':
            return images.show_visible(self.context, name_or_id)
        if resource == 'flavor':
            return flavors.show_visible(self.context, name_or_id)
        return _MODULES[resource].show(name_or_id)

    def delete(self, resource, name_or_id):
        if resource == 'image':
            return images.delete(self._own_image('delete', name_or_id)['id'])
        if resource == 'network':
            net = networks.find_network(self.context, name_or_id)
            return networks.delete_network(self.context, net['id'], functools.partial(
                maintenance_networks.unplug, self.driver))
        self._authorize(resource, 'delete')
        return _MODULES[resource].delete(name_or_id)

    # -- images of the image API: the rules are Glance's (images.py has the rest) --

    def _own_image(self, action, name_or_id):
        """The image if the caller sees it (else NotFound) and may ``action`` it."""
        image = images.show_visible(self.context, name_or_id)
        policy.authorize(self.context, 'image:%s' % action,
                         {'project_id': image['owner']})
        return image

    def add_image(self, name=None, **fields):
        """A queued image of the caller's project (or, for an admin, of ``owner``),
        to upload data into."""
        self._authorize('image', 'create')
        if fields.get('visibility') == 'public':
            self._authorize('image', 'publicize')
        if fields.get('owner') not in (None, self.context.project_id):
            self._authorize('image', 'set_owner')
        return images.add(self.context, name, **fields)

    def update_image(self, name_or_id, changes):
        image = self._own_image('update', name_or_id)
        if changes.get('visibility') == 'public' and image['visibility'] != 'public':
            self._authorize('image', 'publicize')
        if 'owner' in changes and changes['owner'] != image['owner']:
            self._authorize('image', 'set_owner')
        return images.update(image['id'], changes)

    def list_images(self, member_status='accepted'):
        """The images the caller sees; shared ones of other projects when the
        caller's membership is ``member_status`` (or 'all')."""
        self._authorize('image', 'list')
        return images.list_visible(self.context, member_status)

    # Glance's members: the owner adds, lists and removes them; a member sees and
    # answers its own membership only.

    def add_image_member(self, image_id, member_id):
        image = self._own_image('add_member', image_id)
        return image_members.add(image['id'], member_id)

    def _member_view(self, image_id):
        """(image, the member the caller may see only, or None for all)."""
        image = self.show('image', image_id)
        if policy.check(self.context, 'image:add_member', {'project_id': image['owner']}):
            return image, None
        return image, self.context.project_id

    def list_image_members(self, image_id):
        image, only = self._member_view(image_id)
        return image_members.list_of(image['id'], only)

    def show_image_member(self, image_id, member_id):
        image, only = self._member_view(image_id)
        if only not in (None, member_id):
            raise exception.NotFound(kind=image_members.KIND, name=member_id)
        return image_members.show(image['id'], member_id)

    def set_image_member_status(self, image_id, member_id, status):
        """Only the member answers (accepted, rejected, pending): Forbidden for the
        owner, as Glance answers."""
        image = self.show('image', image_id)
        if member_id != self.context.project_id:
            image_members.show(image['id'], member_id)  # NotFound first
            raise exception.Forbidden(
                reason='only project %s answers its membership of image %s'
                       % (member_id, image['id']))
        return image_members.set_status(image['id'], member_id, status)

    def remove_image_member(self, image_id, member_id):
        image = self._own_image('add_member', image_id)
        image_members.remove(image['id'], member_id)

    def deactivate_image(self, name_or_id):
        return images.set_active(self._own_image('deactivate', name_or_id)['id'], False)

    def reactivate_image(self, name_or_id):
        return images.set_active(self._own_image('reactivate', name_or_id)['id'], True)

    def upload_image(self, name_or_id, stream, size=None):
        """The service role (hosts' workers, a server's snapshot) uploads to any
        image; others to their project's."""
        if images.SERVICE_ROLE in self.context.roles:
            image = images.show(name_or_id)
            if image['id'] != name_or_id:  # by id only, as the API reaches images
                raise exception.NotFound(kind=images.KIND, name=name_or_id)
            policy.authorize(self.context, 'image:upload', {'project_id': image['owner']})
        else:
            image = self._own_image('upload', name_or_id)
        return images.upload(image['id'], stream, size)

    def image_data(self, name_or_id, part=None):
        """(image, path of its data or None) for a download; ``part`` (disk, kernel,
        ramdisk) picks one file of what a boot of it reads, as hosts fetch them.

        The service role (hosts' workers) downloads any image, private ones too. A
        deactivated image's data is an admin's only (Glance's 403 for others).
        """
        self._authorize('image', 'download')
        if images.SERVICE_ROLE in self.context.roles:
            image = images.show(name_or_id)
        else:
            image = images.show_visible(self.context, name_or_id)
        if image['status'] == images.DEACTIVATED:
            self._authorize('image', 'download:deactivated')
        return image, images.data_path(image, part)

    def update_host(self, name_or_id, **fields):
        """Enable or disable a host, or set its zone and allocation ratios."""
        self._authorize('host', 'update')
        return hosts.update(name_or_id, **fields)
