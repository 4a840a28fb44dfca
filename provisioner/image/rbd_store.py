"""Ceph RBD through librados/librbd (Debian's python3-rados and python3-rbd).

What the services keep in Ceph, by name only:
    images/<image id>@snap         an uploaded image, raw, with a protected snapshot
                                   (Glance's rbd store; its location
                                   rbd://<fsid>/<pool>/<image id>/snap)
    vms/<instance uuid>_disk       a root disk: a copy-on-write clone of the snapshot
                                   (Nova's images_type = rbd)
    volumes/volume-<id>            a volume (Cinder's RBD driver)

Every call connects as [ceph] user with the keyring this process's config names and
is bounded by [ceph] connect_timeout: a cluster that is down fails the operation with
CephUnavailable (a fault that names Ceph), never a hang. The key is read by librados
from the keyring file, and by ``key()`` only to hand it to this host's libvirt.
"""

import base64
import contextlib
import logging
import re

from provisioner.conf import CONF
from provisioner import exception

LOG = logging.getLogger(__name__)

SNAPSHOT = 'snap'  # Glance's rbd store's snapshot name
SCHEME = 'rbd://'
_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$')


class CephUnavailable(exception.ProvisionerError):
    """The cluster did not answer (down, unreachable, or the key was refused)."""

    msg_fmt = ('The Ceph cluster (%(conf)s) could not be reached as client.%(user)s: '
               '%(reason)s')
    http_status = 503
    reschedulable = False  # every host shares the one cluster


class CephError(exception.ProvisionerError):
    msg_fmt = 'Ceph RBD %(doing)s failed: %(reason)s'


class ImageInUse(exception.Conflict):
    msg_fmt = ('Image %(image)s is in use: its RBD snapshot has clones (%(clones)s); '
               'delete the servers and volumes made from it first.')


def _bindings():
    try:
        import rados
        import rbd
    except ImportError as exc:
        raise CephUnavailable(conf=CONF.ceph.conf_file, user=CONF.ceph.user,
                              reason='the Ceph Python bindings are not installed (%s): '
                                     'install python3-rados and python3-rbd and run '
                                     'tools/link-ceph-bindings' % exc) from None
    return rados, rbd


def _unavailable(exc):
    return CephUnavailable(conf=CONF.ceph.conf_file, user=CONF.ceph.user,
                           reason='%s: %s' % (type(exc).__name__, exc))


@contextlib.contextmanager
def connected():
    """A connection to the cluster, for this call only."""
    rados, rbd = _bindings()
    timeout = str(CONF.ceph.connect_timeout)
    options = {'rados_mon_op_timeout': timeout, 'rados_osd_op_timeout': timeout,
               'client_mount_timeout': timeout}
    if CONF.ceph.keyring:
        options['keyring'] = CONF.ceph.keyring
    try:
        cluster = rados.Rados(rados_id=CONF.ceph.user, conffile=CONF.ceph.conf_file,
                              conf=options)
        cluster.connect(timeout=CONF.ceph.connect_timeout)
    except (rados.Error, OSError) as exc:
        raise _unavailable(exc) from None
    try:
        yield cluster
    except rados.TimedOut as exc:
        raise _unavailable(exc) from None
    except (rados.Error, rbd.Error) as exc:
        raise CephError(doing='work', reason='%s: %s' % (type(exc).__name__, exc)) \
            from None
    finally:
        cluster.shutdown()


@contextlib.contextmanager
def ioctx(pool):
    """An I/O context on ``pool``, connected for this call only."""
    rados, _ = _bindings()
    with connected() as cluster:
        try:
            io = cluster.open_ioctx(pool)
        except rados.ObjectNotFound:
            raise CephError(doing='opening pool %s' % pool,
                            reason='the pool does not exist') from None
        try:
            yield io
        finally:
            io.close()


def fsid():
    with connected() as cluster:
        return cluster.get_fsid()


def check_name(name):
    if not _NAME.fullmatch(name or ''):
        raise exception.Invalid(reason='%r cannot name an RBD image' % (name,))
    return name


# -- locations and specs --------------------------------------------------------

def location(cluster_fsid, pool, name, snapshot=SNAPSHOT):
    """Glance's rbd store location of an image."""
    return '%s%s/%s/%s/%s' % (SCHEME, cluster_fsid, pool, name, snapshot)


def is_location(path):
    return bool(path) and path.startswith(SCHEME)


def parse_location(url):
    """(pool, image, snapshot) of an rbd:// location."""
    parts = url[len(SCHEME):].split('/') if is_location(url) else []
    if len(parts) != 4 or not all(map(_NAME.fullmatch, parts[1:])):
        raise exception.Invalid(reason='%r is not an RBD image location' % (url,))
    return parts[1], parts[2], parts[3]


def spec(pool, name):
    """What a disk's "path" is when it lives in RBD: rbd:<pool>/<image>."""
    return 'rbd:%s/%s' % (pool, name)


def is_spec(path):
    return bool(path) and path.startswith('rbd:') and not is_location(path)


def parse_spec(path):
    pool, _, name = path[len('rbd:'):].partition('/')
    return check_name(pool), check_name(name)


# -- images ---------------------------------------------------------------------

def exists(pool, name):
    _, rbd = _bindings()
    with ioctx(pool) as io:
        try:
            rbd.Image(io, name, read_only=True).close()
        except rbd.ImageNotFound:
            return False
    return True


def create(pool, name, size):
    """A blank image of ``size`` bytes; an existing one of that name is kept."""
    _, rbd = _bindings()
    with ioctx(pool) as io:
        try:
            rbd.RBD().create(io, check_name(name), size, old_format=False)
        except rbd.ImageExists:
            pass


def import_raw(pool, name, source, size, chunk=4 * 1024 * 1024, on_chunk=None):
    """Write ``size`` bytes from the binary stream ``source`` into a new image
    ``name`` (any earlier one of that name, an upload cut short, is replaced), then
    snapshot and protect it. All-zero chunks are skipped: the image stays sparse.
    ``on_chunk(data)`` sees every chunk (to hash it)."""
    _, rbd = _bindings()
    remove(pool, name)
    with ioctx(pool) as io:
        rbd.RBD().create(io, check_name(name), size, old_format=False)
        with rbd.Image(io, name) as image:
            offset = 0
            zero = bytes(chunk)
            while offset < size:
                data = source.read(min(chunk, size - offset))
                if not data:
                    raise CephError(doing='import of %s/%s' % (pool, name),
                                    reason='the data ended after %d of %d bytes'
                                           % (offset, size))
                if on_chunk is not None:
                    on_chunk(data)
                if data != zero[:len(data)]:
                    image.write(data, offset)
                offset += len(data)
            image.create_snap(SNAPSHOT)
            image.protect_snap(SNAPSHOT)


def _children(image):
    if hasattr(image, 'list_children2'):
        return ['%s/%s' % (c['pool'], c['image']) for c in image.list_children2()]
    return ['%s/%s' % child for child in image.list_children()]


def remove(pool, name, image_id=None):
    """Remove the image and its snapshots; absent is fine. ImageInUse while a
    snapshot has clones (nothing is removed then)."""
    _, rbd = _bindings()
    with ioctx(pool) as io:
        try:
            image = rbd.Image(io, check_name(name))
        except rbd.ImageNotFound:
            return False
        with image:
            snaps = list(image.list_snaps())
            for snap in snaps:
                image.set_snap(snap['name'])
                clones = _children(image)
                image.set_snap(None)
                if clones:
                    raise ImageInUse(image=image_id or name, clones=', '.join(clones))
            for snap in snaps:
                if image.is_protected_snap(snap['name']):
                    image.unprotect_snap(snap['name'])
                image.remove_snap(snap['name'])
        try:
            rbd.RBD().remove(io, name)
        except rbd.ImageNotFound:
            return False
    return True


def rename(pool, old, new):
    _, rbd = _bindings()
    with ioctx(pool) as io:
        rbd.RBD().rename(io, check_name(old), check_name(new))


def clone(parent_location, pool, name, size):
    """``pool/name``: a copy-on-write clone of the image's protected snapshot, grown to
    ``size`` bytes if smaller; an existing clone of that name is adopted. Its spec."""
    _, rbd = _bindings()
    parent_pool, parent, snapshot = parse_location(parent_location)
    with ioctx(parent_pool) as parent_io, ioctx(pool) as io:
        try:
            rbd.RBD().clone(parent_io, parent, snapshot, io, check_name(name),
                            features=rbd.RBD_FEATURE_LAYERING)
        except rbd.ImageExists:
            LOG.info('RBD image %s/%s exists: adopted', pool, name)
        except rbd.ImageNotFound:
            raise exception.ImageInvalid(
                image=parent, reason='its RBD snapshot %s/%s@%s is gone'
                                     % (parent_pool, parent, snapshot)) from None
        _grow(rbd, io, name, size)
    return spec(pool, name)


def snapshot(pool, name, snap):
    """A protected snapshot ``snap`` of ``pool/name`` (one that exists is kept)."""
    _, rbd = _bindings()
    with ioctx(pool) as io, rbd.Image(io, check_name(name)) as image:
        if snap not in {s['name'] for s in image.list_snaps()}:
            image.create_snap(check_name(snap))
        if not image.is_protected_snap(snap):
            image.protect_snap(snap)


def remove_snapshot(pool, name, snap):
    """Unprotect and remove the snapshot; absent (or its image gone) is fine."""
    _, rbd = _bindings()
    with ioctx(pool) as io:
        try:
            image = rbd.Image(io, check_name(name))
        except rbd.ImageNotFound:
            return
        with image:
            if snap not in {s['name'] for s in image.list_snaps()}:
                return
            if image.is_protected_snap(snap):
                image.unprotect_snap(snap)
            image.remove_snap(snap)


def flat_copy(pool, name, snap, dest_pool, dest_name):
    """``dest_pool/dest_name``: a clone of ``pool/name@snap`` made independent of
    it (flattened), with Glance's protected snapshot: what Nova's direct snapshot
    makes of a root disk. One that has that snapshot is adopted; a copy cut short
    is made again. Its location."""
    _, rbd = _bindings()
    with ioctx(dest_pool) as io:
        try:
            with rbd.Image(io, check_name(dest_name), read_only=True) as made:
                done = SNAPSHOT in {s['name'] for s in made.list_snaps()}
        except rbd.ImageNotFound:
            done = None
    if not done:
        if done is not None:
            remove(dest_pool, dest_name)
        with ioctx(pool) as parent_io, ioctx(dest_pool) as io:
            rbd.RBD().clone(parent_io, name, snap, io, dest_name,
                            features=rbd.RBD_FEATURE_LAYERING)
            with rbd.Image(io, dest_name) as image:
                image.flatten()
                image.create_snap(SNAPSHOT)
                image.protect_snap(SNAPSHOT)
    return location(fsid(), dest_pool, dest_name)


def grow(pool, name, size):
    _, rbd = _bindings()
    with ioctx(pool) as io:
        _grow(rbd, io, name, size)


def _grow(rbd, io, name, size):
    with rbd.Image(io, name) as image:
        if image.size() < size:
            image.resize(size)


def size_of(pool, name):
    _, rbd = _bindings()
    with ioctx(pool) as io, rbd.Image(io, check_name(name), read_only=True) as image:
        return image.size()


class Reader:
    """An image's bytes as a WSGI app_iter (or a stream: ``read``), read from RBD
    in chunks while they are sent; the connection is closed with the response."""

    def __init__(self, url, chunk=4 * 1024 * 1024):
        _, rbd = _bindings()
        pool, name, snapshot = parse_location(url)
        self._stack = contextlib.ExitStack()
        try:
            io = self._stack.enter_context(ioctx(pool))
            self._image = self._stack.enter_context(
                rbd.Image(io, name, snapshot=snapshot, read_only=True))
            self.size = self._image.size()
        except BaseException:
            self._stack.close()
            raise
        self.chunk = chunk
        self._offset = 0

    def read(self, length=-1):
        if length is None or length < 0:
            length = self.size - self._offset
        length = min(length, self.size - self._offset)
        data = self._image.read(self._offset, length) if length > 0 else b''
        self._offset += len(data)
        return data

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __iter__(self):
        offset = 0
        while offset < self.size:
            data = self._image.read(offset, min(self.chunk, self.size - offset))
            if not data:
                break
            offset += len(data)
            yield data

    def close(self):
        self._stack.close()


# -- what a host gives its libvirt ----------------------------------------------

def _conf_sections(path):
    """{section: {key: value}} of a Ceph conf or keyring file (keys normalised:
    spaces and dashes become underscores, as Ceph reads them)."""
    current = {}
    sections = {'global': current}
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0].split(';', 1)[0].strip()
            if line.startswith('[') and line.endswith(']'):
                current = sections.setdefault(line[1:-1].strip(), {})
            elif '=' in line:
                key, value = line.split('=', 1)
                key = re.sub(r'[\s-]+', '_', key.strip())
                current[key] = value.strip()
    return sections


def _client_setting(sections, key):
    for section in ('client.%s' % CONF.ceph.user, 'client', 'global'):
        if key in sections.get(section, {}):
            return sections[section][key]
    return None


def monitors(conf_file=None):
    """[(address, port)] of the monitors in the conf file, their msgr1 (legacy)
    addresses when given, for libvirt's <host> elements."""
    sections = _conf_sections(conf_file or CONF.ceph.conf_file)
    mon_host = _client_setting(sections, 'mon_host') or ''
    found = []
    for entry in re.split(r'[,\s]+', mon_host.strip('[] ')):
        entry = entry.strip('[]')
        if not entry or entry.startswith('v2:'):
            continue
        address = entry[3:] if entry.startswith('v1:') else entry
        address = address.split('/', 1)[0]
        host, _, port = address.rpartition(':') if address.count(':') == 1 \
            else (address, '', '')
        host = host.strip('[]') or address
        found.append((host, port or '6789'))
    if not found:
        raise CephUnavailable(conf=CONF.ceph.conf_file, user=CONF.ceph.user,
                              reason='the conf file names no monitor (mon host)')
    return found


def keyring_path():
    if CONF.ceph.keyring:
        return CONF.ceph.keyring
    path = _client_setting(_conf_sections(CONF.ceph.conf_file), 'keyring')
    if not path:
        raise CephUnavailable(conf=CONF.ceph.conf_file, user=CONF.ceph.user,
                              reason='no keyring: set [ceph] keyring')
    return path.replace('$name', 'client.%s' % CONF.ceph.user)


def key():
    """The user's cephx key as bytes (the decoded base64 of the keyring's ``key``),
    for this host's libvirt secret only."""
    path = keyring_path()
    try:
        text = _conf_sections(path).get('client.%s' % CONF.ceph.user, {}).get('key')
    except OSError as exc:
        raise CephUnavailable(conf=CONF.ceph.conf_file, user=CONF.ceph.user,
                              reason='the keyring %s cannot be read: %s'
                                     % (path, exc.strerror)) from None
    if not text:
        raise CephUnavailable(conf=CONF.ceph.conf_file, user=CONF.ceph.user,
                              reason='the keyring %s has no key for client.%s'
                                     % (path, CONF.ceph.user))
    return base64.b64decode(text)
