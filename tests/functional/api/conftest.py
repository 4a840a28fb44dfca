"""Functional fixtures for provisioner-api, driven by the real OpenStack clients.

One all-in-one ``provisioner-api`` daemon per session, on a free loopback port, over a
private deployment like tests/functional/conftest.py's (its own state_path under
/var/lib, libvirt resource prefix and isolated network; seeded with the provisioner
CLI: admin, flavor ``tiny``, image ``guest``, network ``net1``). Tests drive it as a
user would: the ``openstack`` CLI (python-openstackclient) in subprocesses with a
``clouds.yaml``, openstacksdk in process, and plain HTTP for the bad-input checks.
Everything is removed at the end; the daemon's log is kept in
``$PROVISIONER_TEST_LOG_DIR`` when that is set.
"""

import contextlib
import functools
import json
import os
import pathlib
import secrets
import shutil
import signal
import subprocess
import sys
import time

import pytest

from tests import deployment
from tests.functional import conftest as base
from tests import netutil

CLOUD_NAME = 'provisioner-func'
USER, PASSWORD, PROJECT = 'admin', 'func-secret', 'admin'
MARKER = 'PROVISIONER-GUEST: '
# Every step of a boot, as `server event show` lists them (the flow's atoms).
BOOT_STEPS = ('select-hosts', 'claim-resources', 'fetch-image', 'allocate-ports',
              'create-volumes', 'build-config-drive', 'define-domain', 'start-domain',
              'mark-active')


def client_program(name):
    """A console script of the test environment (next to this Python), else PATH's."""
    beside = pathlib.Path(sys.executable).parent / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        pytest.skip('%s is not installed (it comes with test-requirements.txt)' % name)
    return found


def write_clouds_yaml(path, url, clouds=None):
    """A clouds.yaml of the deployment at url: clouds maps each cloud's name to its
    (user, password, project); by default one cloud, CLOUD_NAME: the admin."""
    entries = ''.join(
        '  %(cloud)s:\n'
        '    auth:\n'
        '      auth_url: %(url)s/identity\n'
        '      username: %(user)s\n'
        '      password: %(password)s\n'
        '      project_name: %(project)s\n'
        '      user_domain_name: Default\n'
        '      project_domain_name: Default\n'
        '    region_name: RegionOne\n'
        '    identity_api_version: 3\n'
        '    interface: public\n'
        % {'cloud': cloud, 'url': url, 'user': user, 'password': password,
           'project': project}
        for cloud, (user, password, project) in
        (clouds or {CLOUD_NAME: (USER, PASSWORD, PROJECT)}).items())
    path.write_text('clouds:\n' + entries)
    return path


def markers(console):
    """The guest's ``PROVISIONER-GUEST: key=value`` lines as a dict (last one wins)."""
    return dict(line[len(MARKER):].split('=', 1) for line in console.splitlines()
                if line.startswith(MARKER) and '=' in line)


class OpenStackCLI:
    """The real ``openstack`` command against one cloud of a clouds.yaml."""

    def __init__(self, clouds_yaml, cloud=CLOUD_NAME):
        self.program = client_program('openstack')
        self.cloud = cloud
        # Only the clouds.yaml speaks: no OS_* variable of the caller's shell.
        self.env = {key: value for key, value in os.environ.items()
                    if not key.startswith('OS_')}
        self.env.update(OS_CLIENT_CONFIG_FILE=str(clouds_yaml), PYTHONWARNINGS='ignore')

    def command(self, args):
        return [self.program, '--os-cloud', self.cloud] + [str(a) for a in args]

    def run(self, *args, check=True, timeout=300):
        result = subprocess.run(self.command(args), capture_output=True, text=True,
                                timeout=timeout, env=self.env)
        if check and result.returncode != 0:
            raise AssertionError('openstack %s failed (%d):\n%s\n%s'
                                 % (' '.join(map(str, args)), result.returncode,
                                    result.stdout, result.stderr))
        return result

    def json(self, *args, timeout=300):
        """The command's ``-f json`` output, parsed."""
        return json.loads(self.run(*args, '-f', 'json', timeout=timeout).stdout)

    def popen(self, *args):
        return subprocess.Popen(self.command(args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=self.env)

    def wait_for_status(self, server, status, timeout=120):
        """`server show` until the status (for commands without --wait)."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.json('server', 'show', server)
            if shown['status'] == status:
                return shown
            if time.monotonic() > deadline:
                raise AssertionError('%s stayed %s (task_state %s), never %s'
                                     % (server, shown['status'],
                                        shown.get('OS-EXT-STS:task_state'), status))
            time.sleep(1)

    def wait_for_console(self, server, boots=1, marker='PROVISIONER-GUEST: ready',
                         timeout=base.CONSOLE_TIMEOUT):
        """`console log show` until the guest printed marker (in as many boots: the
        log is appended to across restarts); the markers as a dict (the last boot's)."""
        deadline = time.monotonic() + timeout
        while True:
            console = self.run('console', 'log', 'show', server).stdout
            if console.count(marker) >= boots:
                return markers(console)
            if time.monotonic() > deadline:
                raise AssertionError('guest %s printed %r %d times, not %d; console:\n%s'
                                     % (server, marker, console.count(marker), boots,
                                        console))
            time.sleep(1)


class Http:
    """Plain HTTP to provisioner-api, for what the clients never send."""

    def __init__(self, url):
        import requests
        self.url = url
        self.session = requests.Session()
        self._token = None
        self._project_id = None

    def authenticate(self):
        response = self.session.post(
            self.url + '/identity/v3/auth/tokens', timeout=30,
            json={'auth': {'identity': {'methods': ['password'], 'password': {'user': {
                'name': USER, 'password': PASSWORD, 'domain': {'name': 'Default'}}}},
                'scope': {'project': {'name': PROJECT,
                                      'domain': {'name': 'Default'}}}}})
        assert response.status_code == 201, (response.status_code, response.text)
        self._token = response.headers['X-Subject-Token']
        self._project_id = response.json()['token']['project']['id']

    @property
    def token(self):
        if self._token is None:
            self.authenticate()
        return self._token

    @property
    def project_id(self):
        if self._project_id is None:
            self.authenticate()
        return self._project_id

    def request(self, method, path, body=None, data=None, headers=None, token=True):
        """One request; body is sent as JSON, data as it is; token=False: none,
        a string: that token."""
        headers = dict(headers or {})
        if token is True:
            headers['X-Auth-Token'] = self.token
        elif token:
            headers['X-Auth-Token'] = token
        if body is not None:
            data = json.dumps(body)
        if data is not None:
            headers.setdefault('Content-Type', 'application/json')
        return self.session.request(method, self.url + path, data=data,
                                    headers=headers, timeout=60)

    def compute(self, method, path, **kwargs):
        return self.request(method, '/compute/v2.1' + path, **kwargs)

    def find_server(self, name):
        """The server named name, from /servers/detail, or None."""
        response = self.compute('GET', '/servers/detail?name=%s' % name)
        assert response.status_code == 200, response.text
        found = [s for s in response.json()['servers'] if s['name'] == name]
        return found[0] if found else None


class ApiCloud(base.Cloud):
    """A private all-in-one deployment served by provisioner-api on 127.0.0.1."""

    def __init__(self, root, cidr, client_dir):
        super().__init__(root, cidr)
        self.port = deployment.free_port()
        self.url = 'http://127.0.0.1:%d' % self.port
        # The metadata service's (tests/functional/api/test_metadata_service.py).
        self.metadata_secret = secrets.token_hex(16)
        with open(self.config_file, 'a') as conf:
            conf.write(deployment.api_conf(self.port))
            conf.write('[metadata]\nproxy_shared_secret = %s\n' % self.metadata_secret)
        self.api_log = root / 'provisioner-api.log'
        self.api = None
        self.clouds_yaml = write_clouds_yaml(client_dir / 'clouds.yaml', self.url)
        self.http = Http(self.url)

    @functools.cached_property
    def openstack(self):
        """The ``openstack`` CLI with this cloud's clouds.yaml (made when first used:
        the harnesses of tests/tempest and tests/ansible run without it)."""
        return OpenStackCLI(self.clouds_yaml)

    # -- the daemon ------------------------------------------------------------------

    def start_api(self, timeout=60):
        """Start provisioner-api; the seconds it took to log that it is ready."""
        started = time.monotonic()
        with open(self.api_log, 'ab') as log:
            since = log.tell()  # a restarted daemon appends: only its own lines count
            self.api = subprocess.Popen(
                [sys.executable, '-m', 'provisioner.cmd.api', '--config-file',
                 str(self.config_file)],
                stdout=log, stderr=subprocess.STDOUT, env=self.env, cwd=base.REPO)
        while deployment.READY['api'] not in self.api_log_text(since):
            if self.api.poll() is not None or time.monotonic() - started > timeout:
                raise AssertionError('provisioner-api never logged %r:\n%s'
                                     % (deployment.READY['api'],
                                        self.api_log_text(since)[-5000:]))
            time.sleep(0.02)
        return time.monotonic() - started

    @contextlib.contextmanager
    def fault_injected(self, option, step):
        """provisioner-api restarted with a fault point ([fault_injection] ``option``
        = ``step``) for the block, then restarted without it."""
        name = 'OS_FAULT_INJECTION__%s' % option.upper()
        self.kill_api()
        self.env[name] = step
        try:
            self.start_api()
            yield
        finally:
            del self.env[name]
            self.kill_api()
            self.start_api()

    def api_log_text(self, since=0):
        with open(self.api_log, 'rb') as log:
            log.seek(since)
            return log.read().decode(errors='replace')

    def api_log_size(self):
        return self.api_log.stat().st_size if self.api_log.exists() else 0

    def kill_api(self, sig=signal.SIGKILL, timeout=60):
        """Signal provisioner-api and wait for it to exit; its exit code."""
        proc, self.api = self.api, None
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(sig)
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            raise AssertionError('provisioner-api did not exit within %d s of %s; its '
                                 'log ends:\n%s' % (timeout, signal.Signals(sig).name,
                                                    self.api_log_text()[-10000:]))

    # -- what a server left ----------------------------------------------------------

    def record(self, server_id):
        """What the provisioner CLI knows of a server (for leftovers())."""
        return self.show(server_id)

    def delete_and_check(self, server_id):
        """`openstack server delete --wait`, then nothing of it may remain."""
        instance = self.record(server_id)
        self.openstack.run('server', 'delete', '--wait', server_id)
        assert self.leftovers(instance) == []

    def counts(self):
        """Rows that a refused request must not have added."""
        return {table: self.query('SELECT count(*) FROM %s' % table)[0][0]
                for table in ('instances', 'flowdetails', 'instance_actions', 'ports',
                              'volumes')}

    # -- a harness's deployment (tests/tempest, tests/ansible) -----------------------

    def call(self, method, path, body=None, data=None, headers=None, expect=(200,)):
        """One admin request; the decoded JSON body (None when empty); an unexpected
        status fails with the response."""
        response = self.http.request(method, path, body=body, data=data, headers=headers)
        if response.status_code not in expect:
            raise AssertionError('%s %s: %d, expected %s:\n%s' % (
                method, path, response.status_code, expect, response.text[:2000]))
        return response.json() if response.content else None

    def create_project(self, name):
        """A project, through the identity API: (id, name)."""
        project = self.call('POST', '/identity/v3/projects', {'project': {
            'name': name, 'domain_id': 'default'}}, expect=(201,))['project']
        return project['id'], name

    def create_user(self, name, project, roles):
        """A user with these roles in project (id, name), through the identity API;
        its password, one of its own."""
        password = secrets.token_hex(12)
        user = self.call('POST', '/identity/v3/users', {'user': {
            'name': name, 'password': password, 'domain_id': 'default',
            'default_project_id': project[0]}}, expect=(201,))['user']
        for role in roles:
            self.call('PUT', '/identity/v3/projects/%s/users/%s/roles/%s'
                      % (project[0], user['id'], role), expect=(204,))
        return password

    def rows_left(self, images=(), flavors=(), networks=(), projects=(), users=(),
                  routers=(), ports=()):
        """What the database still holds beyond what is kept (ids of images, flavors,
        networks, routers and ports, names of projects and users): one line each.
        Servers, volumes, floating IPs, key pairs, server groups and unresolved
        leftovers are never kept."""
        checks = [
            ('server', "SELECT id, name FROM instances WHERE deleted_at IS NULL", ()),
            ('volume', "SELECT id, name FROM volumes WHERE status != 'deleted'", ()),
            ('floating IP', 'SELECT id, floating_ip_address FROM floatingips', ()),
            ('key pair', 'SELECT name, user_id FROM keypairs', ()),
            ('server group', 'SELECT id, name FROM server_groups', ()),
            ('leftover', 'SELECT kind, name FROM leftovers WHERE resolved_at IS NULL',
             ()),
        ]
        for kind, table, column, kept in (
                ('image', 'images', 'id', images), ('flavor', 'flavors', 'id', flavors),
                ('network', 'networks', 'id', networks),
                ('router', 'routers', 'id', routers), ('port', 'ports', 'id', ports),
                ('project', 'projects', 'name', projects),
                ('user', 'users', 'name', users)):
            kept = tuple(kept)
            where = (' WHERE %s NOT IN (%s)' % (column, ','.join('?' * len(kept)))
                     if kept else '')
            checks.append((kind, 'SELECT id, name FROM %s%s' % (table, where), kept))
        found = []
        for kind, sql, params in checks:
            found += ['%s %s (%s)' % (kind, key, name)
                      for key, name in self.query(sql, params)]
        return found

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
            found += ['filter %s' % f.name() for f in conn.listAllNWFilters()
                      if f.name().startswith(self.prefix + '-port-')]
        finally:
            conn.close()
        return found

    def take_down(self, left_behind=list, remove=None):
        """Stop the API and check that the deployment is clean: the problems found,
        [] when all was clean. left_behind(): what the run left (checked while the API
        still serves); remove(): delete through the API what the harness itself made.
        Servers still there are then deleted with the CLI, so that audit and libvirt
        speak of what that could not remove."""
        problems = []
        if self.api is not None and self.api.poll() is None:
            problems += ['left behind: %s' % item for item in left_behind()]
            if remove is not None:
                try:
                    remove()
                except AssertionError as exc:
                    problems.append('removing what the harness made: %s' % exc)
            self.stop_api()
        if self.state_path.exists():
            for server in self.query('SELECT id FROM instances WHERE deleted_at IS NULL'):
                self.cli('delete', server[0], check=False)
            problems += self.audit()
        problems += ['left in libvirt: %s' % item for item in self.libvirt_leftovers()]
        return problems

    def dispose(self, keep_log_in):
        """The safety net after take_down(), failed or not: the API killed, its log
        copied into keep_log_in, every libvirt object of the deployment destroyed and
        its root removed."""
        try:
            self.kill_api()
        finally:
            keep_log_in.mkdir(parents=True, exist_ok=True)
            if self.api_log.exists():
                shutil.copy(self.api_log, keep_log_in)
            self.destroy_everything()
            shutil.rmtree(self.root, ignore_errors=True)


def new_root(harness):
    """An empty root for a harness's deployment: under /var/lib, which libvirt-qemu
    can traverse."""
    root = pathlib.Path('/var/lib') / ('provisioner-%s-%s' % (harness,
                                                              secrets.token_hex(4)))
    root.mkdir(mode=0o755)
    return root


def _save_log(path, name):
    keep = os.environ.get('PROVISIONER_TEST_LOG_DIR')
    if keep and path.exists():
        pathlib.Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, pathlib.Path(keep) / name)


@pytest.fixture(scope='session')
def api_cloud(guest_image, tmp_path_factory):
    """The all-in-one provisioner-api every test of this directory shares."""
    with running_api_cloud(guest_image, tmp_path_factory.mktemp('clients')) as cloud:
        yield cloud


@contextlib.contextmanager
def running_api_cloud(guest_image, client_dir, extra_conf=''):
    """A seeded all-in-one provisioner-api (``extra_conf`` appended to its config
    file), stopped and removed at the end with everything it made."""
    base._libvirt_connection().close()
    client_program('openstack')
    root = pathlib.Path('/var/lib') / ('provisioner-test-%s' % secrets.token_hex(4))
    root.mkdir(mode=0o755)
    cloud = ApiCloud(root, netutil.free_cidr(), client_dir)
    try:
        with open(cloud.config_file, 'a') as conf:
            conf.write(extra_conf.replace('{api}', cloud.url))
        cloud.seed(guest_image)
        cloud.start_api()
        yield cloud
        if cloud.api is not None and cloud.api.poll() is None:
            for server in cloud.openstack.json('server', 'list'):
                cloud.openstack.run('server', 'delete', '--wait', server['ID'],
                                    check=False)
            code = cloud.kill_api(signal.SIGTERM)
            assert code == 0, 'provisioner-api exited %s after SIGTERM:\n%s' % (
                code, cloud.api_log_text()[-10000:])
        for inst in json.loads(cloud.cli('list', '--format', 'json').stdout):
            cloud.cli('delete', inst['id'], check=False)
        cloud.cli('network', 'delete', 'net1', check=False)
    finally:
        cloud.kill_api()
        _save_log(cloud.api_log, 'provisioner-api-%s.log' % cloud.prefix)
        cloud.destroy_everything()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope='session')
def openstack(api_cloud):
    """The `openstack` CLI of the all-in-one cloud."""
    return api_cloud.openstack


@pytest.fixture(scope='session')
def keypair(api_cloud, tmp_path_factory):
    """A key pair registered with `openstack keypair create --public-key`:
    (name, the public key line)."""
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives import serialization
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    key = private.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()
    key += ' functional@provisioner'
    path = tmp_path_factory.mktemp('keys') / 'id_rsa.pub'
    path.write_text(key + '\n')
    created = api_cloud.openstack.json('keypair', 'create', '--public-key', path,
                                       'func-key')
    assert created['name'] == 'func-key'
    return 'func-key', key
