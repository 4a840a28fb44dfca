"""A port's security (its groups' rules and anti-spoofing) as a libvirt nwfilter.

One filter per port, referenced by its domain interface's ``<filterref>``; libvirt
turns it into ebtables (layer 2) and iptables (layer 3, stateful) rules on the
interface's tap, in the network namespace of the libvirtd that runs the guest, and
re-applies a redefined filter to the running interfaces at once.

The port's state, as the network service resolved it (JSON, a host needs nothing
else)::

    {'port_id', 'mac', 'ips': [fixed IP, ...], 'port_security': bool,
     'allowed_address_pairs': [{'ip_address', 'mac_address'?}],
     'rules': [{'direction': 'ingress'|'egress', 'ethertype', 'protocol',
                'port_range_min', 'port_range_max',
                'remote': [CIDR, ...] or None (anywhere)}]}

A rule's ``remote`` is its remote_ip_prefix, or the fixed IPs (and address pairs)
of its remote group's ports; an empty list matches nobody.

What the filter does, with port security on (Neutron's iptables firewall driver):
the guest sends only from its MAC and fixed IPs and allowed address pairs (libvirt's
``clean-traffic``: MAC, IP and ARP spoofing, no other layer-2 protocol than IPv4
and ARP); DHCP and ARP pass; replies to allowed connections pass back
(established/related); what no ingress rule allows is dropped, and so is what no
egress rule allows. Port security off: the filter is empty, everything passes.
Only IPv4 rules are applied (IPv6 frames are dropped with port security on).
"""

import ipaddress
import logging
import uuid as uuid_lib

from lxml import etree

LOG = logging.getLogger(__name__)

ANTI_SPOOFING = 'clean-traffic'  # shipped with libvirt (no-mac/ip/arp-spoofing...)
_NAMESPACE = uuid_lib.UUID('5b0f6f52-61a5-4bd5-9a3a-0c5e2bb1c7d1')
# Neutron's protocol (name or number) -> libvirt's element for it.
_ELEMENTS = {'tcp': 'tcp', '6': 'tcp', 'udp': 'udp', '17': 'udp', 'sctp': 'sctp',
             '132': 'sctp', 'udplite': 'udplite', '136': 'udplite', 'icmp': 'icmp',
             '1': 'icmp', 'esp': 'esp', '50': 'esp', 'ah': 'ah', '51': 'ah',
             'igmp': 'igmp', '2': 'igmp', None: 'all'}
_WITH_PORTS = ('tcp', 'udp', 'sctp', 'udplite')
# Rule priorities (lower first): replies, then DHCP, then the groups', then the end.
_ESTABLISHED, _DHCP, _RULE, _DROP = -400, -300, 500, 1000


def filter_uuid(name):
    """The filter's UUID, fixed by its name: libvirt redefines a filter in place
    only under the UUID it has."""
    return str(uuid_lib.uuid5(_NAMESPACE, name))


def _rule(parent, action, direction, priority, element, **attributes):
    rule = etree.SubElement(parent, 'rule', action=action, direction=direction,
                            priority=str(priority))
    etree.SubElement(rule, element, **{k: str(v) for k, v in attributes.items()
                                       if v is not None})


def _host_addresses(state):
    """The MACs and IPs the port may send from (IPv4 host addresses only: libvirt's
    anti-spoofing takes addresses, not prefixes)."""
    macs, ips = [state['mac']], list(state['ips'])
    for pair in state.get('allowed_address_pairs') or []:
        net = ipaddress.ip_network(pair['ip_address'], strict=False)
        if net.version != 4 or net.num_addresses != 1:
            LOG.warning('Port %s: allowed address pair %s is not one IPv4 address; '
                        'not allowed here', state['port_id'], pair['ip_address'])
            continue
        ips.append(str(net.network_address))
        if pair.get('mac_address'):
            macs.append(pair['mac_address'])
    return list(dict.fromkeys(m.lower() for m in macs)), list(dict.fromkeys(ips))


def _anti_spoofing(root, state):
    ref = etree.SubElement(root, 'filterref', filter=ANTI_SPOOFING)
    macs, ips = _host_addresses(state)
    for mac in macs:
        etree.SubElement(ref, 'parameter', name='MAC', value=mac)
    for ip in ips:
        etree.SubElement(ref, 'parameter', name='IP', value=ip)


def _remote(direction, cidr):
    """The remote end of a rule: the source of what comes in, the destination of
    what goes out."""
    if cidr is None:
        return {}
    net = ipaddress.ip_network(cidr, strict=False)
    side = 'src' if direction == 'in' else 'dst'
    return {side + 'ipaddr': str(net.network_address),
            side + 'ipmask': str(net.prefixlen)}


def _match(rule):
    """The protocol element and its attributes for a group rule; None: libvirt
    cannot match the protocol (nothing is allowed for it)."""
    element = _ELEMENTS.get(rule.get('protocol'))
    if element is None:
        return None
    attributes = {}
    low, high = rule.get('port_range_min'), rule.get('port_range_max')
    if element in _WITH_PORTS and low is not None:
        attributes = {'dstportstart': low, 'dstportend': high}
    elif element == 'icmp' and low is not None:
        attributes = {'type': low, 'code': high}
    return element, attributes


def _group_rules(root, state):
    for rule in state.get('rules') or []:
        if rule.get('ethertype', 'IPv4') != 'IPv4':
            continue
        match = _match(rule)
        if match is None:
            LOG.warning('Port %s: protocol %s cannot be filtered here; its rule '
                        'allows nothing', state['port_id'], rule.get('protocol'))
            continue
        element, attributes = match
        direction = 'in' if rule['direction'] == 'ingress' else 'out'
        remotes = rule.get('remote')
        for cidr in ([None] if remotes is None else remotes):
            _rule(root, 'accept', direction, _RULE, element,
                  **attributes, **_remote(direction, cidr))


def build_filter(name, state):
    """The <filter> XML (text) of one port's state."""
    root = etree.Element('filter', name=name, chain='root')
    etree.SubElement(root, 'uuid').text = filter_uuid(name)
    if state.get('port_security', True):
        _anti_spoofing(root, state)
        _rule(root, 'accept', 'inout', _ESTABLISHED, 'all',
              state='ESTABLISHED,RELATED')
        _rule(root, 'accept', 'out', _DHCP, 'udp', srcportstart=68, dstportstart=67)
        _rule(root, 'accept', 'in', _DHCP, 'udp', srcportstart=67, dstportstart=68)
        _group_rules(root, state)
        _rule(root, 'drop', 'inout', _DROP, 'all')
    return etree.tostring(root, pretty_print=True, encoding='unicode')
