"""A security group rule as Neutron checks it, without the database.

``check(rule)`` turns what a client sent into the columns recorded: Neutron's
defaults (IPv4), its protocol names and numbers, its port and ICMP ranges and its
words for each refusal (clients and tempest match them).
"""

import ipaddress

from provisioner import exception

DIRECTIONS = ('ingress', 'egress')
ETHERTYPES = ('IPv4', 'IPv6')
# neutron_lib.constants.IP_PROTOCOL_MAP's names (and 'any', Neutron's "every one").
PROTOCOLS = ('ah', 'dccp', 'egp', 'esp', 'gre', 'hopopt', 'icmp', 'igmp', 'ipip',
             'ipv6-encap', 'ipv6-frag', 'ipv6-icmp', 'icmpv6', 'ipv6-nonxt',
             'ipv6-opts', 'ipv6-route', 'ospf', 'pgm', 'rsvp', 'sctp', 'tcp', 'udp',
             'udplite', 'vrrp', 'any')
# Protocols whose rules have ports; and those whose "ports" are ICMP type and code.
_WITH_PORTS = ('tcp', 'udp', 'dccp', 'sctp', 'udplite', '6', '17', '33', '132', '136')
_ICMP = ('icmp', 'ipv6-icmp', 'icmpv6', '1', '58')


class BadRule(exception.Invalid):
    """Neutron's 400 for a rule it cannot record, in its own words."""

    msg_fmt = '%(reason)s'


def _choice(rule, key, allowed, default=None):
    value = rule.get(key, default)
    if value not in allowed:
        raise BadRule(reason='Invalid input for %s. Reason: %r is not in %s.'
                             % (key, value, list(allowed)))
    return value


def protocol(value):
    """A protocol name (lower case) or number 0-255 (as text, as Neutron keeps it)."""
    if value is None:
        return None
    text = str(value).lower() if not isinstance(value, bool) else ''
    if text in PROTOCOLS:
        return None if text == 'any' else text
    if text.isdigit() and 0 <= int(text) <= 255:
        return str(int(text))
    raise BadRule(reason='Security group rule protocol %s not supported. Only protocol '
                         'values %s and integer representations [0 to 255] are '
                         'supported.' % (value, list(PROTOCOLS)))


def _number(value, what):
    if value is None:
        return None
    if isinstance(value, bool) or not str(value).lstrip('-').isdigit():
        raise BadRule(reason='Invalid value for %s %s' % (what, value))
    return int(value)


def _ports(proto, low, high):
    """(port_range_min, port_range_max) for ``proto``, checked as Neutron does."""
    low, high = _number(low, 'port'), _number(high, 'port')
    if low is None and high is None:
        return None, None
    if proto is None:
        raise BadRule(reason='Must also specify protocol if port range is given.')
    if proto in _ICMP:
        for value, field, attr in ((low, 'type', 'port_range_min'),
                                   (high, 'code', 'port_range_max')):
            if value is not None and not 0 <= value <= 255:
                raise BadRule(reason='Invalid value for ICMP %s (%s): %s. It must be '
                                     '0 to 255.' % (field, attr, value))
        if low is None:
            raise BadRule(reason='ICMP code (port-range-max) %s is provided but ICMP '
                                 'type (port-range-min) is missing.' % high)
        return low, high
    if proto not in _WITH_PORTS:
        raise BadRule(reason='Invalid protocol %s for port range, only supported for '
                             'TCP, UDP, UDPLITE, SCTP and DCCP.' % proto)
    for value in (low, high):
        if value is not None and not 0 <= value <= 65535:
            raise BadRule(reason='Invalid value for port %s' % value)
    if low is None or high is None or low > high:
        raise BadRule(reason='For TCP/UDP protocols, port_range_min must be <= '
                             'port_range_max')
    if low == 0:
        raise BadRule(reason='Invalid value for port 0')
    return low, high


def normalized(prefix):
    """A CIDR in its network form (10.0.0.5/24: 10.0.0.0/24), Neutron's normalized_cidr."""
    return prefix and str(ipaddress.ip_network(prefix, strict=False))


def _prefix(value, ethertype):
    """The remote CIDR as given (Neutron keeps it so); its version must be the
    ethertype's."""
    if value is None:
        return None
    try:
        net = ipaddress.ip_network(str(value), strict=False)
    except ValueError:
        raise BadRule(reason="Invalid input for remote_ip_prefix. Reason: '%s' is not "
                             "a valid IP subnet." % value) from None
    if 'IPv%d' % net.version != ethertype:
        raise BadRule(reason='Conflicting value ethertype %s for CIDR %s'
                             % (ethertype, value))
    return str(value)


def check(rule):
    """The columns of a rule from the body a client sent (schemas checked its keys);
    remote_group_id is left for the caller to find."""
    direction = _choice(rule, 'direction', DIRECTIONS)
    ethertype = _choice(rule, 'ethertype', ETHERTYPES, 'IPv4')
    proto = protocol(rule.get('protocol'))
    low, high = _ports(proto, rule.get('port_range_min'), rule.get('port_range_max'))
    if rule.get('remote_ip_prefix') is not None and rule.get('remote_group_id'):
        raise BadRule(reason='Only remote_ip_prefix or remote_group_id may be provided.')
    return {'direction': direction, 'ethertype': ethertype, 'protocol': proto,
            'port_range_min': low, 'port_range_max': high,
            'remote_ip_prefix': _prefix(rule.get('remote_ip_prefix'), ethertype),
            'remote_group_id': rule.get('remote_group_id') or None,
            'description': rule.get('description') or ''}


SAME = ('direction', 'ethertype', 'protocol', 'port_range_min', 'port_range_max',
        'remote_ip_prefix', 'remote_group_id')


def duplicate_of(columns, existing):
    """The id of the rule of ``existing`` (rows) that ``columns`` repeats, or None."""
    def key(rule):
        return tuple(normalized(rule['remote_ip_prefix']) if name == 'remote_ip_prefix'
                     else rule[name] for name in SAME)
    for row in existing:
        if key({name: getattr(row, name) for name in SAME}) == key(columns):
            return row.id
    return None
