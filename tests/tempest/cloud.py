"""The provisioner-api all-in-one tempest runs against: started, seeded, checked, removed.

The deployment is tests/functional/api/conftest.py's ApiCloud (own state_path under
/var/lib, libvirt resource prefix, free loopback port). Only the first admin is made
with the provisioner CLI (``bootstrap``: the API has no user before it); everything
else tempest needs is created through the REST API, as an operator preparing a cloud
for tempest would: flavors, the guest image (uploaded through the image API), a
shared network with its subnet, an external network with its subnet (tempest's
public_network_id: routers' gateways and floating IPs) and a router joining the two
(the servers' floating IPs go through it), and the projects and users of the
pre-provisioned accounts.
"""

import dataclasses
import secrets

from tests.functional.api import conftest as api_conftest
from tests import netutil

ADMIN_PROJECT = api_conftest.PROJECT
ADMIN_USER = api_conftest.USER
ADMIN_PASSWORD = api_conftest.PASSWORD
NETWORK_NAME = 'tempest-net'
PUBLIC_NETWORK_NAME = 'tempest-public'
# (name, vcpus, ram MiB, disk GiB): the guest needs 128 MiB; "alt" is what a resize
# would move to.
FLAVORS = (('tempest-tiny', 1, 128, 1), ('tempest-small', 1, 192, 2))
IMAGES = ('tempest-guest', 'tempest-guest-alt')
# Pre-provisioned accounts: tempest locks one per test class, and with two workers
# each may hold a primary, an alt, an admin and the primary's project reader at once.
# Each of PROJECTS has a member and a reader (tempest's project_reader must be in the
# primary's project); the members come first in the accounts file, as tempest's
# "alt" takes the first free non-admin account, which must not be a reader.
PROJECTS = 6
# More admins, then the users with admin and service roles some tests ask for (as a
# third account beside their admin). An admin is the first free account with the
# admin role in the file: with too few plain admins one class took the service
# user as its admin, and the next asking for a service user found none.
EXTRA_ACCOUNTS = tuple(('tempest-admin-%d' % n, ('admin',)) for n in (1, 2, 3)) + tuple(
    ('tempest-service-%d' % n, ('admin', 'service')) for n in (1, 2))
# System-scope readers: the identity classes ask for one (credentials =
# [..., 'system_reader']) even when they do not use it (use_system_token false).
SYSTEM_READERS = 2
# What an identity test may create and must delete (beside projects and users): the
# table, and what the seeding or the migrations made there.
IDENTITY_TABLES = (('domain', "SELECT id, name FROM domains WHERE id != 'default'"),
                   ('group', 'SELECT id, name FROM groups'),
                   ('role', "SELECT id, name FROM roles WHERE id NOT IN "
                            "('admin', 'member', 'reader', 'service')"),
                   ('region', 'SELECT id, description FROM regions'),
                   ('service', 'SELECT id, type FROM services'),
                   ('endpoint', 'SELECT id, url FROM endpoints'),
                   ('credential', 'SELECT id, type FROM credentials'),
                   ('policy', 'SELECT id, type FROM policies'))


@dataclasses.dataclass
class Account:
    username: str
    password: str
    project_name: str | None  # None: a system-scope account
    roles: list


@dataclasses.dataclass
class Seeded:
    """What seed_for_tempest() made: tempest.conf points at it, teardown removes it."""
    flavors: list
    images: list
    network_name: str
    network_id: str
    subnet_id: str
    cidr: str
    accounts: list
    public_network_id: str = ''
    public_network_name: str = PUBLIC_NETWORK_NAME
    router_id: str = ''
    router_ports: tuple = ()


class TempestCloud(api_conftest.ApiCloud):
    """An all-in-one provisioner-api deployment prepared for tempest."""

    def __init__(self, root, client_dir):
        super().__init__(root, netutil.free_cidr(), client_dir)
        self.seeded = None

    # -- seeding ----------------------------------------------------------------------

    def seed_for_tempest(self, disk):
        """Bootstrap the admin, start the API, create what tempest needs."""
        self.cli('bootstrap', '--username', ADMIN_USER, '--password', ADMIN_PASSWORD,
                 '--project', ADMIN_PROJECT)
        self.start_api()
        flavors = [self.call('POST', '/compute/v2.1/flavors', {'flavor': {
            'name': name, 'vcpus': vcpus, 'ram': ram, 'disk': disk_gib, 'id': None}})
            ['flavor']['id'] for name, vcpus, ram, disk_gib in FLAVORS]
        images = [self._upload_image(name, disk) for name in IMAGES]
        network = self.call('POST', '/network/v2.0/networks', {'network': {
            'name': NETWORK_NAME, 'shared': True}}, expect=(201,))['network']
        subnet = self.call('POST', '/network/v2.0/subnets', {'subnet': {
            'name': NETWORK_NAME, 'network_id': network['id'], 'cidr': self.cidr,
            'ip_version': 4}}, expect=(201,))['subnet']
        public = self._external_network()
        router = self.call('POST', '/network/v2.0/routers', {'router': {
            'name': 'tempest-router', 'external_gateway_info': {'network_id': public}}},
            expect=(201,))['router']
        self.call('PUT', '/network/v2.0/routers/%s/add_router_interface' % router['id'],
                  {'subnet_id': subnet['id']})
        router_ports = tuple(p['id'] for p in self.call(
            'GET', '/network/v2.0/ports?device_id=%s' % router['id'])['ports'])
        members, readers = [], []
        for n in range(1, PROJECTS + 1):
            project = self.create_project('tempest-%d' % n)
            members.append(self._user('tempest-%d-member' % n, project, ('member',)))
            readers.append(self._user('tempest-%d-reader' % n, project, ('reader',)))
        admins = [Account(ADMIN_USER, ADMIN_PASSWORD, ADMIN_PROJECT, ['admin'])]
        admins += [self._user(name, self.create_project(name), roles)
                   for name, roles in EXTRA_ACCOUNTS]
        accounts = admins[:1] + members + admins[1:] + readers
        accounts += [self._system_reader('tempest-system-reader-%d' % n)
                     for n in range(1, SYSTEM_READERS + 1)]
        self.seeded = Seeded(flavors, images, NETWORK_NAME, network['id'], subnet['id'],
                             self.cidr, accounts, public, router_id=router['id'],
                             router_ports=router_ports)
        return self.seeded

    def _external_network(self):
        """The admin's external network and its subnet, of addresses nothing on this
        machine routes (only records use them: no host plumbs it); its id."""
        network = self.call('POST', '/network/v2.0/networks', {'network': {
            'name': PUBLIC_NETWORK_NAME, 'router:external': True}},
            expect=(201,))['network']
        self.call('POST', '/network/v2.0/subnets', {'subnet': {
            'name': PUBLIC_NETWORK_NAME, 'network_id': network['id'],
            'cidr': netutil.free_cidr(253), 'ip_version': 4}}, expect=(201,))
        return network['id']

    def _upload_image(self, name, disk):
        """A public qcow2 image: POST /v2/images, then its bytes with PUT .../file."""
        image = self.call('POST', '/image/v2/images', {
            'name': name, 'disk_format': 'qcow2', 'container_format': 'bare',
            'visibility': 'public'}, expect=(201,))
        with open(disk, 'rb') as data:
            self.call('PUT', '/image/v2/images/%s/file' % image['id'], data=data,
                      headers={'Content-Type': 'application/octet-stream'},
                      expect=(204,))
        status = self.call('GET', '/image/v2/images/%s' % image['id'])['status']
        assert status == 'active', 'image %s is %s after its upload' % (name, status)
        return image['id']

    def _user(self, name, project, roles):
        """An account: a user with these roles in project (id, name)."""
        return Account(name, self.create_user(name, project, roles), project[1],
                       list(roles))

    def _system_reader(self, name):
        """An account with the reader role on the system (Keystone's system scope)."""
        password = secrets.token_hex(12)
        user = self.call('POST', '/identity/v3/users', {'user': {
            'name': name, 'password': password}}, expect=(201,))['user']
        self.call('PUT', '/identity/v3/system/users/%s/roles/reader' % user['id'],
                  expect=(204,))
        return Account(name, password, None, ['reader'])

    # -- what tempest left ------------------------------------------------------------

    def left_behind(self):
        """What exists now that seed_for_tempest() did not make: one line each (the run's tests
        must have removed all of it)."""
        seeded = self.seeded
        found = self.rows_left(images=seeded.images, flavors=seeded.flavors,
                               networks=(seeded.network_id,
                                         seeded.public_network_id),
                               routers=(seeded.router_id,), ports=seeded.router_ports,
                               projects=(a.project_name for a in seeded.accounts
                                         if a.project_name),
                               users=(a.username for a in seeded.accounts))
        for kind, sql in IDENTITY_TABLES:
            found += ['%s %s (%s)' % (kind, key, name) for key, name in self.query(sql)]
        return found

    # -- teardown ---------------------------------------------------------------------

    def remove_seeded(self):
        """Delete, through the API, what seed_for_tempest() made that it can delete."""
        seeded = self.seeded
        self.call('PUT', '/network/v2.0/routers/%s/remove_router_interface'
                  % seeded.router_id, {'subnet_id': seeded.subnet_id})
        self.call('DELETE', '/network/v2.0/routers/%s' % seeded.router_id,
                  expect=(204,))
        for network in (seeded.network_id, seeded.public_network_id):
            self.call('DELETE', '/network/v2.0/networks/%s' % network, expect=(204,))
        for image in seeded.images:
            self.call('DELETE', '/image/v2/images/%s' % image, expect=(204,))
        for flavor in seeded.flavors:
            self.call('DELETE', '/compute/v2.1/flavors/%s' % flavor, expect=(202, 204))
