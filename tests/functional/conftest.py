"""Functional fixtures: a private all-in-one deployment on the real libvirtd.

Each test session gets its own state_path (under /var/lib, which libvirt-qemu can
traverse), its own libvirt resource prefix, config file, admin, flavor, guest image and
isolated network; tests drive the real CLI in subprocesses, as a user would. Everything
is removed at the end, and whatever a test left is reported as a failure.
"""

import fcntl
import json
import os
import pathlib
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from tests import hosts as nshosts
from tests import netutil

REPO = pathlib.Path(__file__).resolve().parents[2]
GUEST_IMAGE_DIR = pathlib.Path(os.environ.get('PROVISIONER_TEST_GUEST_IMAGE',
                                              REPO / 'build' / 'guest-image'))
CONSOLE_TIMEOUT = 90


def _libvirt_connection():
    try:
        import libvirt
    except ImportError:
        pytest.skip('libvirt-python is not installed')
    try:
        return libvirt.open('qemu:///system')
    except libvirt.libvirtError as exc:
        pytest.skip('libvirtd is not reachable at qemu:///system: %s' % exc)


def domains_mentioning(conn, text):
    """provisioner's domains (instance-*) whose XML mentions ``text`` (a state_path).

    Another test worker may undefine one of its own domains between the listing and
    the read of its XML: such a domain is skipped, it was not this test's.
    """
    import libvirt
    found = []
    for dom in conn.listAllDomains():
        if not dom.name().startswith('instance-'):
            continue
        try:
            if text in dom.XMLDesc(0):
                found.append(dom)
        except libvirt.libvirtError as exc:
            if exc.get_error_code() != libvirt.VIR_ERR_NO_DOMAIN:
                raise
    return found


class Cloud:
    """One private provisioner deployment, driven through its CLI."""

    def __init__(self, root, cidr):
        self.root = root
        self.prefix = 'pt%s' % secrets.token_hex(3)
        self.state_path = root / 'state'
        self.config_file = root / 'provisioner.conf'
        self.config_file.write_text(
            '[DEFAULT]\nstate_path = %s\nhost = functional-host\n'
            '[libvirt]\nconnection_uri = qemu:///system\nresource_prefix = %s\n'
            '[token]\ncache_dir = %s\n'
            % (self.state_path, self.prefix, root / 'token-cache'))
        self.cidr = cidr
        self.env = dict(os.environ, OS_USERNAME='admin', OS_PASSWORD='func-secret',
                        OS_PROJECT_NAME='admin', PYTHONWARNINGS='ignore')
        for key in list(self.env):
            if key.startswith('OS_FAULT_INJECTION__'):
                del self.env[key]

    def _command(self, args):
        return [sys.executable, '-m', 'provisioner.cmd.cli',
                '--config-file', str(self.config_file)] + [str(a) for a in args]

    def environment(self, args, env=None):
        """The environment the CLI runs ``args`` in: the cloud's, and ``env``."""
        return dict(self.env, **(env or {}))

    def popen(self, *args, env=None):
        """The CLI running in the background, its output readable line by line."""
        return subprocess.Popen(self._command(args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                env=self.environment(args, env), cwd=REPO)

    def cli(self, *args, env=None, check=True, timeout=300):
        result = subprocess.run(self._command(args), capture_output=True, text=True,
                                timeout=timeout, env=self.environment(args, env),
                                cwd=REPO)
        if check and result.returncode != 0:
            raise AssertionError('%s failed (%d):\n%s\n%s' % (' '.join(map(str, args)),
                                 result.returncode, result.stdout, result.stderr))
        return result

    def show(self, name):
        return json.loads(self.cli('show', name, '--format', 'json').stdout)

    def boot(self, name, *extra, env=None, check=True):
        return self.cli('boot', name, '--flavor', 'tiny', '--image', 'guest',
                        '--network', 'net1', *extra, env=env, check=check)

    def wait_for_console(self, instance, marker='PROVISIONER-GUEST: ready'):
        path = pathlib.Path(instance['console_log'])
        deadline = time.monotonic() + CONSOLE_TIMEOUT
        while time.monotonic() < deadline:
            text = path.read_text(errors='replace') if path.exists() else ''
            if marker in text:
                return dict(line.split(': ', 1)[1].split('=', 1)
                            for line in text.splitlines()
                            if line.startswith('PROVISIONER-GUEST: ') and '=' in line)
            time.sleep(0.2)
        raise AssertionError('guest never printed %r; console:\n%s'
                             % (marker, path.read_text(errors='replace')
                                if path.exists() else '(no console log)'))

    def hypervisor(self, host=None):
        """A libvirt connection to ``host``'s hypervisor (all-in-one: this machine's;
        the caller closes it)."""
        return _libvirt_connection()

    def hypervisors(self):
        """Connections to every hypervisor this cloud may have used."""
        return [self.hypervisor()]

    def leftovers(self, instance):
        """Everything of this instance that still exists, in libvirt (on every
        hypervisor: a rescheduled boot used more than one) and in the DB."""
        found = []
        for conn in self.hypervisors():
            try:
                found += self._libvirt_leftovers(conn, instance)
            finally:
                conn.close()
        found += self.dhcp_leftovers(instance)
        for table, what in (('ports', 'ip'), ('volumes', 'id'),
                            ('allocations', 'host_id')):
            found += ['%s row %s' % (table, value) for (value,) in self.query(
                'SELECT %s FROM %s WHERE instance_id = ?' % (what, table),
                (instance['id'],))]
        return found

    def _libvirt_leftovers(self, conn, instance):
        found = []
        names = [d.name() for d in conn.listAllDomains()]
        if 'instance-%s' % instance['id'] in names:
            found.append('domain instance-%s' % instance['id'])
        for pool in conn.listAllStoragePools():
            if pool.name().startswith(self.prefix) and pool.isActive():
                pool.refresh(0)
                found += ['volume %s in %s' % (v, pool.name())
                          for v in pool.listVolumes() if instance['id'] in v
                          or any(vol['id'] in v for vol in instance['volumes'])]
        return found

    def dhcp_leftovers(self, instance):
        """The instance's entries in the hosts files of the DHCP namespaces' dnsmasqs
        (under the state_path of every host of this cloud)."""
        found = []
        for hosts in self.root.glob('**/dhcp/*/*/hosts'):
            text = hosts.read_text()
            found += ['DHCP entry %s' % addr['mac'] for addr in instance['addresses']
                      if addr['mac'] in text]
            if ',%s\n' % instance['name'].lower() in text:
                found.append('DHCP entry named %s' % instance['name'])
        return found

    @property
    def import_dir(self):
        """The default [image] image_directories: the only place image files may be."""
        return self.state_path / 'import'

    def seed(self, guest_image):
        """The admin, flavor 'tiny', image 'guest' and network 'net1' every test uses."""
        self.bootstrap()
        self.seed_catalog(guest_image)

    def bootstrap(self):
        self.cli('bootstrap', '--username', 'admin', '--password', 'func-secret',
                 '--project', 'admin')

    def seed_catalog(self, guest_image):
        """Flavor 'tiny', image 'guest' and network 'net1'.

        The guest image is copied into the import directory first, as an operator
        would: image files outside it are refused (all-in-one, where an image is
        registered by its path; through the REST API its files are uploaded).
        """
        self.cli('flavor', 'create', 'tiny', '--vcpus', 1, '--ram', 128, '--disk', 1)
        self.import_dir.mkdir(mode=0o750, parents=True, exist_ok=True)
        kernel, ramdisk = (shutil.copy(path, self.import_dir) for path in guest_image)
        self.cli('image', 'create', 'guest', '--kernel', kernel, '--ramdisk', ramdisk)
        self.cli('network', 'create', 'net1', '--cidr', self.cidr)

    def query(self, sql, params=()):
        """Rows of a read-only query on this cloud's database (qmark parameters)."""
        with sqlite3.connect(self.state_path / 'provisioner.sqlite') as db:
            return db.execute(sql, params).fetchall()

    def destroy_everything(self):
        """Safety net: remove every libvirt object carrying this cloud's prefix, and
        every domain whose files lie under its root (its hosts' state_paths), on
        every hypervisor it may have used."""
        for conn in self.hypervisors():
            try:
                _destroy_on(conn, self.root, self.prefix)
            finally:
                conn.close()
        stop_dhcp_namespaces(self.root)


def dnsmasqs_under(root):
    """{pid: its network namespace's inode} of the dnsmasqs whose pid files lie
    under ``root`` (the DHCP servers of a deployment's hosts)."""
    found = {}
    for pid in (int(p) for p in os.listdir('/proc') if p.isdigit()):
        try:
            with open('/proc/%d/cmdline' % pid, 'rb') as cmdline:
                argv = cmdline.read().split(b'\0')
            netns = os.stat('/proc/%d/ns/net' % pid).st_ino
        except OSError:
            continue
        if argv[0].endswith(b'dnsmasq') and any(
                a.startswith(b'--pid-file=%s/' % str(root).encode()) for a in argv):
            found[pid] = netns
    return found


def stop_dhcp_namespaces(root):
    """Kill the dnsmasqs whose pid files lie under ``root`` and delete the DHCP
    namespaces they ran in (what a deployment's network delete would have done)."""
    namespaces = {}
    for name in os.listdir('/run/netns') if os.path.isdir('/run/netns') else ():
        try:
            namespaces[os.stat(os.path.join('/run/netns', name)).st_ino] = name
        except OSError:
            pass
    for pid, netns in dnsmasqs_under(root).items():
        os.kill(pid, signal.SIGKILL)
        if namespaces.get(netns, '').startswith('qdhcp-'):
            subprocess.run(['ip', 'netns', 'delete', namespaces[netns]], check=False)


def _destroy_on(conn, root, prefix):
    for dom in domains_mentioning(conn, '%s%s' % (root, os.sep)):
        if dom.isActive():
            dom.destroy()
        dom.undefine()
    for net in conn.listAllNetworks():
        if net.name().startswith(prefix):
            if net.isActive():
                net.destroy()
            net.undefine()
    for pool in conn.listAllStoragePools():
        if pool.name().startswith(prefix):
            if pool.isActive():
                pool.destroy()
            pool.undefine()
    for port_filter in conn.listAllNWFilters():
        if port_filter.name().startswith(prefix + '-port-'):
            port_filter.undefine()


def build_guest_image():
    """Kernel, initramfs and BIOS disk of tools/build-guest-image, built once.

    Parallel test workers (pytest-xdist) share the directory: the first builds it under
    a lock while the others wait, then all reuse it.
    """
    names = ('vmlinuz', 'initramfs.img', 'disk.qcow2')
    GUEST_IMAGE_DIR.parent.mkdir(parents=True, exist_ok=True)
    lock_path = GUEST_IMAGE_DIR.parent / ('.%s.lock' % GUEST_IMAGE_DIR.name)
    with open(lock_path, 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not all((GUEST_IMAGE_DIR / name).exists() for name in names):
            subprocess.run([sys.executable, str(REPO / 'tools' / 'build-guest-image'),
                            '--output', str(GUEST_IMAGE_DIR)], check=True)
    return tuple(GUEST_IMAGE_DIR / name for name in names)


@pytest.fixture(scope='session')
def guest_image():
    """Kernel + initramfs from tools/build-guest-image (built once, then reused)."""
    return build_guest_image()[:2]


@pytest.fixture(scope='session')
def guest_disk():
    """The same guest as a BIOS-bootable qcow2 disk (tools/build-guest-image)."""
    return build_guest_image()[2]


# Suites whose modules share one worker, as one group.
GROUPED_SUITES = ('distributed', 'hosts')


def pytest_collection_modifyitems(items):
    """Under ``pytest -n N --dist loadgroup`` a module's tests share a worker (and its
    module fixtures); the distributed suite shares one: its tests share a deployment,
    and one of them restarts the RabbitMQ broker the others talk to. The namespace
    hosts' suite shares one: its modules share the session's hosts."""
    for item in items:
        module = item.path.relative_to(REPO)
        suite = module.parts[2] if len(module.parts) > 3 else None
        group = suite if suite in GROUPED_SUITES else module.as_posix()
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope='session')
def namespace_hosts():
    """Two hypervisor hosts of tools/hosts (tests/hosts.py), RabbitMQ relayed to them,
    their libvirtd also on qemu+tcp:// on the underlay, shared by the session's tests
    (each pytest-xdist worker has its own). A test that kills a host starts it again;
    one that partitions a host heals it."""
    try:
        nshosts.check_available()
    except nshosts.Unavailable as exc:
        pytest.skip(str(exc))
    with nshosts.namespace_hosts(2, tcp=True) as hosts:
        yield hosts


@pytest.fixture(scope='session')
def cloud(guest_image):
    _libvirt_connection().close()
    root = pathlib.Path('/var/lib') / ('provisioner-test-%s' % secrets.token_hex(4))
    root.mkdir(mode=0o755)
    cloud = Cloud(root, netutil.free_cidr())
    try:
        cloud.seed(guest_image)
        yield cloud
        for inst in json.loads(cloud.cli('list', '--format', 'json').stdout):
            cloud.cli('delete', inst['id'], check=False)
        cloud.cli('network', 'delete', 'net1', check=False)
    finally:
        cloud.destroy_everything()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def booted(cloud):
    """Names of instances a test boots; each is deleted (and checked clean) after it."""
    names = []
    yield names
    for name in names:
        result = cloud.cli('show', name, '--format', 'json', check=False)
        if result.returncode == 0:
            instance = json.loads(result.stdout)
            cloud.cli('delete', instance['id'])
            assert cloud.leftovers(instance) == []
