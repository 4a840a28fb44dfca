"""Request validation at the edge: every field checked before anything is created."""

import ipaddress
import os
import re

from provisioner import exception

# Letters, digits, '.', '_' and '-': safe in a hostname, a file name, libvirt metadata
# and a shell, so no escaping question can arise downstream.
_NAME_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]*$')
MAX_NAME_LENGTH = 63


def name(value, field='name'):
    if not value:
        raise exception.Invalid(reason='%s must not be empty' % field)
    if len(value) > MAX_NAME_LENGTH:
        raise exception.Invalid(reason='%s is %d characters long; the limit is %d'
                                       % (field, len(value), MAX_NAME_LENGTH))
    if not _NAME_RE.match(value):
        raise exception.Invalid(
            reason="%s %r may contain only letters, digits, '.', '_' and '-', and must "
                   "start with a letter or digit" % (field, value))
    return value


def positive_int(value, field, maximum):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise exception.Invalid(reason='%s must be a whole number of at least 1, not %r'
                                       % (field, value))
    if value > maximum:
        raise exception.Invalid(reason='%s must be at most %d, not %d'
                                       % (field, maximum, value))
    return value


def non_negative_int(value, field, maximum):
    if value == 0:
        return 0
    return positive_int(value, field, maximum)


def readable_file(path, field):
    if not path:
        raise exception.Invalid(reason='%s must name a file' % field)
    if not os.path.isfile(path):
        raise exception.Invalid(reason='%s %s does not exist or is not a file'
                                       % (field, path))
    if not os.access(path, os.R_OK):
        raise exception.Invalid(reason='%s %s is not readable' % (field, path))
    return os.path.abspath(path)


def ipv4_network(cidr):
    try:
        net = ipaddress.IPv4Network(cidr, strict=True)
    except (ValueError, TypeError) as exc:
        raise exception.Invalid(reason='CIDR %r is not a valid IPv4 network: %s'
                                       % (cidr, exc)) from None
    if net.prefixlen > 29:
        raise exception.Invalid(reason='CIDR %s is too small: use a /29 or larger' % cidr)
    return net


def address_in(network, value, field):
    try:
        addr = ipaddress.IPv4Address(value)
    except (ValueError, TypeError):
        raise exception.Invalid(reason='%s %r is not an IPv4 address'
                                       % (field, value)) from None
    if addr not in network or addr in (network.network_address,
                                       network.broadcast_address):
        raise exception.Invalid(reason='%s %s is not a host address of %s'
                                       % (field, value, network))
    return addr
