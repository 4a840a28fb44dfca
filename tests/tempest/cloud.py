"""The provisioner-api all-in-one tempest runs against: started, seeded, checked, removed.

The deployment is tests/functional/api/conftest.py's ApiCloud (own state_path under
/var/lib, libvirt resource prefix, free loopback port). Only the first admin is made
with the provisioner CLI (``bootstrap``: the API has no user before it); everything
else tempest needs is created through the REST API, as an operator preparing a cloud
for tempest would: flavors, the guest image (uploaded through the image API), a
shared network with its subnet, and the projects and users of the pre-provisioned
accounts.
"""

import dataclasses
import json
import pathlib
import secrets
import signal

from tests.functional import conftest as base
from tests.functional.api import conftest as api_conftest
from tests import netutil

ADMIN_PROJECT = api_conftest.PROJECT
ADMIN_USER = api_conftest.USER
ADMIN_PASSWORD = api_conftest.PASSWORD
NETWORK_NAME = 'tempest-net'
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


@dataclasses.dataclass
class Account:
    username: str
    password: str
    project_name: str
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


class TempestCloud(api_conftest.ApiCloud):
    """An all-in-one provisioner-api deployment prepared for tempest."""

    def __init__(self, root, client_dir):
        super().__init__(root, netutil.free_cidr(), client_dir)
        self.seeded = None

    # -- REST -------------------------------------------------------------------------

    def call(self, method, path, body=None, data=None, headers=None, expect=(200,)):
        """One admin request; the decoded JSON body (None when empty); an unexpected
        status fails with the response."""
        response = self.http.request(method, path, body=body, data=data, headers=headers)
        if response.status_code not in expect:
            raise AssertionError('%s %s: %d, expected %s:\n%s' % (
                method, path, response.status_code, expect, response.text[:2000]))
        return response.json() if response.content else None

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
        members, readers = [], []
        for n in range(1, PROJECTS + 1):
            project = self._project('tempest-%d' % n)
            members.append(self._user('tempest-%d-member' % n, project, ('member',)))
            readers.append(self._user('tempest-%d-reader' % n, project, ('reader',)))
        admins = [Account(ADMIN_USER, ADMIN_PASSWORD, ADMIN_PROJECT, ['admin'])]
        admins += [self._user(name, self._project(name), roles)
                   for name, roles in EXTRA_ACCOUNTS]
        accounts = admins[:1] + members + admins[1:] + readers
        self.seeded = Seeded(flavors, images, NETWORK_NAME, network['id'], subnet['id'],
                             self.cidr, accounts)
        return self.seeded

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

    def _project(self, name):
        """A project: (id, name)."""
        project = self.call('POST', '/identity/v3/projects', {'project': {
            'name': name, 'domain_id': 'default'}}, expect=(201,))['project']
        return project['id'], name

    def _user(self, name, project, roles):
        """A user with these roles in project (id, name), a password of its own."""
        password = secrets.token_hex(12)
        user = self.call('POST', '/identity/v3/users', {'user': {
            'name': name, 'password': password, 'domain_id': 'default',
            'default_project_id': project[0]}}, expect=(201,))['user']
        for role in roles:
            self.call('PUT', '/identity/v3/projects/%s/users/%s/roles/%s'
                      % (project[0], user['id'], role), expect=(204,))
        return Account(name, password, project[1], list(roles))

    # -- what tempest left ------------------------------------------------------------

    def left_behind(self):
        """What exists now that seed_for_tempest() did not make: one line each (the run's tests
        must have removed all of it)."""
        seeded = self.seeded
        found = []
        checks = (
            ('server', "SELECT id, name FROM instances WHERE deleted_at IS NULL", ()),
            ('volume', "SELECT id, name FROM volumes WHERE status != 'deleted'", ()),
            ('port', 'SELECT id, ip FROM ports', ()),
            ('key pair', 'SELECT name, user_id FROM keypairs', ()),
            ('server group', 'SELECT id, name FROM server_groups', ()),
            ('leftover', 'SELECT kind, name FROM leftovers WHERE resolved_at IS NULL',
             ()),
            ('image', 'SELECT id, name FROM images WHERE id NOT IN (%s)'
             % ','.join('?' * len(seeded.images)), tuple(seeded.images)),
            ('flavor', 'SELECT id, name FROM flavors WHERE id NOT IN (%s)'
             % ','.join('?' * len(seeded.flavors)), tuple(seeded.flavors)),
            ('network', 'SELECT id, name FROM networks WHERE id != ?',
             (seeded.network_id,)),
            ('project', 'SELECT id, name FROM projects WHERE name NOT IN (%s)'
             % ','.join('?' * len(seeded.accounts)),
             tuple(a.project_name for a in seeded.accounts)),
            ('user', 'SELECT id, name FROM users WHERE name NOT IN (%s)'
             % ','.join('?' * len(seeded.accounts)),
             tuple(a.username for a in seeded.accounts)),
        )
        for kind, sql, params in checks:
            found += ['%s %s (%s)' % (kind, key, name)
                      for key, name in self.query(sql, params)]
        return found

    # -- teardown ---------------------------------------------------------------------

    def remove_seeded(self):
        """Delete, through the API, what seed_for_tempest() made that it can delete."""
        seeded = self.seeded
        self.call('DELETE', '/network/v2.0/networks/%s' % seeded.network_id,
                  expect=(204,))
        for image in seeded.images:
            self.call('DELETE', '/image/v2/images/%s' % image, expect=(204,))
        for flavor in seeded.flavors:
            self.call('DELETE', '/compute/v2.1/flavors/%s' % flavor, expect=(202, 204))

    def stop_api(self):
        code = self.kill_api(signal.SIGTERM)
        assert code == 0, 'provisioner-api exited %s after SIGTERM:\n%s' % (
            code, self.api_log_text()[-10000:])

    def audit(self):
        """`provisioner audit` and `host teardown`: the findings, [] when clean."""
        problems = []
        result = self.cli('audit', '--format', 'json', check=False)
        if result.returncode != 0:
            problems.append('provisioner audit (exit %d): %s %s'
                            % (result.returncode, result.stdout, result.stderr))
        hosts = json.loads(self.cli('host', 'list', '--format', 'json').stdout)
        for host in hosts:
            result = self.cli('host', 'teardown', host['name'], check=False)
            if result.returncode != 0:
                problems.append('host teardown %s (exit %d): %s'
                                % (host['name'], result.returncode, result.stderr))
        return problems

    def libvirt_leftovers(self):
        """libvirt objects of this deployment that still exist after the teardown."""
        conn = base._libvirt_connection()
        try:
            found = ['domain %s' % d.name() for d in
                     base.domains_mentioning(conn, '%s/' % self.root)]
            found += ['network %s' % n.name() for n in conn.listAllNetworks()
                      if n.name().startswith(self.prefix)]
            found += ['pool %s' % p.name() for p in conn.listAllStoragePools()
                      if p.name().startswith(self.prefix)]
        finally:
            conn.close()
        return found


def new_root():
    root = pathlib.Path('/var/lib') / ('provisioner-tempest-%s' % secrets.token_hex(4))
    root.mkdir(mode=0o755)
    return root

