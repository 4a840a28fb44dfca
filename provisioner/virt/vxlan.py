"""A network's VXLAN device on this host and its flood entries (the L2 agent's part).

Neutron's linuxbridge agent with l2population, by iproute2: the device
(``type vxlan id VNI local <underlay ip> dstport 4789``) is a port of the network's
bridge, and one all-zero FDB entry per peer host floods broadcast and unknown
traffic to it; the bridge then learns MACs. Every call is idempotent and converges
on what it is given, so a re-run after a crash (or a worker killed mid-way) ends
in the same state.
"""

import hashlib
import json
import logging

from provisioner.virt import commands

LOG = logging.getLogger(__name__)

FLOOD_MAC = '00:00:00:00:00:00'
OVERHEAD = 50  # outer Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8


def device_name(bridge):
    """The VXLAN device of the network whose bridge is ``bridge`` (<= 15 chars);
    derived from the bridge, so a delete that knows only the network finds it."""
    return 'vx-%s' % hashlib.sha256(bridge.encode()).hexdigest()[:12]


def ensure(bridge, vni, local_ip, port, mtu):
    """The network's VXLAN device, enslaved to ``bridge`` and up; one with another
    VNI or source (a stale one) is made again."""
    name = device_name(bridge)
    link = commands.link(name)
    data = ((link or {}).get('linkinfo') or {}).get('info_data') or {}
    if link is not None and (data.get('id') != vni or data.get('local') != local_ip
                             or data.get('port') != port):
        LOG.warning('Replacing VXLAN device %s (VNI %s, local %s): VNI %s, local %s '
                    'wanted', name, data.get('id'), data.get('local'), vni, local_ip)
        delete(bridge)
        link = None
    if link is None:
        commands.run(['ip', 'link', 'add', name, 'mtu', str(mtu), 'type', 'vxlan', 'id',
              str(vni), 'local', local_ip, 'dstport', str(port)])
    commands.run(['ip', 'link', 'set', 'dev', name, 'mtu', str(mtu), 'master', bridge, 'up'])
    return name


def delete(bridge):
    """Remove the network's VXLAN device (its FDB entries go with it); absent: fine."""
    name = device_name(bridge)
    if commands.link(name) is not None:
        commands.run(['ip', 'link', 'delete', 'dev', name])


def flood_peers(bridge):
    """The peers the device floods to now."""
    result = commands.run(['bridge', '-j', 'fdb', 'show', 'dev', device_name(bridge)])
    return sorted({entry['dst'] for entry in json.loads(result.stdout or '[]')
                   if entry.get('mac') == FLOOD_MAC and entry.get('dst')})


def set_peers(bridge, peers):
    """Flood to exactly ``peers`` (underlay addresses of the other hosts)."""
    name = device_name(bridge)
    current = set(flood_peers(bridge))
    for peer in sorted(set(peers) - current):
        commands.run(['bridge', 'fdb', 'append', FLOOD_MAC, 'dev', name, 'dst', peer])
    for peer in sorted(current - set(peers)):
        commands.run(['bridge', 'fdb', 'del', FLOOD_MAC, 'dev', name, 'dst', peer])
