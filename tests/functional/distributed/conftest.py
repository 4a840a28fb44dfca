"""A private distributed deployment on this machine's real services, driven by the CLI.

See tests/deployment.py: its own PostgreSQL database, RabbitMQ exchange and topics,
Redis jobboard namespace, and the real daemons. Each worker runs inside a hypervisor
host of its own (tools/hosts: a network, mount and pid namespace with its own
libvirtd, on an underlay of the hosts'), and reaches RabbitMQ and provisioner-api
over that underlay; engines and the API run on this machine. The CLI reaches the
cloud as a client does, through provisioner-api (OS_AUTH_URL); only the operator's
commands (db-sync, bootstrap, audit, host teardown) use the deployment's
configuration directly. Everything is removed at the end.
"""

import json
import os
import pathlib
import secrets
import shutil
import time
import urllib.parse

import libvirt
import pytest

from tests import deployment
from tests.functional import conftest as base
from tests import hosts as nshosts
from tests import netutil

MAIN_ENGINE = 'func-engine-main'
WORKERS = ('func-worker-a', 'func-worker-b')


# The operator's commands: they act where the database configuration is.
OPERATOR_COMMANDS = ('db-sync', 'bootstrap', 'token-keys', 'audit', 'host teardown')


class DistributedCloud(base.Cloud):
    """provisioner-api, engines and workers as daemons; the CLI talks to the API."""

    def __init__(self, root, cidr, hosts, extra_conf=''):
        """``extra_conf``: what every daemon's configuration adds (Ceph's)."""
        super().__init__(root, cidr)
        self.namespace_hosts = hosts
        try:
            self.deployment = deployment.Deployment(root, self.state_path,
                                                    'qemu:///system', self.prefix,
                                                    env=self.env, hosts=hosts,
                                                    extra_conf=extra_conf)
        except (deployment.Unavailable, ImportError) as exc:
            pytest.skip(str(exc))
        self.config_file = self.deployment.config_file

    def __getattr__(self, name):
        # start, stop, wait_exit, wait_for_log, log_path, processes...
        if name == 'deployment':
            raise AttributeError(name)
        return getattr(self.deployment, name)

    def query(self, sql, params=()):
        return self.deployment.query(sql, params)

    def hypervisor(self, host=None):
        """A connection to the libvirtd of the namespace host ``host`` (a worker's
        name) runs in; this machine's without a host."""
        if host is None:
            return super().hypervisor()
        return libvirt.open(self.deployment.place(host).libvirt_uri)

    def hypervisors(self):
        return [self.hypervisor(worker) for worker in WORKERS]

    def serve(self):
        """Start provisioner-api (it also serves images to the workers): from now on
        the CLI reaches the cloud through it."""
        self.deployment.serve_images()
        self.env['OS_AUTH_URL'] = self.deployment.api_url + '/identity'

    def environment(self, args, env=None):
        environment = super().environment(args, env)
        command = ' '.join(map(str, args))
        if any(command.startswith(operator) for operator in OPERATOR_COMMANDS):
            environment.pop('OS_AUTH_URL', None)
        return environment

    def wait_for_state(self, name, states, timeout=180):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            instance = self.show(name)
            if instance['vm_state'] in states:
                return instance
            time.sleep(0.3)
        raise AssertionError('%s stayed %s' % (name, instance['vm_state']))

    def ensure_engine(self):
        """Start the main engine unless it runs; True when this call started it."""
        if MAIN_ENGINE in self.processes:
            return False
        self.start('engine', MAIN_ENGINE)
        return True


@pytest.fixture(scope='session')
def dcloud(guest_image):
    base._libvirt_connection().close()
    try:
        nshosts.check_available()
    except nshosts.Unavailable as exc:
        pytest.skip(str(exc))
    root = pathlib.Path('/var/lib') / ('provisioner-test-%s' % secrets.token_hex(4))
    root.mkdir(mode=0o755)
    rabbit_port = urllib.parse.urlsplit(deployment.RABBIT_URL).port or 5672
    cloud = None
    try:
        with nshosts.namespace_hosts(len(WORKERS), relay=(rabbit_port,)) as hosts:
            try:
                cloud = DistributedCloud(root, netutil.free_cidr(), hosts)
                cloud.cli('db-sync')
                cloud.bootstrap()
                cloud.serve()  # the clients' door; workers fetch images from it
                cloud.seed_catalog(guest_image)
                for host in WORKERS:
                    cloud.start('worker', host)
                yield cloud
                cloud.ensure_engine()
                for inst in json.loads(cloud.cli('list', '--format', 'json').stdout):
                    cloud.cli('delete', inst['id'], check=False)
            finally:
                if cloud is not None:
                    cloud.deployment.destroy(os.environ.get('PROVISIONER_TEST_LOG_DIR'))
                    cloud.destroy_everything()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def engine(dcloud):
    """One healthy engine for the test (stopped with SIGTERM after it)."""
    dcloud.ensure_engine()
    yield MAIN_ENGINE
    dcloud.retire(MAIN_ENGINE)


@pytest.fixture
def dbooted(dcloud):
    """Names of instances a test boots; deleted (and checked clean) after it."""
    names = []
    yield names
    started = dcloud.ensure_engine()
    for name in names:
        result = dcloud.cli('show', name, '--format', 'json', check=False)
        if result.returncode == 0:
            instance = json.loads(result.stdout)
            dcloud.cli('delete', instance['id'])
            assert dcloud.leftovers(instance) == []
    if started:
        dcloud.retire(MAIN_ENGINE)
