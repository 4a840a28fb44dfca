"""What the commands do to a run: up, start, kill, partition, heal, attach, detach,
relay and down. Each returns the run's state (or what it removed) and saves it."""

import contextlib
import ipaddress
import os
import shutil
import sys
import time
import uuid

from namespace_hosts import hypervisor
from namespace_hosts import names
from namespace_hosts import net
from namespace_hosts import relay
from namespace_hosts import state

TOOL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'hosts')


def _exec_hint(netns):
    return '%s exec %s -- CMD...' % (TOOL, netns)


def leftovers(run):
    """What of the run exists on this machine now, named."""
    found = ['namespace %s' % ns for ns in net.netns_list() if run.owns(ns)]
    if net.link_exists(run.management_device):
        found.append('link %s' % run.management_device)
    found += ['relay pid %d' % pid for pid in relay.find(run.tag)]
    if state.is_ours(run):
        found.append('state directory %s' % run.state_dir)
    return found


def up(run, count, ports=(), tcp=False, mtu=1500, cidr=None):
    # Bad input is refused before anything is made.
    names.check_host_count(count)
    names.check_mtu(mtu)
    for port in ports:
        names.check_port(port)
    if cidr:
        names.parse_underlay(cidr, [])
    longest = hypervisor.socket_path(run.host_dir('h%d' % count))
    if len(longest) > names.MAX_SOCKET_PATH:
        raise names.UsageError('--state-dir %s is too long: the libvirt socket path %s '
                               'exceeds %d bytes' % (run.state_dir, longest,
                                                     names.MAX_SOCKET_PATH))
    present = leftovers(run)
    if present:
        raise names.UsageError('%s is already up or was left behind (%s): remove it with '
                               'tools/hosts down --name %s first'
                               % (run.tag, ', '.join(present), run.tag))
    state.make_dir(run)
    started = time.monotonic()
    try:
        with net.machine_lock():  # no other up picks this /24 before it is routed
            taken = net.taken_networks()
            network = (names.parse_underlay(cidr, taken) if cidr
                       else names.free_underlay(taken))
            net.make_fabric(run, network, mtu)
        doc = {'tag': run.tag, 'state_dir': run.state_dir, 'state_file': run.state_file,
               'tool': TOOL,
               'underlay': {'cidr': str(network), 'mtu': mtu, 'netns': run.fabric,
                            'bridge': names.BRIDGE, 'device': names.UNDERLAY_DEVICE},
               'management': {'address': names.management_address(network),
                              'device': run.management_device, 'relays': []},
               'hosts': [_host_record(run, network, index, tcp)
                         for index in range(1, count + 1)],
               'attached': []}
        state.save(run, doc)
        for host in doc['hosts']:
            _boot(run, doc, host)
        _wait_ready(run, doc, doc['hosts'])
        for port in ports:
            add_relay(run, doc, port)
        doc['up_seconds'] = round(time.monotonic() - started, 2)
        state.save(run, doc)
        return doc
    except BaseException:
        try:
            down(run)
        except Exception as exc:  # the first failure is the one to report
            print('tools/hosts: could not remove what up made: %s' % exc,
                  file=sys.stderr)
        raise


def _host_record(run, network, index, tcp):
    member = 'h%d' % index
    netns = run.netns(member)
    address = names.host_address(network, index)
    host_dir = run.host_dir(member)
    return {'name': netns, 'member': member, 'netns': netns, 'hostname': netns,
            'address': address, 'host_uuid': str(uuid.uuid4()), 'dir': host_dir,
            'libvirt_uri': hypervisor.libvirt_uri(host_dir),
            'libvirt_tcp_uri': 'qemu+tcp://%s/system' % address if tcp else None,
            'exec': _exec_hint(netns), 'running': True, 'partitioned': False,
            'init_pid': None}


def _boot(run, doc, host):
    network = ipaddress.ip_network(doc['underlay']['cidr'])
    net.plug(run, host['member'], host['address'], network.prefixlen,
             doc['underlay']['mtu'])
    peers = [(peer['name'], peer['address']) for peer in doc['hosts']]
    tcp = host['libvirt_tcp_uri'] is not None
    hypervisor.prepare(host['dir'], host['hostname'], host['address'], host['host_uuid'],
                       tcp, peers)
    hypervisor.start(host['netns'], host['dir'], host['hostname'], tcp, TOOL)


def _wait_ready(run, doc, hosts):
    hypervisor.wait_ready([(host['netns'], host['dir']) for host in hosts])
    hypervisor.keep_capabilities(hosts[0]['dir'])
    for host in hosts:
        host.update(init_pid=hypervisor.find_init(host['netns']), running=True,
                    partitioned=False)
    state.save(run, doc)


def member(doc, name, hosts_only=False):
    """The record of host 'h1' (or of an attached namespace) in the run's state."""
    for record in doc['hosts'] + ([] if hosts_only else doc['attached']):
        if record['member'] == name:
            return record
    known = [r['name'] for r in doc['hosts'] + ([] if hosts_only else doc['attached'])]
    raise names.UsageError('%s has no %s %s (it has: %s)' % (
        doc['tag'], 'host' if hosts_only else 'host or attached namespace', name,
        ', '.join(known) or 'nothing'))


def kill(run, name):
    """The whole host at once: its init (the kernel kills the rest of its pid
    namespace: libvirtd, QEMU, everything exec'd there), then its network namespace."""
    with state.locked(run):
        doc = state.require(run)
        host = member(doc, name, hosts_only=True)
        init = hypervisor.find_init(host['netns'])
        if init is None and host['netns'] not in net.netns_list():
            raise names.UsageError('%s is not running (start it: tools/hosts start %s)'
                                   % (host['name'], host['name']))
        left = net.kill_and_wait([init] if init else [])
        left += net.kill_and_wait(net.netns_pids(host['netns']))
        if left:
            raise net.CommandError('processes %s of %s survived SIGKILL' % (left,
                                                                            host['name']))
        net.netns_delete(host['netns'])
        # The kernel frees a namespace, and its legs, asynchronously: a start right
        # after must not find the fabric's leg still there.
        net.wait_link_gone(host['member'], netns=run.fabric)
        host.update(running=False, partitioned=False, init_pid=None)
        state.save(run, doc)
        return doc


def start(run, name):
    """A killed host again: the same name, address, host UUID and libvirt state."""
    with state.locked(run):
        doc = state.require(run)
        host = member(doc, name, hosts_only=True)
        if host['netns'] in net.netns_list():
            raise names.UsageError('%s is running (kill it first: tools/hosts kill %s)'
                                   % (host['name'], host['name']))
        hypervisor.clear_runtime(host['dir'])
        _boot(run, doc, host)
        _wait_ready(run, doc, [host])
        return doc


def set_partitioned(run, name, partitioned):
    """Cut (or restore) a member's underlay leg at the fabric: no traffic either way,
    as with an unplugged cable; everything inside keeps running."""
    with state.locked(run):
        doc = state.require(run)
        record = member(doc, name)
        if record['netns'] not in net.netns_list():
            raise names.UsageError('%s is not running' % record['name'])
        net.set_link(record['member'], 'down' if partitioned else 'up', netns=run.fabric)
        record['partitioned'] = partitioned
        state.save(run, doc)
        return doc


def attach(run, name):
    """One more plain network namespace on the underlay, TAG-NAME, with an address."""
    names.check_attached_name(name)
    with state.locked(run):
        doc = state.require(run)
        if any(record['member'] == name for record in doc['attached']):
            raise names.UsageError('%s is already attached' % run.netns(name))
        network = ipaddress.ip_network(doc['underlay']['cidr'])
        address = names.free_attached_address(
            network, [record['address'] for record in doc['attached']])
        netns = run.netns(name)
        doc['attached'].append({'name': netns, 'member': name, 'netns': netns,
                                'address': address, 'exec': _exec_hint(netns),
                                'partitioned': False})
        try:
            net.plug(run, name, address, network.prefixlen, doc['underlay']['mtu'])
        except BaseException:
            net.netns_delete(netns)
            raise
        state.save(run, doc)
        return doc


def detach(run, name):
    """Kill what runs in an attached namespace and delete it."""
    with state.locked(run):
        doc = state.require(run)
        record = next((r for r in doc['attached'] if r['member'] == name), None)
        if record is None:
            raise names.UsageError('%s has no attached namespace %s' % (run.tag, name))
        net.kill_and_wait(net.netns_pids(record['netns']))
        net.netns_delete(record['netns'])
        doc['attached'].remove(record)
        state.save(run, doc)
        return doc


def relay_port(run, port):
    with state.locked(run):
        doc = state.require(run)
        add_relay(run, doc, port)
        state.save(run, doc)
        return doc


def add_relay(run, doc, port):
    names.check_port(port)
    relays = doc['management']['relays']
    if any(entry['port'] == port for entry in relays):
        return  # already relayed
    address = doc['management']['address']
    pid = relay.start(run.tag, address, port, TOOL,
                      os.path.join(run.state_dir, 'relay-%d.log' % port))
    relays.append({'port': port, 'listen': '%s:%d' % (address, port),
                   'target': '%s:%d' % (relay.TARGET_HOST, port), 'pid': pid})


def unrelay(run, port):
    with state.locked(run):
        doc = state.require(run)
        relay.stop(run.tag, port)
        doc['management']['relays'] = [entry for entry in doc['management']['relays']
                                       if entry['port'] != port]
        state.save(run, doc)
        return doc


def down(run):
    """Remove everything of the run, found by its TAG; safe to repeat. Returns what
    was removed."""
    removed = ['relay pid %d' % pid for pid in relay.stop(run.tag)]
    # Before the fabric: its peer there would take it away, but asynchronously.
    if net.delete_link(run.management_device):
        removed.append('link %s' % run.management_device)
    namespaces = [ns for ns in net.netns_list() if run.owns(ns)]
    # The hosts before the fabric: their legs go with them.
    for netns in sorted(namespaces, key=lambda ns: ns == run.fabric):
        init = hypervisor.find_init(netns)
        pids = net.netns_pids(netns)
        left = net.kill_and_wait([init] if init else [])
        left += net.kill_and_wait(pids)
        if left:
            raise net.CommandError('processes %s in %s survived SIGKILL' % (left, netns))
        net.netns_delete(netns)
        removed.append('namespace %s (%d processes)' % (netns, len(pids)))
    if os.path.isdir(run.state_dir):
        with contextlib.suppress(OSError):
            os.rmdir(run.state_dir)  # empty: an up that died before marking it
    if os.path.isdir(run.state_dir):
        if not state.is_ours(run):
            raise names.UsageError('%s was not made by tools/hosts up --name %s: left as '
                                   'is' % (run.state_dir, run.tag))
        shutil.rmtree(run.state_dir)
        removed.append('state directory %s' % run.state_dir)
    if os.path.dirname(run.state_dir) == names.STATE_ROOT:
        with contextlib.suppress(OSError):
            os.rmdir(names.STATE_ROOT)  # the last run's
    return removed
