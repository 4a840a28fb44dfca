"""One network across two namespace hosts: their workers' L2 agents join its bridges
with VXLAN over the hosts' underlay, and one DHCP server serves both hosts' guests.

The guests prove it on their serial consoles: the second pings the first across the
hosts (and with a full 1450-byte packet: the overlay's MTU) and prints the replies.
Nothing leaves the hosts' underlay (the VXLAN packets travel between the test's own
namespace hosts).
"""

import json
import os
import pathlib
import signal

import pytest

from tests.functional.distributed.conftest import WORKERS
from tests import netutil

# Ping the first guest (its address substituted) and print what came back.
PINGER = '''#!/bin/sh
echo "L2-MTU: $(cat /sys/class/net/eth0/mtu)"
for try in 1 2 3 4 5 6 7 8 9 10; do
    ping -c 1 -W 2 %(peer)s >/dev/null 2>&1 && break
done
ping -c 3 -W 2 %(peer)s | sed -n 's/^/L2-PING: /p'
ping -c 1 -W 2 -s 1422 %(peer)s | sed -n 's/^/L2-BIG: /p'
'''

L2_CONF = '[l2]\nlocal_ip = %(ip)s\n'


@pytest.fixture
def l2_workers(dcloud):
    """Both workers restarted with an L2 agent: [l2] local_ip, their underlay address;
    restarted as they were after the test."""
    def restart(extra):
        for worker in WORKERS:
            dcloud.stop(worker)
            host = dcloud.deployment.place(worker)
            dcloud.start('worker', worker, extra % {'ip': host.address})
    restart(L2_CONF)
    yield [dcloud.deployment.place(worker) for worker in WORKERS]
    restart('')


def _links(host):
    return json.loads(host.exec(['ip', '-j', 'link', 'show']).stdout)


def _pid_namespaces(pids):
    found = set()
    for pid in pids:
        try:
            found.add(os.readlink('/proc/%d/ns/pid' % pid))
        except OSError:
            pass
    return found


def _dnsmasq_serving(host, network_id):
    """The dnsmasq processes of ``host`` that serve the network (its files are named
    by its id). It runs in the network's DHCP namespace, not the host's network
    namespace (whose processes tools/hosts lists): it is the host's by its pid
    namespace, which everything started inside the host shares."""
    own = _pid_namespaces(host.pids())
    found = []
    for proc in pathlib.Path('/proc').iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if (proc / 'comm').read_text().strip() == 'dnsmasq' and \
                    network_id.encode() in (proc / 'cmdline').read_bytes() and \
                    os.readlink(proc / 'ns' / 'pid') in own:
                found.append(int(proc.name))
        except OSError:
            pass
    return found


def _console_lines(dcloud, instance, prefix):
    """The guest's console lines starting with ``prefix``, once its script ended."""
    dcloud.wait_for_console(instance, marker='PROVISIONER-GUEST: user-data-script=exit')
    with open(instance['console_log'], errors='replace') as log:
        return [line for line in log.read().splitlines() if line.startswith(prefix)]


def test_two_guests_of_one_network_on_two_hosts_reach_each_other(
        dcloud, engine, l2_workers, dbooted, tmp_path):
    before = {host.name: {link['ifname'] for link in _links(host)}
              for host in l2_workers}
    dcloud.cli('network', 'create', 'l2net', '--cidr', netutil.free_cidr())
    net = next(n for n in json.loads(dcloud.cli('network', 'list', '--format',
                                                'json').stdout) if n['name'] == 'l2net')
    dcloud.cli('server-group', 'create', 'l2apart', '--policy', 'anti-affinity')
    apart = ('--network', 'l2net', '--server-group', 'l2apart')
    dbooted.extend(['l2-first', 'l2-second'])
    dcloud.cli('boot', 'l2-first', '--flavor', 'tiny', '--image', 'guest', *apart)
    first = dcloud.show('l2-first')
    first_ip = first['addresses'][0]['ip']
    # The DHCP host's worker killed (-9) and started again: its DHCP server (the
    # dnsmasq in the network's DHCP namespace) never stopped, and it serves the next
    # host's port.
    dhcp_host = dcloud.deployment.place(first['host'])
    serving = _dnsmasq_serving(dhcp_host, net['id'])
    dcloud.stop(first['host'], signal.SIGKILL)
    dcloud.start('worker', first['host'], L2_CONF % {'ip': dhcp_host.address})
    assert _dnsmasq_serving(dhcp_host, net['id']) == serving != []
    script = tmp_path / 'pinger'
    script.write_text(PINGER % {'peer': first_ip})
    dcloud.cli('boot', 'l2-second', '--flavor', 'tiny', '--image', 'guest', *apart,
               '--user-data', script)
    second = dcloud.show('l2-second')
    assert {first['host'], second['host']} == set(WORKERS)

    # Both leased their IPAM address across the hosts, from one DHCP server.
    assert dcloud.wait_for_console(first)['ip'] == first_ip
    assert dcloud.wait_for_console(second)['ip'] == second['addresses'][0]['ip']
    network_name = '%s-net-%s' % (dcloud.prefix, net['id'])
    servers = {host.name: _dnsmasq_serving(host, net['id']) for host in l2_workers}
    assert sorted(bool(pids) for pids in servers.values()) == [False, True], servers
    # It runs in the network's DHCP namespace, whose name has the network's id; the
    # bridges carry no address on either host.
    assert net['id'] in dhcp_host.exec(['ip', 'netns', 'list']).stdout
    for host in l2_workers:
        bridges = [link['ifname'] for link in _links(host)
                   if link['ifname'].startswith(dcloud.prefix[:5])]
        # (`ip -4` lists no entry at all for a link without an IPv4 address)
        assert bridges and not [a for bridge in bridges for entry in json.loads(
            host.exec(['ip', '-j', '-4', 'addr', 'show', 'dev', bridge]).stdout)
            for a in entry['addr_info']]
    # Each host: the network's VXLAN device, 1450 bytes, flooding to the other host.
    for host, other in (l2_workers, l2_workers[::-1]):
        vxlans = [link for link in _links(host) if link['ifname'].startswith('vx-')]
        assert [link['mtu'] for link in vxlans] == [1450], vxlans
        fdb = json.loads(host.exec(['bridge', '-j', 'fdb', 'show', 'dev',
                                    vxlans[0]['ifname']]).stdout)
        assert {e['dst'] for e in fdb if e['mac'] == '00:00:00:00:00:00'} == {
            other.address}

    # The second guest reached the first (on the other host) and printed its replies.
    assert _console_lines(dcloud, second, 'L2-MTU: ') == ['L2-MTU: 1450']
    replies = _console_lines(dcloud, second, 'L2-PING: 64 bytes from %s' % first_ip)
    assert replies, replies
    assert _console_lines(dcloud, second, 'L2-BIG: 1430 bytes from %s' % first_ip)

    # Deleting both servers and the network leaves nothing of it on either host.
    for name in ('l2-first', 'l2-second'):
        dcloud.cli('delete', name)
    dbooted.clear()
    dcloud.cli('network', 'delete', 'l2net')
    dcloud.cli('server-group', 'delete', 'l2apart')
    for host in l2_workers:
        left = {link['ifname'] for link in _links(host)} - before[host.name]
        assert left == set(), (host.name, left)
        assert _dnsmasq_serving(host, net['id']) == []
        assert network_name not in host.exec(['virsh', '-q', '-c', 'qemu:///system',
                                              'net-list', '--all', '--name']).stdout
        # Its DHCP namespace went with it.
        assert net['id'] not in host.exec(['ip', 'netns', 'list']).stdout
