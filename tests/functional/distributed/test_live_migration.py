"""Live migration between two namespace hosts on Ceph, driven by the `openstack` CLI.

A distributed cloud of its own: two hosts whose libvirtds listen on the hosts'
underlay (tools/hosts --tcp), a one-node Ceph in a namespace on that underlay
(tools/ceph-cluster), every service in RBD ([image] store, [libvirt] images_type,
[volume] backend) with one libvirt secret UUID on both hosts, each host's worker
defining it from its own keyring, an L2 agent on each host.

The guest boots on one host from a clone of an RBD image, with an RBD volume
attached, and prints a counter to its console every 0.2 s (its user data); it is
live-migrated to the other host while the test watches both hosts' console logs:
the server ends ACTIVE on the other host with the same address and its volume,
the counter went on (no reboot) and its largest gap stayed under 2 s; the claims
moved with it, and the migration and its action are recorded. A migration to its
own host is refused (400) and changes nothing.
"""

import os
import pathlib
import re
import secrets
import shutil
import signal
import threading
import time
import urllib.parse
import uuid

import pytest

from tests import ceph
from tests import deployment
from tests.functional.api import conftest as api
from tests.functional.distributed import conftest as distributed
from tests import hosts as nshosts
from tests import netutil

libvirt = pytest.importorskip('libvirt')

WORKERS = distributed.WORKERS
L2_CONF = '[l2]\nlocal_ip = %s\n'
COUNTER = '''#!/bin/sh
i=0
while true; do
  i=$((i+1))
  echo "COUNTER $i"
  sleep 0.2
done
'''
_TICK = re.compile(r'^COUNTER (\d+)\s*$', re.MULTILINE)
MAX_GAP = 2.0
DOOMED = 'lm-engine-doomed'


def _ceph_conf(cluster, secret_uuid):
    return ('[ceph]\nconf_file = %s\nuser = %s\nkeyring = %s\nsecret_uuid = %s\n'
            'connect_timeout = 5\n[image]\nstore = rbd\n[libvirt]\nimages_type = rbd\n'
            '[volume]\nbackend = rbd\n' % (cluster.client_conf, cluster.client,
                                            cluster.keyring, secret_uuid))


@pytest.fixture(scope='module')
def mcloud(guest_disk, tmp_path_factory):
    """The cloud on two hosts and Ceph, its `openstack` client; all gone after."""
    missing = ceph.missing_binaries()
    if missing:
        pytest.skip('Ceph is not installed (no %s)' % ', '.join(missing))
    try:
        nshosts.check_available()
    except nshosts.Unavailable as exc:
        pytest.skip(str(exc))
    api.client_program('openstack')
    root = pathlib.Path('/var/lib') / ('provisioner-test-lm-%s' % secrets.token_hex(4))
    root.mkdir(mode=0o755)
    rabbit_port = urllib.parse.urlsplit(deployment.RABBIT_URL).port or 5672
    cloud = None
    try:
        with nshosts.namespace_hosts(len(WORKERS), relay=(rabbit_port,),
                                     tcp=True) as hosts:
            member = hosts.attach('ceph')
            member.exec(['ip', 'link', 'set', 'lo', 'up'])
            with ceph.ceph_cluster(root / 'ceph', netns=member.name,
                                   address=member.address) as cluster:
                try:
                    cloud = distributed.DistributedCloud(
                        root, netutil.free_cidr(), hosts,
                        extra_conf=_ceph_conf(cluster, str(uuid.uuid4())))
                    cloud.cli('db-sync')
                    cloud.bootstrap()
                    cloud.serve()
                    for worker in WORKERS:
                        cloud.start('worker', worker,
                                    L2_CONF % cloud.deployment.place(worker).address)
                    cloud.ensure_engine()
                    clients = tmp_path_factory.mktemp('lm-client')
                    cloud.openstack = api.OpenStackCLI(api.write_clouds_yaml(
                        clients / 'clouds.yaml', cloud.deployment.api_url))
                    cloud.cluster = cluster
                    cloud.http = api.Http(cloud.deployment.api_url)
                    cloud.cli('flavor', 'create', 'tiny', '--vcpus', 1, '--ram', 128,
                              '--disk', 1)
                    cloud.cli('network', 'create', 'net1', '--cidr', cloud.cidr)
                    cloud.image = cloud.openstack.json(
                        'image', 'create', '--disk-format', 'qcow2',
                        '--container-format', 'bare', '--file', str(guest_disk),
                        'rbd-guest')
                    yield cloud
                    cloud.openstack.run('image', 'delete', cloud.image['id'],
                                        check=False)
                finally:
                    if cloud is not None:
                        cloud.deployment.destroy(os.environ.get('PROVISIONER_TEST_LOG_DIR'))
                        cloud.destroy_everything()
    finally:
        shutil.rmtree(root, ignore_errors=True)


class ConsoleWatch:
    """Reads the guest's console log on both hosts every 50 ms and notes when each
    counter value first appeared (the guest's log moves with it)."""

    def __init__(self, paths):
        self.paths = paths
        self.seen = {}  # counter value -> monotonic time first seen
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def _run(self):
        while not self._stop.is_set():
            now = time.monotonic()
            for path in self.paths:
                try:
                    text = path.read_text(errors='replace')
                except FileNotFoundError:
                    continue
                for value in _TICK.findall(text):
                    self.seen.setdefault(int(value), now)
            time.sleep(0.05)

    def wait_for(self, count, timeout=60):
        deadline = time.monotonic() + timeout
        while max(self.seen, default=0) < count:
            assert time.monotonic() < deadline, 'the counter stopped at %s' % max(
                self.seen, default=None)
            time.sleep(0.1)
        return max(self.seen)

    def largest_gap(self, since):
        """The longest wait between two successive counter values after ``since``."""
        values = sorted(v for v in self.seen if v >= since)
        times = sorted(self.seen[v] for v in values)
        return max(b - a for a, b in zip(times, times[1:]))


def _console_paths(cloud, server_id):
    return [cloud.deployment.host_state_path(worker) / 'instances' / server_id
            / 'console.log' for worker in WORKERS]


def _domain_disks(cloud, worker, server_id):
    conn = cloud.hypervisor(worker)
    try:
        xml = conn.lookupByUUIDString(server_id).XMLDesc(0)
        running = conn.lookupByUUIDString(server_id).isActive()
    finally:
        conn.close()
    return running, re.findall(r"<source protocol='rbd' name='([^']+)'", xml)


def _has_domain(cloud, worker, server_id):
    conn = cloud.hypervisor(worker)
    try:
        return server_id in [dom.UUIDString() for dom in conn.listAllDomains()]
    finally:
        conn.close()


def _usage(cloud):
    return dict(cloud.query('SELECT name, vcpus_used FROM hosts'))


@pytest.fixture(scope='module')
def server(mcloud, tmp_path_factory):
    """The counting guest, booted from an RBD clone, an RBD volume attached; its
    server and volume deleted at the end (nothing left in the vms pool)."""
    openstack = mcloud.openstack
    user_data = tmp_path_factory.mktemp('user-data') / 'counter.sh'
    user_data.write_text(COUNTER)
    found = openstack.json('server', 'create', '--flavor', 'tiny', '--image',
                           mcloud.image['id'], '--network', 'net1', '--user-data',
                           str(user_data), '--wait', 'counter')
    volume = openstack.json('volume', 'create', '--size', '1', 'lm-vol')
    try:
        _wait_volume(openstack, volume['id'], 'available')
        openstack.run('server', 'add', 'volume', found['id'], volume['id'])
        _wait_volume(openstack, volume['id'], 'in-use')
        found['rbd_disks'] = ['vms/%s_disk' % found['id'],
                              'volumes/volume-%s' % volume['id']]
        # The root disk is a clone of the image's protected snapshot; the key is
        # in no file of the deployment but its keyring (logs, configs).
        parent = mcloud.cluster.rbd_json('info', found['rbd_disks'][0])['parent']
        assert (parent['pool'], parent['image'], parent['snapshot']) == (
            'images', mcloud.image['id'], 'snap')
        _assert_key_nowhere(mcloud)
        yield found
    finally:
        openstack.run('server', 'delete', '--wait', found['id'], check=False)
        openstack.run('volume', 'delete', volume['id'], check=False)
    assert mcloud.cluster.rbd('ls', 'vms').stdout.split() == []


def _assert_key_nowhere(cloud):
    key = cloud.cluster.key.encode()
    ceph_dir = cloud.root / 'ceph'
    for path in cloud.root.rglob('*'):
        if path.is_file() and ceph_dir not in path.parents:
            assert key not in path.read_bytes(), 'the cephx key is in %s' % path


def _hosts(openstack, server_id):
    """(the server's host, the other host)."""
    source = openstack.json('server', 'show', server_id)['OS-EXT-SRV-ATTR:host']
    return source, next(worker for worker in WORKERS if worker != source)


def _migrate(openstack, server_id, host, check=True):
    return openstack.run('--os-compute-api-version', '2.30', 'server', 'migrate',
                         '--live-migration', '--host', host, server_id, check=check)


def _assert_moved(cloud, server, watch, before, source, target):
    """The server ACTIVE on target, same address, one running copy (there), its
    claim there only; the counter went on with no gap over MAX_GAP."""
    shown = cloud.openstack.json('server', 'show', server['id'])
    assert (shown['status'], shown['OS-EXT-SRV-ATTR:host']) == ('ACTIVE', target)
    assert shown['addresses'] == server['addresses']
    after = watch.wait_for(max(watch.seen) + 10)
    assert after > before + 10  # the same guest went on counting: no reboot
    gap = watch.largest_gap(before)
    assert gap < MAX_GAP, 'the guest stopped printing for %.2f s' % gap
    assert _domain_disks(cloud, target, server['id']) == (True, server['rbd_disks'])
    assert not _has_domain(cloud, source, server['id'])
    assert _usage(cloud) == {source: 0, target: 1}
    [migration] = [m for m in _compute(cloud, 'GET', '/os-migrations', '2.80')[
        'migrations'] if m['instance_uuid'] == server['id']][:1]
    assert (migration['status'], migration['migration_type'],
            migration['source_compute'], migration['dest_compute']) == (
        'completed', 'live-migration', source, target)


def _wait_until_on(openstack, server_id, host, timeout=180):
    deadline = time.monotonic() + timeout
    while True:
        shown = openstack.json('server', 'show', server_id)
        if (shown['status'], shown['OS-EXT-SRV-ATTR:host']) == ('ACTIVE', host):
            return shown
        assert time.monotonic() < deadline, 'server %s is %s on %s' % (
            server_id, shown['status'], shown['OS-EXT-SRV-ATTR:host'])
        time.sleep(0.5)


def test_live_migration_keeps_the_guest_running(mcloud, server):
    openstack, cloud = mcloud.openstack, mcloud
    source, target = _hosts(openstack, server['id'])
    assert _usage(cloud) == {source: 1, target: 0}
    assert _domain_disks(cloud, source, server['id']) == (True, server['rbd_disks'])
    with ConsoleWatch(_console_paths(cloud, server['id'])) as watch:
        before = watch.wait_for(10, timeout=180)
        _migrate(openstack, server['id'], target)
        during = _compute(cloud, 'GET', '/servers/' + server['id'], '2.80')['server']
        assert (during['status'], during['OS-EXT-STS:task_state']) == (
            'MIGRATING', 'migrating')
        _wait_until_on(openstack, server['id'], target)
        _assert_moved(cloud, server, watch, before, source, target)
    console = openstack.run('console', 'log', 'show', server['id']).stdout
    assert _TICK.search(console), console[-2000:]
    events = openstack.json('server', 'event', 'list', server['id'])
    assert 'live-migration' in [e['Action'] for e in events]
    _assert_key_nowhere(cloud)


def test_a_migration_to_its_own_host_is_refused_and_changes_nothing(mcloud, server):
    openstack = mcloud.openstack
    host, other = _hosts(openstack, server['id'])
    count = len(_compute(mcloud, 'GET', '/os-migrations', '2.80')['migrations'])
    usage = _usage(mcloud)
    refused = _migrate(openstack, server['id'], host, check=False)
    assert refused.returncode != 0 and 'current host' in refused.stderr, refused.stderr
    shown = openstack.json('server', 'show', server['id'])
    assert (shown['status'], shown['OS-EXT-SRV-ATTR:host']) == ('ACTIVE', host)
    assert len(_compute(mcloud, 'GET', '/os-migrations', '2.80')['migrations']) == count
    assert _usage(mcloud) == usage
    assert _compute(mcloud, 'GET', '/servers/%s/migrations' % server['id'],
                    '2.23') == {'migrations': []}


def test_an_engine_killed_during_the_move_converges_with_one_running_copy(
        mcloud, server):
    """SIGKILL of the engine running the flow while libvirt moves the guest: the
    next engine takes the flow over (claim_ttl) and runs the move again, which
    finds the guest gone from its source (or waits for libvirt's migration)."""
    openstack, cloud = mcloud.openstack, mcloud
    source, target = _hosts(openstack, server['id'])
    cloud.retire(distributed.MAIN_ENGINE)  # the doomed engine takes the flow
    cloud.start('engine', DOOMED, '[engine]\nclaim_ttl = 3\n')
    since = cloud.log_path(source).stat().st_size
    try:
        with ConsoleWatch(_console_paths(cloud, server['id'])) as watch:
            before = watch.wait_for(max(watch.seen, default=0) + 5, timeout=60)
            _migrate(openstack, server['id'], target)
            cloud.wait_for_log(source, 'Running step migrate-domain for instance %s'
                               % server['id'], since)
            cloud.stop(DOOMED, signal.SIGKILL)
            cloud.ensure_engine()
            _wait_until_on(openstack, server['id'], target)
            _assert_moved(cloud, server, watch, before, source, target)
    finally:
        if DOOMED in cloud.processes:
            cloud.stop(DOOMED, signal.SIGKILL)
        cloud.ensure_engine()


def _wait_volume(openstack, volume_id, status, timeout=120):
    deadline = time.monotonic() + timeout
    while openstack.json('volume', 'show', volume_id)['status'] != status:
        assert time.monotonic() < deadline, 'volume %s never %s' % (volume_id, status)
        time.sleep(1)


def _compute(cloud, method, path, version, status=200):
    response = cloud.http.compute(method, path,
                                  headers={'OpenStack-API-Version': 'compute ' + version})
    assert response.status_code == status, response.text
    return response.json()
