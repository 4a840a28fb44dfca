"""Request validation at the edge: every field checked before anything is created."""

import ipaddress
import os
import re

from provisioner import exception

# Letters, digits, '.', '_' and '-': safe in a hostname, a file name, libvirt metadata
# and a shell, so no escaping question can arise downstream.
_NAME_RE = re.compile(r'[A-Za-z0-9][A-Za-z0-9._-]*')
MAX_NAME_LENGTH = 63


def name(value, field='name'):
    if value is not None and not isinstance(value, str):
        raise exception.Invalid(reason='%s must be text, not %s'
                                       % (field, type(value).__name__))
    if not value:
        raise exception.Invalid(reason='%s must not be empty' % field)
    if len(value) > MAX_NAME_LENGTH:
        raise exception.Invalid(reason='%s is %d characters long; the limit is %d'
                                       % (field, len(value), MAX_NAME_LENGTH))
    if not _NAME_RE.fullmatch(value):  # match() with $ would let 'web1\n' in
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
    if value == 0 and not isinstance(value, bool):
        return 0
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        raise exception.Invalid(reason='%s must be a whole number of at least 0, not %r'
                                       % (field, value))
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


# One network is one host bridge with one dnsmasq: a /16 (65534 addresses) is more
# than that serves, and a larger range only makes every address scan longer.
LARGEST_PREFIX = 16
SMALLEST_PREFIX = 29

# Special-purpose ranges (RFC 6890) that cannot be a guest LAN: a bridge on them
# shadows loopback, link-local, multicast or reserved traffic of the host. Private
# (RFC 1918), shared (100.64.0.0/10) and public unicast ranges stay allowed.
SPECIAL_RANGES = [(ipaddress.IPv4Network(cidr), what) for cidr, what in (
    ('0.0.0.0/8', '"this network" (RFC 1122)'),
    ('127.0.0.0/8', 'loopback (RFC 1122)'),
    ('169.254.0.0/16', 'link-local (RFC 3927)'),
    ('192.0.0.0/24', 'IETF protocol assignments (RFC 6890)'),
    ('224.0.0.0/4', 'multicast (RFC 5771)'),
    ('240.0.0.0/4', 'reserved, with the broadcast address 255.255.255.255 '
                    '(RFC 1112, RFC 919)'),
)]


def ipv4_network(cidr):
    """An IPv4 network a guest LAN may use: /16 to /29, in no special-purpose range."""
    try:
        net = ipaddress.IPv4Network(cidr, strict=True)
    except (ValueError, TypeError) as exc:
        raise exception.Invalid(reason='CIDR %r is not a valid IPv4 network: %s'
                                       % (cidr, exc)) from None
    if net.prefixlen < LARGEST_PREFIX:
        raise exception.Invalid(
            reason='CIDR %s is too large: a network is one host bridge with one DHCP '
                   'server, and a /%d (%d addresses) is the most it serves; use a /%d '
                   'or smaller' % (net, LARGEST_PREFIX, 2 ** (32 - LARGEST_PREFIX) - 2,
                                   LARGEST_PREFIX))
    for special, what in SPECIAL_RANGES:
        if net.overlaps(special):
            raise exception.Invalid(
                reason='CIDR %s overlaps %s, %s, which cannot be a guest network; use '
                       'a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)'
                       % (net, special, what))
    if net.prefixlen > SMALLEST_PREFIX:
        raise exception.Invalid(reason='CIDR %s is too small: use a /%d or larger'
                                       % (cidr, SMALLEST_PREFIX))
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


def display_name(value, field='name'):
    """An instance name as Nova takes it: any printable text, kept verbatim.

    Markup and shell characters are data: the name is never a file, domain or host
    name (those derive from the uuid, or fold the name to a hostname label).
    """
    value = _text(value, field, MAX_NAME_LENGTH)
    if not value.strip():
        raise exception.Invalid(reason='%s must not be empty' % field)
    if value != value.strip():
        raise exception.Invalid(reason='%s must not start or end with white space'
                                       % field)
    return value


def _text(value, field, maximum):
    """A str of at most ``maximum`` characters with no control characters."""
    if not isinstance(value, str):
        raise exception.Invalid(reason='%s must be text' % field)
    if len(value) > maximum:
        raise exception.Invalid(reason='%s is %d characters long; the limit is %d'
                                       % (field, len(value), maximum))
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise exception.Invalid(reason='%s must not contain control characters '
                                       '(newlines, tabs, NUL)' % field)
    return value


# Neutron's limit on a resource's description (neutron_lib's DESCRIPTION_MAX_LEN).
MAX_DESCRIPTION_LENGTH = 255


def description(value, field='description'):
    """Free text a user wrote (a network's, subnet's, port's): kept verbatim.

    Any characters but NUL (no database column takes it) and lone surrogates (not
    text: they have no UTF-8 form).
    """
    if not isinstance(value, str):
        raise exception.Invalid(reason='%s must be a string, not %s'
                                       % (field, _json_type(value)))
    if len(value) > MAX_DESCRIPTION_LENGTH:
        raise exception.Invalid(reason='%s is %d characters long; the limit is %d'
                                       % (field, len(value), MAX_DESCRIPTION_LENGTH))
    try:
        value.encode('utf-8')
    except UnicodeEncodeError:
        raise exception.Invalid(reason='%s must be text (it has an unpaired '
                                       'surrogate)' % field) from None
    if '\0' in value:
        raise exception.Invalid(reason='%s must not contain NUL characters' % field)
    return value


def _json_type(value):
    """The JSON name of a decoded value's type (what the caller sent)."""
    for kind, name in ((bool, 'a boolean'), (int, 'a number'), (float, 'a number'),
                       (list, 'a list'), (dict, 'an object'), (type(None), 'null')):
        if isinstance(value, kind):
            return name
    return type(value).__name__


MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 1024


def password(value, field='password'):
    if not value or len(value) < MIN_PASSWORD_LENGTH:
        raise exception.Invalid(reason='%s must be at least %d characters long'
                                       % (field, MIN_PASSWORD_LENGTH))
    if not isinstance(value, str) or len(value) > MAX_PASSWORD_LENGTH \
            or '\0' in value:
        # Never echo the value: it is a secret.
        raise exception.Invalid(reason='%s must be text of at most %d characters '
                                       'without NUL' % (field, MAX_PASSWORD_LENGTH))
    return value


def one_of(*choices):
    def check(value, field):
        if value not in choices:
            raise exception.Invalid(reason='%s must be one of %s, not %r'
                                           % (field, ', '.join(choices), value))
        return value
    return check


# The roles this cloud's policies know (identity's too): Keystone's defaults and the
# 'service' role of the users hosts' workers download images as.
ROLES = ('admin', 'member', 'reader', 'service')


def role(value, field='role'):
    return one_of(*ROLES)(value, field)


def kernel_cmdline(value, field='--cmdline'):
    return _text(value, field, 1024)


def ipv4_address(value, field):
    try:
        return str(ipaddress.IPv4Address(value))
    except (ValueError, TypeError):
        raise exception.Invalid(reason='%s %r is not an IPv4 address'
                                       % (field, value)) from None


def _image_directories():
    """[image] image_directories, symlinks resolved; those under state_path are made.

    The default import directory is made on first use (0750), so the directory a
    refusal names exists for the operator to copy files into.
    """
    from provisioner.conf import CONF
    state_path = os.path.realpath(CONF.state_path)
    directories = [os.path.realpath(d) for d in CONF.image.image_directories]
    for directory in directories:
        if os.path.commonpath([directory, state_path]) == state_path:
            try:
                os.makedirs(directory, mode=0o750, exist_ok=True)
            except OSError:
                pass  # the check below still refuses every file outside it
    return directories


def image_file(path, field):
    """A readable file inside [image] image_directories, symlinks resolved."""
    if not isinstance(path, str) or not path or '\0' in path or len(path) > 4096:
        raise exception.Invalid(reason='%s must name a file (at most 4096 '
                                       'characters, no NUL)' % field)
    real = os.path.realpath(path)
    allowed = _image_directories()
    if not any(os.path.commonpath([real, d]) == d for d in allowed):
        raise exception.Invalid(
            reason='%s %s is outside the image directories (%s): copy it into one, or '
                   'add its directory to [image] image_directories'
                   % (field, path, ', '.join(allowed) or 'none configured'))
    readable_file(real, field)
    return real


def user_data(value, field='user data'):
    from provisioner.conf import CONF
    limit = CONF.compute.max_user_data_bytes
    if not isinstance(value, bytes):
        raise exception.Invalid(reason='%s must be bytes' % field)
    if len(value) > limit:
        raise exception.Invalid(reason='%s is %d bytes; the limit is %d'
                                       % (field, len(value), limit))
    return value


_PROPERTY_KEY_RE = re.compile(r'^[A-Za-z0-9_.:-]{1,255}$')
MAX_PROPERTIES = 128


def properties(value, field='property'):
    """Instance metadata: at most 128 key=value pairs, plain keys, one-line values."""
    if not isinstance(value, dict):
        raise exception.Invalid(reason='%s must be key=value pairs' % field)
    if len(value) > MAX_PROPERTIES:
        raise exception.Invalid(reason='at most %d %s pairs, not %d'
                                       % (MAX_PROPERTIES, field, len(value)))
    for key, item in value.items():
        if not isinstance(key, str) or not _PROPERTY_KEY_RE.fullmatch(key):
            raise exception.Invalid(
                reason="%s key %r must be 1-255 letters, digits, '_', '.', ':' or '-'"
                       % (field, key))
        _text(item, '%s %s' % (field, key), 255)
    return dict(value)
