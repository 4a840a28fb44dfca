"""The names and addresses of one run, all derived from its TAG and its underlay /24."""

import ipaddress
import os
import re

DEFAULT_TAG = 'demo'
STATE_ROOT = '/var/lib/provisioner-hosts'
STATE_FILE = 'hosts.json'
# Written into a state directory this tool made: down removes only such a directory.
MARKER = '.provisioner-hosts'

# A TAG owns every namespace named "TAG-*"; no '-' in it, so one TAG is never the
# prefix of another's names. At most 8 characters: "TAG-mgmt" is an interface name
# in the root namespace (15 characters at most).
TAG_RE = re.compile(r'^[a-z][a-z0-9]{0,7}$')
HOST_RE = re.compile(r'^h([1-9][0-9]?)$')
# An attached namespace's name is also its leg's interface name in the fabric.
MEMBER_RE = re.compile(r'^[a-z][a-z0-9]{0,11}$')
RESERVED = ('fabric', 'mgmt')
MAX_HOSTS = 50

UNDERLAY_POOL = ipaddress.ip_network('10.99.0.0/16')
MANAGEMENT_HOST = 1      # .1: the root namespace's leg (the relays listen there)
FIRST_HOST = 11          # .11: h1, .12: h2, ...
FIRST_ATTACHED = 100     # .100 ... .250: attached namespaces
LAST_ATTACHED = 250

BRIDGE = 'br-underlay'   # in the fabric namespace
UNDERLAY_DEVICE = 'underlay'  # every member's leg, inside its namespace
MANAGEMENT_LEG = 'mgmt'  # the root leg's peer, in the fabric namespace
# A unix socket path holds at most 107 bytes.
MAX_SOCKET_PATH = 107


class UsageError(Exception):
    """Bad input: reported as is, with exit status 2; nothing was changed."""


class Run:
    """One TAG: its namespaces, links and state directory."""

    def __init__(self, tag=None, state_dir=None):
        self.tag = tag or DEFAULT_TAG
        if not TAG_RE.match(self.tag):
            raise UsageError('bad --name %r: 1-8 characters, a lower-case letter then '
                             'letters or digits (no "-": the TAG prefixes every name)'
                             % self.tag)
        self.state_dir = os.path.abspath(state_dir or os.path.join(STATE_ROOT, self.tag))
        self.state_file = os.path.join(self.state_dir, STATE_FILE)
        self.fabric = '%s-fabric' % self.tag
        self.management_device = '%s-mgmt' % self.tag

    def netns(self, member):
        """The namespace of member 'h1' or of an attached 'NAME': 'TAG-h1'."""
        return '%s-%s' % (self.tag, member)

    def owns(self, netns_name):
        return netns_name.startswith(self.tag + '-')

    def host_dir(self, member):
        return os.path.join(self.state_dir, self.netns(member))


def split_member(argument, tag_option):
    """'demo-h1' -> ('demo', 'h1'); 'h1' -> (--name or the default TAG, 'h1')."""
    if '-' in argument:
        tag, member = argument.split('-', 1)
        if tag_option and tag_option != tag:
            raise UsageError('%s does not belong to --name %s' % (argument, tag_option))
        return tag, member
    return tag_option or DEFAULT_TAG, argument


def check_host_count(count):
    if not 1 <= count <= MAX_HOSTS:
        raise UsageError('the number of hosts must be 1 to %d, not %d' % (MAX_HOSTS, count))


def check_port(port):
    if not 1 <= port <= 65535:
        raise UsageError('bad port %d: 1 to 65535' % port)


def check_mtu(mtu):
    if not 576 <= mtu <= 65535:
        raise UsageError('bad --mtu %d: 576 to 65535' % mtu)


def check_attached_name(name):
    if not MEMBER_RE.match(name) or HOST_RE.match(name) or name in RESERVED:
        raise UsageError('bad namespace name %r: 1-12 characters, a lower-case letter then '
                         'letters or digits; not h<N>, fabric or mgmt' % name)


def host_address(network, index):
    """h<index>'s underlay address."""
    return str(network.network_address + FIRST_HOST + index - 1)


def management_address(network):
    return str(network.network_address + MANAGEMENT_HOST)


def free_attached_address(network, used):
    for offset in range(FIRST_ATTACHED, LAST_ATTACHED + 1):
        address = str(network.network_address + offset)
        if address not in used:
            return address
    raise UsageError('no free address left for an attached namespace in %s' % network)


def free_underlay(taken, pool=UNDERLAY_POOL):
    """The first /24 of the pool that overlaps none of ``taken`` (networks)."""
    for candidate in pool.subnets(new_prefix=24):
        if not any(candidate.overlaps(net) for net in taken):
            return candidate
    raise UsageError('no free /24 left in %s for an underlay' % pool)


def parse_underlay(text, taken):
    """--cidr: a /24 that nothing on this machine routes or uses."""
    try:
        network = ipaddress.ip_network(text)
    except ValueError as exc:
        raise UsageError('bad --cidr %r: %s' % (text, exc))
    if network.version != 4 or network.prefixlen != 24 or not network.is_private:
        raise UsageError('bad --cidr %s: an IPv4 private /24 is needed' % network)
    clash = [str(net) for net in taken if network.overlaps(net)]
    if clash:
        raise UsageError('--cidr %s overlaps %s, already on this machine'
                         % (network, ', '.join(clash)))
    return network
