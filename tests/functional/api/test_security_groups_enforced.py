"""Security groups enforced on real guests, changed live (all-in-one, the
``openstack`` CLI): the host filters each port (a libvirt nwfilter), and the guests
show it on their serial consoles.

Guest B listens on TCP 5000 and prints each line it receives; guest A sends a
numbered line every second; guest C alternates: a line from its own address, then
one from an address it spoofs (its user-data script takes the fixed IP off eth0 and
puts another address of the subnet on). Nothing but the test's guests talk: the
root namespace never initiates traffic to a guest.
"""

import ipaddress
import re
import time

import pytest

from tests.functional import conftest as base

LISTENER = '''#!/bin/sh
cat > /tmp/got <<'EOF'
#!/bin/sh
read line
echo "SG-GOT: $line" > /dev/console
EOF
chmod +x /tmp/got
nc -ll -p 5000 -e /tmp/got
'''

SENDER = '''#!/bin/sh
i=0
while true; do
    i=$((i + 1))
    echo "A $i" | nc -w 2 %(peer)s 5000
    sleep 1
done
'''

SPOOFER = '''#!/bin/sh
real=$(ip addr show dev eth0 | sed -n 's/.*inet \\([0-9.]*\\/[0-9]*\\).*/\\1/p' | head -n 1)
echo "SG-REAL: $real"
i=0
while true; do
    i=$((i + 1))
    ip addr flush dev eth0
    ip addr add $real dev eth0
    echo "C-real $i" | nc -w 2 %(peer)s 5000
    ip addr flush dev eth0
    ip addr add %(spoof)s dev eth0
    echo "C-spoof $i" | nc -w 2 %(peer)s 5000
done
'''

HEARD_TIMEOUT = 180


def _heard(openstack, server):
    """What B printed it received: [(sender, number)] in order."""
    console = openstack.run('console', 'log', 'show', server).stdout
    return [(m.group(1), int(m.group(2))) for m in
            re.finditer(r'^SG-GOT: (\S+) (\d+)$', console, re.M)]


def _wait_heard(openstack, server, sender, after=0, timeout=HEARD_TIMEOUT,
                consoles=('sgt-a', 'sgt-b', 'sgt-c')):
    """The numbers B heard from ``sender`` above ``after``, once there is one
    (failing: the ``consoles`` shown)."""
    deadline = time.monotonic() + timeout
    while True:
        got = [n for who, n in _heard(openstack, server) if who == sender and n > after]
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError('%s never heard %s (after %d); consoles:\n%s' % (
                server, sender, after, '\n'.join(
                    '%s:\n%s' % (name, openstack.run('console', 'log', 'show',
                                                      name).stdout[-1500:])
                    for name in consoles)))
        time.sleep(2)


def _port_filters(prefix):
    conn = base._libvirt_connection()
    try:
        return {f.name() for f in conn.listAllNWFilters()
                if f.name().startswith(prefix + '-port-')}
    finally:
        conn.close()


@pytest.fixture
def cleanup(openstack):
    made = {'servers': [], 'groups': []}
    yield made
    for server in made['servers']:
        openstack.run('server', 'delete', '--wait', server, check=False)
    for group in made['groups']:
        openstack.run('security', 'group', 'delete', group, check=False)


def _boot(api_cloud, openstack, cleanup, name, group, script, tmp_path):
    path = tmp_path / name
    path.write_text(script)
    cleanup['servers'].append(name)
    server = openstack.json('server', 'create', '--flavor', 'tiny', '--image', 'guest',
                            '--network', 'net1', '--security-group', group,
                            '--user-data', path, '--wait', name)
    assert server['status'] == 'ACTIVE'
    [ip] = server['addresses']['net1']
    return server['id'], ip


def test_rules_let_through_what_they_allow_live_and_spoofing_is_not_heard(
        api_cloud, openstack, cleanup, tmp_path):
    for group in ('sgt-senders', 'sgt-listener'):
        openstack.json('security', 'group', 'create', group)
        cleanup['groups'].append(group)
    from_senders = openstack.json(
        'security', 'group', 'rule', 'create', '--ingress', '--protocol', 'tcp',
        '--dst-port', '5000', '--remote-group', 'sgt-senders', 'sgt-listener')
    net = ipaddress.ip_network(api_cloud.cidr)
    spoof = '%s/%d' % (net.network_address + 250, net.prefixlen)

    _b_id, b_ip = _boot(api_cloud, openstack, cleanup, 'sgt-b', 'sgt-listener',
                       LISTENER, tmp_path)
    _boot(api_cloud, openstack, cleanup, 'sgt-a', 'sgt-senders',
          SENDER % {'peer': b_ip}, tmp_path)
    _boot(api_cloud, openstack, cleanup, 'sgt-c', 'sgt-senders',
          SPOOFER % {'peer': b_ip, 'spoof': spoof}, tmp_path)
    # Each guest's port has its filter on the host (made before the guest started).
    ports = [port['ID'] for name in ('sgt-a', 'sgt-b', 'sgt-c')
             for port in openstack.json('port', 'list', '--server', name)]
    assert len(ports) == 3
    theirs = {'%s-port-%s' % (api_cloud.prefix, port) for port in ports}
    assert theirs <= _port_filters(api_cloud.prefix)

    # The rule from the senders' group lets A and C (from its own address) in.
    _wait_heard(openstack, 'sgt-b', 'A')
    _wait_heard(openstack, 'sgt-b', 'C-real')

    # The rule deleted: nothing comes in any more, at once (B's running filter).
    openstack.run('security', 'group', 'rule', 'delete', from_senders['id'])
    time.sleep(3)  # a connection under way may still finish
    last = max(n for who, n in _heard(openstack, 'sgt-b') if who == 'A')
    time.sleep(12)
    assert [n for who, n in _heard(openstack, 'sgt-b') if who == 'A' and n > last] == []

    # A rule for the whole subnet: A is heard again, C from its own address, but
    # never from the address it spoofs (an address of that subnet).
    openstack.json('security', 'group', 'rule', 'create', '--ingress', '--protocol',
                   'tcp', '--dst-port', '5000', '--remote-ip', str(net), 'sgt-listener')
    _wait_heard(openstack, 'sgt-b', 'A', after=last)
    real = max(n for who, n in _heard(openstack, 'sgt-b') if who == 'C-real')
    _wait_heard(openstack, 'sgt-b', 'C-real', after=real)
    _wait_heard(openstack, 'sgt-b', 'C-real', after=real + 2)
    assert [n for who, n in _heard(openstack, 'sgt-b') if who == 'C-spoof'] == []

    # The servers gone: no filter of theirs is left on the host.
    for name in ('sgt-a', 'sgt-b', 'sgt-c'):
        api_cloud.delete_and_check(openstack.json('server', 'show', name)['id'])
    cleanup['servers'].clear()
    # (other tests' servers of the shared cloud keep theirs)
    assert theirs & _port_filters(api_cloud.prefix) == set()
