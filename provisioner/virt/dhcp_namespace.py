"""A network's DHCP namespace on the host serving its DHCP, as Neutron's DHCP agent
makes it: a network namespace, a veth from it into the network's bridge carrying
the DHCP port's address on every served subnet (and 169.254.169.254/32, where the
metadata proxy listens), and a dnsmasq inside (provisioner.virt.dnsmasq) with its
files under ``state_path/dhcp/<network id>/``.

The guest bridge itself carries no address on the host, so two networks may share a
CIDR and no guest network is ever in the host's routing table.

Every call converges on what it is given and is idempotent: a worker killed
mid-way leaves a state the next call repairs (a namespace without its veth, a
dnsmasq in a namespace since made again, a stale command line). ``network.json``
keeps what the last converge was given, so a worker's start can re-ensure its
networks without any database (``restore``).
"""

import fcntl
import hashlib
import json
import logging
import os
import shutil
import signal
import time

from provisioner import conf as provisioner_conf
from provisioner.virt import commands
from provisioner.virt import dnsmasq

LOG = logging.getLogger(__name__)

NETNS_DIR = '/run/netns'
STOP_WAIT = 5.0  # seconds a dnsmasq gets to end on SIGTERM before SIGKILL


def _conf():
    return provisioner_conf.CONF


def host_suffix(prefix):
    """8 hex digits naming this deployment's host (its resource prefix and
    ``[DEFAULT] host``): namespace hosts of one machine share /run/netns."""
    seed = '%s/%s' % (prefix, _conf().host)
    return hashlib.sha256(seed.encode()).hexdigest()[:8]


def namespace_name(prefix, network_id):
    """qdhcp-<network id> (Neutron's name) with this host's suffix."""
    return 'qdhcp-%s-%s' % (network_id, host_suffix(prefix))


def network_ids(prefix):
    """The network ids of this host's DHCP namespaces and state directories: what a
    converge or a crash may have left."""
    found = set()
    tail = '-%s' % host_suffix(prefix)
    try:
        names = os.listdir(NETNS_DIR)
    except OSError:
        names = []
    for name in names:
        if name.startswith('qdhcp-') and name.endswith(tail):
            found.add(name[len('qdhcp-'):-len(tail)])
    try:
        root = state_root(prefix)
        found.update(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    except OSError:
        pass
    return sorted(found)


def veth_names(netns):
    """(bridge side, namespace side) of the veth: <= 15 characters each."""
    digest = hashlib.sha256(netns.encode()).hexdigest()[:11]
    return 'dh-%s' % digest, 'ns-%s' % digest


def state_root(prefix):
    return os.path.join(_conf().state_path, 'dhcp', prefix)


def files(prefix, network_id):
    directory = os.path.join(state_root(prefix), network_id)
    return dict({name: os.path.join(directory, name)
                 for name in ('pid', 'hosts', 'opts', 'leases', 'log', 'lock')},
                dir=directory, network=os.path.join(directory, 'network.json'))


def _exists(netns):
    return os.path.exists(os.path.join(NETNS_DIR, netns)) and commands.run(
        ['ip', 'netns', 'exec', netns, 'true'], check=False).returncode == 0


def _ensure_namespace(netns):
    if _exists(netns):
        return
    # A name left without its namespace (a host stopped under it): made again.
    commands.run(['ip', 'netns', 'delete', netns], check=False)
    commands.run(['ip', 'netns', 'add', netns])
    commands.run(commands.ip(netns) + ['link', 'set', 'lo', 'up'])


def _ensure_veth(netns, bridge, mtu):
    outer, inner = veth_names(netns)
    if commands.link(outer) is not None and commands.link(inner, netns) is None:
        commands.run(['ip', 'link', 'delete', 'dev', outer])  # its peer went
    if commands.link(outer) is None:
        commands.run(['ip', 'link', 'delete', 'dev', inner], check=False)
        commands.run(['ip', 'link', 'add', outer, 'mtu', str(mtu), 'type', 'veth',
                      'peer', 'name', inner, 'mtu', str(mtu), 'netns', netns])
    commands.run(['ip', 'link', 'set', 'dev', outer, 'mtu', str(mtu), 'master', bridge,
                  'up'])
    commands.run(commands.ip(netns) + ['link', 'set', 'dev', inner, 'mtu', str(mtu),
                                       'up'])
    return inner


def _ensure_addresses(netns, interface, wanted):
    result = commands.run(commands.ip(netns) + ['-j', 'addr', 'show', 'dev', interface])
    held = {'%s/%s' % (a['local'], a['prefixlen'])
            for link in json.loads(result.stdout or '[]')
            for a in link.get('addr_info', ()) if a.get('family') == 'inet'}
    for address in sorted(held - set(wanted)):
        commands.run(commands.ip(netns) + ['addr', 'del', address, 'dev', interface])
    for address in wanted:
        if address not in held:
            commands.run(commands.ip(netns) + ['addr', 'add', address, 'dev',
                                               interface])


def _write(path, lines):
    """Replace ``path`` with ``lines`` at once (dnsmasq may read it meanwhile);
    True when its content changed."""
    text = ''.join(line + '\n' for line in lines)
    try:
        with open(path) as current:
            if current.read() == text:
                return False
    except FileNotFoundError:
        pass
    with open(path + '.new', 'w') as new:
        new.write(text)
    os.replace(path + '.new', path)
    return True


def _pid(paths):
    try:
        with open(paths['pid']) as pid_file:
            return int(pid_file.read().strip())
    except (OSError, ValueError):
        return None


def _cmdline(pid):
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as cmdline:
            return [a.decode() for a in cmdline.read().split(b'\0') if a]
    except OSError:
        return None


def _in_namespace(pid, netns):
    try:
        return os.stat('/proc/%d/ns/net' % pid).st_ino == \
            os.stat(os.path.join(NETNS_DIR, netns)).st_ino
    except OSError:
        return False


def running(paths):
    """The pid of the network's dnsmasq (the one its pid file names), or None."""
    pid = _pid(paths)
    cmdline = _cmdline(pid) if pid else None
    if cmdline and cmdline[0].endswith('dnsmasq') and \
            '--pid-file=%s' % paths['pid'] in cmdline:
        return pid
    return None


def _stop(paths):
    pid = running(paths)
    if pid is None:
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_WAIT
    while running(paths) == pid and time.monotonic() < deadline:
        time.sleep(0.05)
    if running(paths) == pid:
        os.kill(pid, signal.SIGKILL)


def _ensure_dnsmasq(paths, network_id, netns, argv):
    pid = running(paths)
    if pid is not None and (_cmdline(pid) != argv or not _in_namespace(pid, netns)):
        LOG.info('Restarting the dnsmasq of network %s: its subnets or namespace '
                 'changed', network_id)
        _stop(paths)
        pid = None
    if pid is None:
        commands.run(['ip', 'netns', 'exec', netns] + argv)
        LOG.info('Started dnsmasq for network %s in namespace %s', network_id, netns)
    else:
        # Re-read its hosts and options files, changed or not: a converge re-run
        # after a kill -9 finds the files already written by the killed run, which
        # may have died before it told dnsmasq (a guest would get no lease).
        os.kill(pid, signal.SIGHUP)


class _Locked:
    """The network's state directory, made and locked (one converge at a time)."""

    def __init__(self, prefix, network_id):
        self.paths = files(prefix, network_id)

    def __enter__(self):
        os.makedirs(self.paths['dir'], mode=0o755, exist_ok=True)
        self._lock = open(self.paths['lock'], 'a')
        fcntl.flock(self._lock, fcntl.LOCK_EX)
        return self.paths

    def __exit__(self, *exc):
        self._lock.close()


def _stored(paths):
    try:
        with open(paths['network']) as stored:
            return json.load(stored)
    except (OSError, ValueError):
        return None


def _converge(paths, prefix, net, bridge, mtu, entries, live=True):
    """Write the network's files; ``live``: and make its namespace, veth and
    dnsmasq (not on libvirt's test driver, which makes no bridge)."""
    _write(paths['hosts'], dnsmasq.host_lines(entries))
    _write(paths['opts'], dnsmasq.options(net, mtu))
    netns = namespace_name(prefix, net['id'])
    if live:
        _ensure_namespace(netns)
        interface = _ensure_veth(netns, bridge, mtu or 1500)
        _ensure_addresses(netns, interface, dnsmasq.interface_addresses(net))
        _ensure_dnsmasq(paths, net['id'], netns, dnsmasq.argv(interface, paths, net))
    return netns


def ensure(prefix, net, bridge, mtu=None, entries=None, live=True):
    """The network's DHCP namespace and dnsmasq, serving ``entries`` ({'mac', 'ip',
    'hostname'}; None: those it holds); its namespace name."""
    with _Locked(prefix, net['id']) as paths:
        if entries is None:
            entries = [dict(e, hostname=e['name']) for e in held(prefix, net['id'])]
        _write(paths['network'], [json.dumps({'net': net, 'bridge': bridge,
                                              'mtu': mtu}, default=str)])
        return _converge(paths, prefix, net, bridge, mtu, entries, live)


def held(prefix, network_id):
    """[{'mac', 'ip', 'name'}] the network's hosts file pins."""
    try:
        with open(files(prefix, network_id)['hosts']) as hosts:
            return dnsmasq.parse_host_lines(hosts.read())
    except OSError:
        return []


def update_entries(prefix, network_id, change, live=True):
    """Apply ``change(entries) -> entries`` to the pinned entries and tell the
    running dnsmasq; a network not served here is left alone (False)."""
    with _Locked(prefix, network_id) as paths:
        stored = _stored(paths)
        if stored is None:
            return False
        entries = change([dict(e, hostname=e['name'])
                          for e in held(prefix, network_id)])
        _converge(paths, prefix, stored['net'], stored['bridge'], stored['mtu'],
                  entries, live)
        return True


def restore(prefix, live=True):
    """Converge every network this host served, as last given (a worker's start:
    after a reboot the namespaces are gone; a dnsmasq killed is started again)."""
    for network_id in network_ids(prefix):
        stored = _stored(files(prefix, network_id))
        if stored is None:
            continue
        try:
            update_entries(prefix, network_id, lambda entries: entries, live)
        except Exception:
            LOG.exception('Could not restore the DHCP namespace of network %s',
                          network_id)


def delete(prefix, network_id, before_remove=None, live=True):
    """Stop the dnsmasq, remove the veth, the namespace and the files; absent parts
    are fine. ``before_remove(netns)`` runs while the namespace still exists."""
    netns = namespace_name(prefix, network_id)
    paths = files(prefix, network_id)
    if not live:
        shutil.rmtree(paths['dir'], ignore_errors=True)
        return
    if before_remove is not None and _exists(netns):
        before_remove(netns)
    _stop(paths)
    outer, _inner = veth_names(netns)
    if commands.link(outer) is not None:
        commands.run(['ip', 'link', 'delete', 'dev', outer])
    if os.path.exists(os.path.join(NETNS_DIR, netns)):
        commands.run(['ip', 'netns', 'delete', netns])
    shutil.rmtree(paths['dir'], ignore_errors=True)
