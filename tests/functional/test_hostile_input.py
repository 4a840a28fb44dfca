"""Hostile and malformed input through the real CLI: refused, exactly, and harmless.

Each row runs the CLI once, in a subprocess, against the session's deployment on the
real libvirtd, and asserts the exact one-line error, the exit status, and that neither
the database (every table, TaskFlow's included) nor libvirt (domains, networks, pools,
volumes of this deployment) changed.
"""

import json
import os
import sqlite3
import time

from cryptography import fernet
import pytest

from provisioner.network import host_routes
from tests.functional import conftest

NAME_RULE = ("may contain only letters, digits, '.', '_' and '-', and must start with "
             "a letter or digit")
BAD_CREDENTIALS = ('Error: Authentication failed: wrong user name, password or project '
                   '(check OS_USERNAME, OS_PASSWORD and OS_PROJECT_NAME)')
INVALID_TOKEN = 'Error: Authentication failed: the token is invalid'


def _invalid(reason):
    return 'Error: Invalid request: ' + reason


def _bad_name(field, value):
    return _invalid('%s %r %s' % (field, value, NAME_RULE))


def _too_large(cidr):
    return _invalid('CIDR %s is too large: a network is one host bridge with one DHCP '
                    'server, and a /16 (65534 addresses) is the most it serves; use a '
                    '/16 or smaller' % cidr)


def _special(cidr, special):
    return _invalid('CIDR %s overlaps %s, which cannot be a guest network; use a private '
                    'range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)' % (cidr, special))


_RESERVED = ('240.0.0.0/4, reserved, with the broadcast address 255.255.255.255 '
             '(RFC 1112, RFC 919)')


def _outside(path, images):
    return _invalid('--kernel %s is outside the image directories (%s): copy it into '
                    'one, or add its directory to [image] image_directories'
                    % (path, images))


def _boot(*extra, name='vm-hostile'):
    args = {'--flavor': 'tiny', '--image': 'guest', '--network': 'net1'}
    overridden = dict(zip(extra[::2], extra[1::2]))
    argv = ['boot', name]
    for flag, value in args.items():
        if flag not in overridden:
            argv += [flag, value]
    return argv + list(extra)


# (id, argv or a function of the fixture's paths, extra env, exit code, exact stderr)
CASES = [
    # -- names: XML, shell and path metacharacters, sizes --------------------------
    # Names are data (Nova's rule): markup, shell and path characters are kept
    # verbatim (tests/unit/flows/test_boot_flow.py boots such names); control
    # characters, blank and oversized names are refused.
    ('name-newline', _boot(name='vm\nx'), {}, 2,
     _invalid('instance name must not contain control characters (newlines, tabs, '
              'NUL)')),
    ('name-padded', _boot(name=' vm'), {}, 2,
     _invalid('instance name must not start or end with white space')),
    ('name-empty', _boot(name=''), {}, 2, _invalid('instance name must not be empty')),
    ('name-too-long', _boot(name='x' * 64), {}, 2,
     _invalid('instance name is 64 characters long; the limit is 63')),
    ('name-huge', _boot(name='x' * 100000), {}, 2,
     _invalid('instance name is 100000 characters long; the limit is 63')),
    # -- references --------------------------------------------------------------
    ('flavor-traversal', _boot('--flavor', '../tiny'), {}, 2,
     _bad_name('flavor', '../tiny')),
    ('flavor-unknown', _boot('--flavor', 'nope'), {}, 3, 'Error: Flavor nope not found.'),
    ('image-unknown', _boot('--image', 'nope'), {}, 3, 'Error: Image nope not found.'),
    ('network-unknown', _boot('--network', 'nope'), {}, 3,
     'Error: Network nope not found.'),
    ('network-twice', _boot('--network', 'net1', '--network', 'net1'), {}, 2,
     _invalid('network: each may be given only once')),
    ('delete-unknown', ['delete', 'nope'], {}, 3, 'Error: Instance nope not found.'),
    ('show-other-uuid', ['show', '00000000-0000-0000-0000-000000000000'], {}, 3,
     'Error: Instance 00000000-0000-0000-0000-000000000000 not found.'),
    # -- sizes ---------------------------------------------------------------------
    ('volume-zero', _boot('--volume-size', '0'), {}, 2,
     _invalid('volume size (GiB) must be a whole number of at least 1, not 0')),
    ('volume-negative', _boot('--volume-size', '-5'), {}, 2,
     _invalid('volume size (GiB) must be a whole number of at least 1, not -5')),
    ('volume-huge', _boot('--volume-size', '1025'), {}, 2,
     _invalid('volume size (GiB) must be at most 1024, not 1025')),
    ('volume-not-a-number', _boot('--volume-size', 'abc'), {}, 2,
     "Error: argument --volume-size: invalid int value: 'abc' "
     '(see "provisioner boot --help")'),
    ('volume-too-many', _boot(*['--volume-size', '1'] * 9), {}, 2,
     _invalid('volume size (GiB): give between 0 and 8, not 9')),
    ('flavor-vcpus-zero', ['flavor', 'create', 'f1', '--vcpus', '0', '--ram', '128'], {},
     2, _invalid('vcpus must be a whole number of at least 1, not 0')),
    ('flavor-ram-negative', ['flavor', 'create', 'f1', '--vcpus', '1', '--ram', '-128'],
     {}, 2, _invalid('ram (MiB) must be a whole number of at least 1, not -128')),
    ('flavor-vcpus-huge', ['flavor', 'create', 'f1', '--vcpus', '257', '--ram', '128'],
     {}, 2, _invalid('vcpus must be at most 256, not 257')),
    ('flavor-disk-negative', ['flavor', 'create', 'f1', '--vcpus', '1', '--ram', '128',
                              '--disk', '-1'], {}, 2,
     _invalid('disk (GiB) must be a whole number of at least 0, not -1')),
    ('flavor-name-shell', ['flavor', 'create', 'f;id', '--vcpus', '1', '--ram', '128'],
     {}, 2, _bad_name('flavor name', 'f;id')),
    ('flavor-duplicate', ['flavor', 'create', 'tiny', '--vcpus', '1', '--ram', '128'],
     {}, 4, 'Error: Flavor tiny already exists.'),
    # -- user data and metadata -------------------------------------------------------
    ('user-data-oversized', lambda p: _boot('--user-data', p['big']), {}, 2,
     lambda p: _invalid('user data file %s is 65537 bytes; the limit is 65536'
                        % p['big'])),
    ('user-data-missing', _boot('--user-data', '/nonexistent/ud'), {}, 2,
     _invalid('cannot read user data file /nonexistent/ud: No such file or directory')),
    ('property-bad-key', _boot('--property', 'bad key=x'), {}, 2,
     _invalid("property key 'bad key' must be 1-255 letters, digits, '_', '.', ':' "
              "or '-'")),
    ('property-xml-key', _boot('--property', '<meta/>=x'), {}, 2,
     _invalid("property key '<meta/>' must be 1-255 letters, digits, '_', '.', ':' "
              "or '-'")),
    ('property-newline', _boot('--property', 'k=a\nb'), {}, 2,
     _invalid('property k must not contain control characters (newlines, tabs, NUL)')),
    ('property-no-value', _boot('--property', 'novalue'), {}, 2,
     _invalid("property 'novalue' must be KEY=VALUE")),
    ('property-oversized', _boot('--property', 'k=' + 'v' * 256), {}, 2,
     _invalid('property k is 256 characters long; the limit is 255')),
    # -- networks ------------------------------------------------------------------
    ('cidr-banana', ['network', 'create', 'n2', '--cidr', 'banana'], {}, 2,
     _invalid("CIDR 'banana' is not a valid IPv4 network: Expected 4 octets in "
              "'banana'")),
    ('cidr-host-bits', ['network', 'create', 'n2', '--cidr', '10.0.0.1/24'], {}, 2,
     _invalid("CIDR '10.0.0.1/24' is not a valid IPv4 network: 10.0.0.1/24 has host "
              "bits set")),
    ('cidr-prefix', ['network', 'create', 'n2', '--cidr', '10.0.0.0/33'], {}, 2,
     _invalid("CIDR '10.0.0.0/33' is not a valid IPv4 network: '33' is not a valid "
              "netmask")),
    ('cidr-too-small', ['network', 'create', 'n2', '--cidr', '10.0.0.0/30'], {}, 2,
     _invalid('CIDR 10.0.0.0/30 is too small: use a /29 or larger')),
    ('cidr-ipv6', ['network', 'create', 'n2', '--cidr', '::1/64'], {}, 2,
     _invalid("CIDR '::1/64' is not a valid IPv4 network: Expected 4 octets in '::1'")),
    ('gateway-garbage', ['network', 'create', 'n2', '--cidr', '10.0.0.0/24',
                         '--gateway', '<x>'], {}, 2,
     _invalid("gateway '<x>' is not an IPv4 address")),
    ('gateway-outside', ['network', 'create', 'n2', '--cidr', '10.0.0.0/24',
                         '--gateway', '10.9.9.9'], {}, 2,
     _invalid('gateway 10.9.9.9 is not a host address of 10.0.0.0/24')),
    ('network-name-xml', ['network', 'create', '<net>', '--cidr', '10.0.0.0/24'], {}, 2,
     _bad_name('network name', '<net>')),
    # The whole address space once spun a CPU for minutes: refused at once.
    ('cidr-everything', ['network', 'create', 'n2', '--cidr', '0.0.0.0/0'], {}, 2,
     _too_large('0.0.0.0/0')),
    ('cidr-slash-8', ['network', 'create', 'n2', '--cidr', '10.0.0.0/8'], {}, 2,
     _too_large('10.0.0.0/8')),
    # Special-purpose ranges once made host bridges on them, with a route.
    ('cidr-loopback', ['network', 'create', 'n2', '--cidr', '127.0.0.0/24'], {}, 2,
     _special('127.0.0.0/24', '127.0.0.0/8, loopback (RFC 1122)')),
    ('cidr-multicast', ['network', 'create', 'n2', '--cidr', '224.0.0.0/24'], {}, 2,
     _special('224.0.0.0/24', '224.0.0.0/4, multicast (RFC 5771)')),
    ('cidr-link-local', ['network', 'create', 'n2', '--cidr', '169.254.0.0/16'], {}, 2,
     _special('169.254.0.0/16', '169.254.0.0/16, link-local (RFC 3927)')),
    ('cidr-this-network', ['network', 'create', 'n2', '--cidr', '0.0.0.0/24'], {}, 2,
     _special('0.0.0.0/24', '0.0.0.0/8, "this network" (RFC 1122)')),
    ('cidr-reserved', ['network', 'create', 'n2', '--cidr', '240.0.0.0/24'], {}, 2,
     _special('240.0.0.0/24', _RESERVED)),
    ('cidr-broadcast', ['network', 'create', 'n2', '--cidr', '255.255.255.255/32'], {},
     2, _special('255.255.255.255/32', _RESERVED)),
    # -- image paths -------------------------------------------------------------------
    # The default [image] image_directories is $state_path/import, nothing else.
    ('image-shadow', ['image', 'create', 'i2', '--kernel', '/etc/shadow'], {}, 2,
     lambda p: _outside('/etc/shadow', p['images'])),
    ('image-traversal', lambda p: ['image', 'create', 'i2', '--kernel',
                                   p['images'] + '/../../../etc/shadow'], {}, 2,
     lambda p: _outside(p['images'] + '/../../../etc/shadow', p['images'])),
    ('image-symlink-escape', lambda p: ['image', 'create', 'i2', '--kernel', p['link']],
     {}, 2, lambda p: _outside(p['link'], p['images'])),
    ('image-missing', lambda p: ['image', 'create', 'i2', '--kernel',
                                 p['images'] + '/missing'], {}, 2,
     lambda p: _invalid('--kernel %s/missing does not exist or is not a file'
                        % p['images'])),
    ('image-cmdline-newline', lambda p: ['image', 'create', 'i2', '--kernel', p['kernel'],
                                         '--cmdline', 'console=ttyS0\ninit=/bin/sh'],
     {}, 2, _invalid('--cmdline must not contain control characters (newlines, tabs, '
                     'NUL)')),
    # -- credentials and tokens ----------------------------------------------------------
    ('wrong-password', ['list'], {'OS_PASSWORD': 'not-the-password'}, 5, BAD_CREDENTIALS),
    ('unknown-user', ['list'], {'OS_USERNAME': 'mallory'}, 5, BAD_CREDENTIALS),
    ('unknown-project', ['list'], {'OS_PROJECT_NAME': 'nope'}, 5, BAD_CREDENTIALS),
    ('expired-token', ['list'], 'expired', 5,
     'Error: Authentication failed: the token has expired'),
    ('tampered-token', ['list'], 'tampered', 5, INVALID_TOKEN),
    ('foreign-key-token', ['list'], 'foreign', 5, INVALID_TOKEN),
    ('garbage-token', ['list'], {'OS_TOKEN': '<token>' * 300}, 5, INVALID_TOKEN),
    # -- roles -----------------------------------------------------------------------
    ('reader-boots', _boot(), 'reader', 6,
     'Error: Not allowed: the policy does not allow instance:boot for roles reader in '
     'project hostile-p'),
    ('reader-creates-flavor', ['flavor', 'create', 'f1', '--vcpus', '1', '--ram', '128'],
     'reader', 6, 'Error: Not allowed: the policy does not allow flavor:create for '
                  'roles reader in project hostile-p'),
    ('short-password', ['user', 'create', 'u2', '--password', 'short'], {}, 2,
     _invalid('password must be at least 8 characters long')),
    ('unknown-role', ['role', 'add', '--user', 'reader1', '--project', 'hostile-p',
                      '--role', 'owner'], {}, 2,
     _invalid("role must be one of admin, member, reader, service, not 'owner'")),
]


def _database(cloud):
    """Every row of every table, as comparable text."""
    with sqlite3.connect(cloud.state_path / 'provisioner.sqlite') as db:
        tables = [t for (t,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {t: sorted(map(repr, db.execute('SELECT * FROM "%s"' % t)))
                for t in tables}


def _libvirt(cloud):
    conn = conftest._libvirt_connection()
    try:
        found = sorted(d.name() for d in
                       conftest.domains_mentioning(conn, str(cloud.state_path)))
        found += sorted('network %s' % n.name() for n in conn.listAllNetworks()
                        if n.name().startswith(cloud.prefix))
        for pool in conn.listAllStoragePools():
            if pool.name().startswith(cloud.prefix):
                found.append('pool %s' % pool.name())
                if pool.isActive():
                    pool.refresh(0)
                    found += sorted('volume %s' % v for v in pool.listVolumes())
        return found
    finally:
        conn.close()


def _host(cloud):
    """This deployment's bridges (with their routes) and image cache files."""
    head = cloud.prefix[:5]  # a bridge name keeps at least this much of the prefix
    found = sorted('route %s dev %s' % (route, dev) for route, dev in host_routes.routes()
                   if dev.startswith(head))
    found += sorted('bridge %s' % dev for dev in os.listdir('/sys/class/net')
                    if dev.startswith(head))
    cache = cloud.state_path / 'images'
    found += sorted('cached %s' % f for f in (os.listdir(cache) if cache.exists() else ()))
    return found


def _token(cloud, expires_in, key=None):
    """A token as the engine would make it, signed with ``key`` (default: primary)."""
    repo = cloud.state_path / 'fernet-keys'
    if key is None:
        key = (repo / str(max(int(k) for k in os.listdir(repo)))).read_bytes()
    with sqlite3.connect(cloud.state_path / 'provisioner.sqlite') as db:
        user_id, project_id = db.execute(
            "SELECT r.user_id, r.project_id FROM role_assignments r JOIN users u "
            "ON u.id = r.user_id WHERE u.name = 'admin'").fetchone()
    now = time.time()
    payload = json.dumps([1, user_id, project_id, now - 7200, now + expires_in])
    return fernet.Fernet(key).encrypt(payload.encode()).decode()


@pytest.fixture(scope='module')
def hostile(cloud, guest_image, tmp_path_factory):
    """Paths and environments the table refers to; made before any snapshot."""
    files = tmp_path_factory.mktemp('hostile')
    images = os.path.realpath(cloud.import_dir)
    link = files / 'kernel-link'
    link.symlink_to('/etc/passwd')
    big = files / 'big-user-data'
    big.write_bytes(b'x' * (64 * 1024 + 1))
    cloud.cli('project', 'create', 'hostile-p')
    cloud.cli('user', 'create', 'reader1', '--password', 'reader1-secret')
    cloud.cli('role', 'add', '--user', 'reader1', '--project', 'hostile-p',
              '--role', 'reader')
    valid = _token(cloud, 3600)
    tampered = valid[:30] + ('A' if valid[30] != 'A' else 'B') + valid[31:]
    envs = {
        'expired': {'OS_TOKEN': _token(cloud, -60)},
        'tampered': {'OS_TOKEN': tampered},
        'foreign': {'OS_TOKEN': _token(cloud, 3600, fernet.Fernet.generate_key())},
        'reader': {'OS_USERNAME': 'reader1', 'OS_PASSWORD': 'reader1-secret',
                   'OS_PROJECT_NAME': 'hostile-p'},
    }
    return {'paths': {'images': images, 'link': str(link), 'big': str(big),
                      'kernel': os.path.join(images, guest_image[0].name),
                      'cidr': cloud.cidr},
            'envs': envs,
            # The table runs with the default [image] image_directories.
            'env': {}}


def test_table_has_at_least_forty_rows():
    assert len(CASES) >= 40 and len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize('case', CASES, ids=[c[0] for c in CASES])
def test_hostile_input_is_refused_exactly_and_changes_nothing(cloud, hostile, case):
    _name, argv, env, code, message = case
    paths = hostile['paths']
    argv = argv(paths) if callable(argv) else argv
    message = message(paths) if callable(message) else message
    env = dict(hostile['env'], **(hostile['envs'][env] if isinstance(env, str) else env))
    database, hypervisor, host = _database(cloud), _libvirt(cloud), _host(cloud)

    started = time.monotonic()
    result = cloud.cli(*argv, env=env, check=False, timeout=60)

    assert (result.returncode, result.stderr.strip()) == (code, message)
    assert time.monotonic() - started < 20  # refused at once, not after a scan
    assert len(result.stderr.strip().splitlines()) == 1 or '\n' in message
    assert _database(cloud) == database
    assert _libvirt(cloud) == hypervisor
    assert _host(cloud) == host
