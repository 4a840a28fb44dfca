"""The session's namespace hosts (tools/hosts) are separate hypervisor hosts: each its
own libvirtd, hostname and host UUID; a guest boots inside one; a daemon inside reaches
RabbitMQ through the relay; kill ends a whole host; partition cuts its link both ways.
"""

import ipaddress
import os
import subprocess
import sys
import time
from xml.etree import ElementTree

import pytest

from tests.functional.hosts import guests
from tests import hosts as nshosts

# Exit 0 when a TCP connection to argv[1]:argv[2] opens within 2 s.
CONNECT = ('import socket, sys\n'
           'socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=2).close()\n')
# Accept and close connections on argv[1]:argv[2] forever.
SERVE = ('import socket, sys\n'
         'server = socket.create_server((sys.argv[1], int(sys.argv[2])))\n'
         'print("listening", flush=True)\n'
         'while True:\n'
         '    server.accept()[0].close()\n')
PORT = 7999


@pytest.fixture
def libvirt():
    return pytest.importorskip('libvirt')


def _capabilities_uuid(conn):
    return ElementTree.fromstring(conn.getCapabilities()).findtext('host/uuid')


def test_each_host_runs_its_own_libvirtd(namespace_hosts, libvirt):
    print('namespace hosts: up of %d hosts took %.1f s'
          % (len(namespace_hosts), namespace_hosts.state['up_seconds']))
    root = libvirt.open('qemu:///system')
    try:
        root_uuid = _capabilities_uuid(root)
    finally:
        root.close()
    seen = set()
    for host in namespace_hosts:
        conn = libvirt.open(host.libvirt_uri)
        try:
            assert conn.getHostname() == host.hostname == host.name
            assert _capabilities_uuid(conn) == host.host_uuid
        finally:
            conn.close()
        seen.add(host.host_uuid)
        assert 'libvirtd' in host.processes().values()
        # Inside, qemu:///system is the host's own daemon, on its own socket.
        inside = host.exec(['sh', '-c', 'hostname; virsh -q -c qemu:///system hostname; '
                            'ip -4 -o address show dev underlay']).stdout.split('\n')
        assert inside[0] == inside[1] == host.name
        assert ' %s/24 ' % host.address in inside[2]
    assert len(seen) == len(namespace_hosts) and root_uuid not in seen
    # Host to host over the underlay (migration's way): A reaches B's libvirtd.
    a, b = namespace_hosts[0], namespace_hosts[1]
    assert b.libvirt_tcp_uri == 'qemu+tcp://%s/system' % b.address
    assert a.exec(['virsh', '-q', '-c', b.libvirt_tcp_uri, 'hostname']
                  ).stdout.strip() == b.name


def test_a_guest_boots_inside_host_b(namespace_hosts, libvirt, guest_image, tmp_path):
    a, b = namespace_hosts[0], namespace_hosts[1]
    name, console = guests.start_guest(b, guest_image, tmp_path)
    try:
        guests.wait_for_console(console)
        pid = guests.qemu_pid(b, name)
        assert pid is not None and guests.qemu_pid(a, name) is None
        for uri in (a.libvirt_uri, 'qemu:///system'):
            conn = libvirt.open(uri)
            try:
                assert name not in [dom.name() for dom in conn.listAllDomains()]
            finally:
                conn.close()
    finally:
        conn = libvirt.open(b.libvirt_uri)
        try:
            conn.lookupByName(name).destroy()
        finally:
            conn.close()


def test_a_process_inside_a_host_reaches_rabbitmq_through_the_relay(namespace_hosts):
    script = ('import kombu, socket, sys\n'
              'with kombu.Connection("amqp://guest:guest@%s:5672//" % sys.argv[1],\n'
              '                      connect_timeout=10) as conn:\n'
              '    conn.connect()\n'
              '    print(conn.connection.server_properties["product"])\n'
              'try:\n'
              '    socket.create_connection(("127.0.0.1", 5672), timeout=2)\n'
              '    print("loopback: connected")\n'
              'except OSError as exc:\n'
              '    print("loopback:", exc.errno)\n')
    host = namespace_hosts[0]
    out = host.exec([sys.executable, '-c', script, namespace_hosts.management_ip]).stdout
    # The host's own loopback has no broker: the relay is what carried it.
    assert out.split('\n')[:2] == ['RabbitMQ', 'loopback: 111']
    # ... and not the kernel: the root namespace forwards nothing, and its only route
    # into the underlay is the link route of its own leg.
    with open('/proc/sys/net/ipv4/ip_forward') as forward:
        assert forward.read().strip() == '0'
    underlay = ipaddress.ip_network(namespace_hosts.cidr)
    routes = [line.split() for line in subprocess.run(
        ['ip', '-4', 'route', 'show', 'table', 'all'], capture_output=True,
        text=True).stdout.splitlines()]
    into_underlay = [route[:3] for route in routes if route[0] != 'default'
                     and _is_network(route[0])
                     and ipaddress.ip_network(route[0]).overlaps(underlay)]
    leg = namespace_hosts.state['management']['device']
    assert into_underlay == [[namespace_hosts.cidr, 'dev', leg]]
    # The hosts have no route off the underlay.
    assert host.exec(['ip', '-4', 'route', 'show', 'table', 'all']).stdout.count(
        'default') == 0


def _is_network(word):
    try:
        ipaddress.ip_network(word)
    except ValueError:
        return False
    return True


def _connects(member, address, port):
    return member.exec([sys.executable, '-c', CONNECT, address, port],
                       check=False).returncode == 0


def _connects_soon(member, address, port, timeout=20):
    """After heal, until the bridge and the neighbours have learned again."""
    deadline = time.monotonic() + timeout
    while not _connects(member, address, port):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.5)
    return True


def _serve(member):
    server = member.popen([sys.executable, '-c', SERVE, member.address, PORT],
                          stdout=subprocess.PIPE, text=True)
    assert server.stdout.readline().strip() == 'listening'
    return server


def test_partition_cuts_the_underlay_both_ways_and_heal_restores_it(namespace_hosts,
                                                                     libvirt):
    a, b = namespace_hosts[0], namespace_hosts[1]
    servers = [_serve(a), _serve(b)]
    try:
        assert _connects(b, a.address, PORT) and _connects(a, b.address, PORT)
        a.partition()
        try:
            assert not _connects(b, a.address, PORT)
            assert not _connects(a, b.address, PORT)
            assert not _connects(a, namespace_hosts.management_ip, 5672)
            # Everything inside keeps running.
            assert servers[0].poll() is None
            conn = libvirt.open(a.libvirt_uri)
            assert conn.getHostname() == a.name
            conn.close()
        finally:
            a.heal()
        assert _connects_soon(b, a.address, PORT) and _connects_soon(a, b.address, PORT)
        assert _connects_soon(a, namespace_hosts.management_ip, 5672)
    finally:
        for server in servers:
            server.terminate()
            server.wait(30)


def test_kill_ends_everything_inside_and_start_brings_the_host_back(
        namespace_hosts, libvirt, guest_image, tmp_path):
    host = namespace_hosts[0]
    name, _ = guests.start_guest(host, guest_image, tmp_path)
    defined = 'nshost-defined-%s' % name[-6:]
    conn = libvirt.open(host.libvirt_uri)
    conn.defineXML(guests.guest_xml(defined, *guest_image, tmp_path / 'defined.console'))
    conn.close()
    sleeper = host.popen(['sleep', '1000'])
    before = host.wait_for_process('sleep')
    assert {'libvirtd', 'qemu-system-x86', 'sleep'} <= set(before.values()), before
    host.kill()
    try:
        assert sleeper.wait(30) == -9  # exec's stand-in ends as its command did
        assert [pid for pid in before if nshosts.alive(pid)] == []
        assert host.name not in subprocess.run(['ip', 'netns', 'list'], text=True,
                                               capture_output=True).stdout.split()
        with pytest.raises(libvirt.libvirtError):
            libvirt.open(host.libvirt_uri)
    finally:
        host.start()
    conn = libvirt.open(host.libvirt_uri)
    try:
        # The same host again, as after a reboot: its defined guest is there, shut
        # off; its transient one went with the old host.
        assert conn.getHostname() == host.name
        assert _capabilities_uuid(conn) == host.host_uuid
        assert {dom.name(): dom.isActive() for dom in conn.listAllDomains()} == {
            defined: False}
        conn.lookupByName(defined).undefine()
    finally:
        conn.close()
    assert _connects(namespace_hosts[1], namespace_hosts.management_ip, 5672)
    assert ' %s/24 ' % host.address in host.exec(
        ['ip', '-4', '-o', 'address', 'show', 'dev', 'underlay']).stdout


def test_bad_input_is_refused_and_changes_nothing(namespace_hosts):
    tag = nshosts.new_tag()
    state_before = namespace_hosts.state
    for args, says in (
            (['up', 0, '--name', tag], 'must be 1 to 50'),
            (['up', 2, '--name', 'Bad-Tag'], "bad --name 'Bad-Tag'"),
            (['up', 2, '--name', tag, '--cidr', '8.8.8.0/24'], 'private /24'),
            (['up', 2, '--name', tag, '--relay', 0], 'bad port 0'),
            (['up', 2, '--name', tag, '--mtu', 100], 'bad --mtu 100'),
            (['up', 2, '--name', tag, '--state-dir', '/tmp/' + 'x' * 90], 'too long'),
            (['up', 2, '--name', tag, '--cidr', namespace_hosts.cidr], 'overlaps'),
            (['up', 1, '--name', namespace_hosts.tag], 'is already up'),
            (['exec', '%s-h1' % tag, '--', 'true'], 'is not running'),
            (['kill', 'h1', '--name', tag], 'has no hosts'),
            (['attach', 'h9', '--name', namespace_hosts.tag], 'bad namespace name'),
            (['partition', 'h9', '--name', namespace_hosts.tag], 'has no host'),
            (['relay', 70000, '--name', namespace_hosts.tag], 'bad port')):
        result = nshosts.tool(*args, check=False)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert says in result.stderr, (args, result.stderr)
        assert 'Traceback' not in result.stderr
    namespaces = subprocess.run(['ip', 'netns', 'list'], capture_output=True,
                                text=True).stdout.split()
    assert [ns for ns in namespaces if ns.startswith(tag + '-')] == []
    assert not os.path.exists('/var/lib/provisioner-hosts/%s' % tag)
    namespace_hosts.reload()
    assert namespace_hosts.state == state_before
