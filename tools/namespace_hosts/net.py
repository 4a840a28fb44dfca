"""Network namespaces, veth legs and the underlay bridge, through iproute2."""

import contextlib
import errno
import ipaddress
import os
import signal
import socket
import subprocess
import time

from namespace_hosts import names


class CommandError(Exception):
    """A command this tool ran failed: its words and what it printed."""


def run(argv, check=True, timeout=60):
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise CommandError('%s is not installed (run tools/setup-host.sh)' % argv[0])
    except subprocess.TimeoutExpired:
        raise CommandError('%s did not finish within %d s' % (' '.join(argv), timeout))
    if check and result.returncode != 0:
        raise CommandError('%s failed (%d): %s' % (' '.join(argv), result.returncode,
                                                   (result.stderr or result.stdout).strip()))
    return result


def ip(*args, netns=None, check=True):
    return run(['ip'] + (['-n', netns] if netns else []) + list(args), check=check)


def netns_list():
    """Names of the network namespaces `ip netns` knows."""
    return [line.split()[0] for line in ip('netns', 'list').stdout.splitlines()
            if line.strip()]


def netns_add(name):
    ip('netns', 'add', name)
    ip('link', 'set', 'lo', 'up', netns=name)


def netns_delete(name):
    if name in netns_list():
        ip('netns', 'delete', name)


def netns_pids(name):
    """Processes whose network namespace is ``name`` (none once it is deleted)."""
    result = ip('netns', 'pids', name, check=False)
    return [int(word) for word in result.stdout.split()] if result.returncode == 0 else []


def alive(pid):
    """True while ``pid`` runs (a zombie has ended)."""
    try:
        with open('/proc/%d/stat' % pid) as stat:
            return stat.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def kill_and_wait(pids, timeout=30):
    """SIGKILL every pid; wait until none runs. Returns those still running."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + timeout
    left = [pid for pid in pids if alive(pid)]
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = [pid for pid in left if alive(pid)]
    return left


def link_exists(device, netns=None):
    return ip('link', 'show', 'dev', device, netns=netns, check=False).returncode == 0


def delete_link(device, netns=None):
    """Delete a link; False when there was none (or it vanished meanwhile)."""
    if not link_exists(device, netns):
        return False
    ip('link', 'delete', 'dev', device, netns=netns, check=False)
    wait_link_gone(device, netns)
    return True


def wait_link_gone(device, netns=None, timeout=30):
    deadline = time.monotonic() + timeout
    while link_exists(device, netns):
        if time.monotonic() > deadline:
            raise CommandError('link %s%s is still there %d s after its deletion'
                               % (device, ' in %s' % netns if netns else '', timeout))
        time.sleep(0.05)


def link_state(device, netns=None):
    """'up', 'down' (administratively) or None when the link does not exist."""
    result = ip('-o', 'link', 'show', 'dev', device, netns=netns, check=False)
    if result.returncode != 0:
        return None
    flags = result.stdout.split('<', 1)[1].split('>', 1)[0].split(',')
    return 'up' if 'UP' in flags else 'down'


def set_link(device, state, netns=None):
    ip('link', 'set', 'dev', device, state, netns=netns)


def make_fabric(run_names, network, mtu):
    """The fabric namespace, its bridge, and the root namespace's leg with .1/24."""
    fabric = run_names.fabric
    netns_add(fabric)
    ip('link', 'add', 'name', names.BRIDGE, 'mtu', str(mtu), 'type', 'bridge', netns=fabric)
    set_link(names.BRIDGE, 'up', netns=fabric)
    root_leg = run_names.management_device
    ip('link', 'add', 'name', root_leg, 'mtu', str(mtu), 'type', 'veth',
       'peer', 'name', names.MANAGEMENT_LEG, 'mtu', str(mtu), 'netns', fabric)
    _disable_ipv6(root_leg)  # no link-local address or router solicitation in root
    ip('address', 'add', '%s/%d' % (names.management_address(network), network.prefixlen),
       'dev', root_leg)
    set_link(root_leg, 'up')
    ip('link', 'set', 'dev', names.MANAGEMENT_LEG, 'master', names.BRIDGE, 'up',
       netns=fabric)


def plug(run_names, member, address, prefixlen, mtu):
    """A new namespace TAG-member with its leg on the underlay at ``address``."""
    netns = run_names.netns(member)
    netns_add(netns)
    ip('link', 'add', 'name', member, 'mtu', str(mtu), 'type', 'veth', 'peer', 'name',
       names.UNDERLAY_DEVICE, 'mtu', str(mtu), 'netns', netns, netns=run_names.fabric)
    ip('link', 'set', 'dev', member, 'master', names.BRIDGE, 'up', netns=run_names.fabric)
    ip('address', 'add', '%s/%d' % (address, prefixlen), 'dev', names.UNDERLAY_DEVICE,
       netns=netns)
    set_link(names.UNDERLAY_DEVICE, 'up', netns=netns)


def _disable_ipv6(device):
    with contextlib.suppress(FileNotFoundError):
        with open('/proc/sys/net/ipv6/conf/%s/disable_ipv6' % device, 'w') as knob:
            knob.write('1')


def taken_networks():
    """Every IPv4 network the root namespace routes or has an address in."""
    text = (ip('-4', 'route', 'show', 'table', 'all').stdout + ' '
            + ip('-4', '-o', 'address', 'show').stdout)
    taken = []
    for word in text.split():
        try:
            net = ipaddress.ip_network(word, strict=False)
        except ValueError:
            continue
        if net.prefixlen >= 8 and not net.is_loopback:
            taken.append(net)
    return taken


@contextlib.contextmanager
def machine_lock(timeout=120):
    """One `up` at a time picks an underlay and routes it: an abstract unix socket,
    which only one process can bind and which leaves no file behind."""
    lock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    deadline = time.monotonic() + timeout
    while True:
        try:
            lock.bind('\0provisioner-hosts-underlay-lock')
            break
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE or time.monotonic() > deadline:
                lock.close()
                raise CommandError('another tools/hosts up held the underlay lock for '
                                   'more than %d s' % timeout)
            time.sleep(0.05)
    try:
        yield
    finally:
        lock.close()
