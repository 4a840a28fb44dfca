"""A one-node Ceph cluster for tests (tools/ceph-cluster), and what its clients need.

    with ceph_cluster(tmp_dir) as cluster:                    # on 127.0.0.1
    with ceph_cluster(tmp_dir, netns='ns1', address='10.9.0.2') as cluster:
        cluster.client_conf, cluster.client, cluster.keyring, cluster.pools
        cluster.rbd('ls', 'images')                           # the restricted client
        cluster.restart(kill=True)                            # SIGKILL, start again

Everything the tool made is gone when the block ends, whatever happened inside. The
client key is a secret: ``cluster.key`` reads it from the keyring when asked, and no
repr, log line or command line carries it.
"""

import contextlib
import ipaddress
import json
import pathlib
import re
import secrets
import shutil
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[1]
TOOL = REPO / 'tools' / 'ceph-cluster'
BINARIES = ('ceph-mon', 'ceph-mgr', 'ceph-osd', 'ceph', 'rbd', 'monmaptool')
COMMAND_TIMEOUT = 120


def missing_binaries():
    """The Ceph programs this machine lacks (tools/setup-host.sh installs them)."""
    return [name for name in BINARIES if not shutil.which(name)]


def import_bindings():
    """(rados, rbd): Debian's bindings, linked into this virtualenv."""
    try:
        import rados
        import rbd
    except ImportError as exc:
        raise AssertionError(
            'Ceph is installed but its Python bindings are not importable here (%s): '
            'run %s tools/link-ceph-bindings (tox does it for its environments)'
            % (exc, sys.executable))
    return rados, rbd


def _run(argv, timeout=COMMAND_TIMEOUT, check=True):
    result = subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                            timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError('%s failed (%d):\n%s\n%s' % (
            ' '.join(map(str, argv[:6])), result.returncode, result.stdout,
            result.stderr))
    return result


class CephCluster:
    """A running cluster made by tools/ceph-cluster in ``directory``."""

    def __init__(self, directory):
        self.directory = pathlib.Path(directory)
        state = json.loads((self.directory / 'cluster.json').read_text())
        self.fsid = state['fsid']
        self.netns = state['netns']
        self.address = state['address']
        self.mon_port = state['mon_ports']['v1']   # libvirt's <host port=...>: msgr1
        self.pools = state['pools']
        self.client = state['client']             # 'provisioner': the id, no "client."
        self.client_conf = state['client_conf']
        self.keyring = state['client_keyring']
        self.admin_conf = state['conf']

    def __repr__(self):
        return '<CephCluster %s at %s:%d>' % (self.directory, self.address, self.mon_port)

    @property
    def key(self):
        """The restricted client's cephx key (base64), read from its keyring."""
        text = pathlib.Path(self.keyring).read_text()
        return re.search(r'^\s*key\s*=\s*(\S+)\s*$', text, re.MULTILINE).group(1)

    def rbd(self, *args, check=True):
        """The rbd command as the restricted client."""
        return _run(['rbd', '--conf', self.client_conf, '--id', self.client] + list(args),
                    check=check)

    def rbd_json(self, *args):
        return json.loads(self.rbd(*args, '--format', 'json').stdout)

    def ceph_admin(self, *args, check=True):
        """The ceph command as the admin (inside the cluster's network namespace)."""
        argv = ['ceph', '--conf', self.admin_conf, '--connect-timeout', '30'] + list(args)
        if self.netns:
            argv = ['ip', 'netns', 'exec', self.netns] + argv
        return _run(argv, check=check)

    def tool(self, command, *args, check=True):
        return _run([sys.executable, TOOL, command, '--dir', self.directory] + list(args),
                    timeout=300, check=check)

    def restart(self, kill=False):
        """Stop the daemons (SIGTERM, or SIGKILL) and start them on the same data."""
        return self.tool('restart', *(['--kill'] if kill else []))

    def status(self):
        return self.tool('status', check=False)


@contextlib.contextmanager
def ceph_cluster(directory, netns=None, address=None, pools=('images', 'volumes', 'vms'),
                 client='provisioner'):
    """Bring a cluster up in ``directory`` (new or empty) and down at the end."""
    argv = [sys.executable, TOOL, 'up', '--dir', directory, '--pools', ','.join(pools),
            '--client', client]
    if netns:
        argv += ['--netns', netns, '--address', address]
    try:
        _run(argv, timeout=300)
        yield CephCluster(directory)
    finally:
        if (pathlib.Path(directory) / 'cluster.json').exists():
            _run([sys.executable, TOOL, 'down', '--dir', directory], timeout=300)


@contextlib.contextmanager
def throwaway_namespace(cidr, peer=None, reach=()):
    """A new network namespace joined by a veth pair on ``cidr`` (a free /24) to the
    namespace ``peer`` (by default this one), as a host on an underlay would be.
    ``reach``: the peer's addresses on its other links, routed to through the peer
    (which delivers them to itself: nothing is forwarded).

    Yields (new namespace, its address, the peer's address). Only the two ends talk:
    no forwarding, no NAT. Deleting the namespace deletes both ends of the pair.
    """
    network = ipaddress.ip_network(cidr)
    peer_address, address = (str(network.network_address + n) for n in (1, 2))
    name = 'ceph%s' % secrets.token_hex(3)
    here, there = name + 'i', name + 'o'           # interface names: 11 characters
    in_peer = ['-n', peer] if peer else []
    _run(['ip', 'netns', 'add', name])
    try:
        _run(['ip', 'link', 'add', there] + (['netns', peer] if peer else [])
             + ['type', 'veth', 'peer', 'name', here, 'netns', name])
        for namespace, interface, ip in ((in_peer, there, peer_address),
                                         (['-n', name], here, address)):
            _run(['ip'] + namespace + ['addr', 'add', '%s/%d' % (ip, network.prefixlen),
                                       'dev', interface])
            _run(['ip'] + namespace + ['link', 'set', interface, 'up'])
        _run(['ip', '-n', name, 'link', 'set', 'lo', 'up'])
        for target in reach:
            _run(['ip', '-n', name, 'route', 'add', target, 'via', peer_address])
        yield name, address, peer_address
    finally:
        _run(['ip', 'netns', 'del', name], check=False)
