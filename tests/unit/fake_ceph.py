"""Fakes of Debian's rados and rbd bindings, for unit tests only: pools of images
held in memory, with snapshots, protection and copy-on-write clones, enough of the
API provisioner.image.rbd_store uses. ``install(monkeypatch)`` puts them in
sys.modules and returns the cluster (``cluster.down = True``: connect times out)."""

import sys
import types


class FakeCluster:
    def __init__(self, pools=('images', 'volumes', 'vms')):
        self.pools = {pool: {} for pool in pools}
        self.down = False
        self.connections = []   # (rados_id, conffile, conf) of every connect
        self.fsid = '11111111-2222-3333-4444-555555555555'

    def images(self, pool):
        return sorted(self.pools[pool])


class _Data:
    def __init__(self, size, parent=None):
        self.size = size
        self.blocks = {}          # offset -> bytes written there
        self.snaps = {}           # name -> protected
        self.parent = parent      # (pool, name, snap)
        self.writes = 0


def make_modules(cluster):
    rados = types.ModuleType('rados')
    rbd = types.ModuleType('rbd')

    class Error(Exception):
        pass

    class ObjectNotFound(Error):
        pass

    class TimedOut(Error):
        pass

    rados.Error, rados.ObjectNotFound, rados.TimedOut = Error, ObjectNotFound, TimedOut

    class Ioctx:
        def __init__(self, pool):
            self.pool = pool

        def close(self):
            pass

    class Rados:
        def __init__(self, rados_id=None, conffile=None, conf=None):
            self.args = (rados_id, conffile, dict(conf or {}))

        def connect(self, timeout=None):
            if cluster.down:
                raise TimedOut('[errno 110] RADOS timed out (error connecting to the '
                               'cluster)')
            cluster.connections.append(self.args)

        def open_ioctx(self, pool):
            if pool not in cluster.pools:
                raise ObjectNotFound('pool %s' % pool)
            return Ioctx(pool)

        def get_fsid(self):
            return cluster.fsid

        def shutdown(self):
            pass

    rados.Rados = Rados

    class RbdError(Exception):
        pass

    class ImageNotFound(RbdError):
        pass

    class ImageExists(RbdError):
        pass

    class ImageBusy(RbdError):
        pass

    rbd.Error, rbd.ImageNotFound, rbd.ImageExists = RbdError, ImageNotFound, ImageExists
    rbd.ImageBusy = ImageBusy
    rbd.RBD_FEATURE_LAYERING = 1

    def children_of(pool, name, snap):
        return [{'pool': p, 'image': n} for p, images in cluster.pools.items()
                for n, d in images.items() if d.parent == (pool, name, snap)]

    class RBD:
        def create(self, io, name, size, old_format=True):
            if name in cluster.pools[io.pool]:
                raise ImageExists(name)
            cluster.pools[io.pool][name] = _Data(size)

        def clone(self, p_io, p_name, p_snap, c_io, c_name, features=None):
            parent = cluster.pools[p_io.pool].get(p_name)
            if parent is None or p_snap not in parent.snaps:
                raise ImageNotFound(p_name)
            if not parent.snaps[p_snap]:
                raise RbdError('the parent snapshot is not protected')
            if c_name in cluster.pools[c_io.pool]:
                raise ImageExists(c_name)
            cluster.pools[c_io.pool][c_name] = _Data(parent.size,
                                                     (p_io.pool, p_name, p_snap))

        def remove(self, io, name):
            data = cluster.pools[io.pool].get(name)
            if data is None:
                raise ImageNotFound(name)
            if data.snaps:
                raise RbdError('image has snapshots')
            del cluster.pools[io.pool][name]

        def rename(self, io, old, new):
            cluster.pools[io.pool][new] = cluster.pools[io.pool].pop(old)

    class Image:
        def __init__(self, io, name, snapshot=None, read_only=False):
            if name not in cluster.pools[io.pool]:
                raise ImageNotFound(name)
            self.pool, self.name, self.snap = io.pool, name, snapshot
            self.data = cluster.pools[io.pool][name]

        def __enter__(self):
            return self

        def __exit__(self, *exc_info):
            self.close()

        def close(self):
            pass

        def size(self):
            return self.data.size

        def resize(self, size):
            self.data.size = size

        def write(self, data, offset):
            self.data.blocks[offset] = bytes(data)
            self.data.writes += 1

        def read(self, offset, length):
            out = bytearray(length)
            for start, block in self.data.blocks.items():
                for i, byte in enumerate(block):
                    if offset <= start + i < offset + length:
                        out[start + i - offset] = byte
            return bytes(out)

        def create_snap(self, name):
            self.data.snaps[name] = False

        def protect_snap(self, name):
            self.data.snaps[name] = True

        def unprotect_snap(self, name):
            if children_of(self.pool, self.name, name):
                raise ImageBusy(name)
            self.data.snaps[name] = False

        def is_protected_snap(self, name):
            return self.data.snaps[name]

        def remove_snap(self, name):
            if self.data.snaps[name]:
                raise RbdError('protected')
            del self.data.snaps[name]

        def list_snaps(self):
            return [{'name': name} for name in self.data.snaps]

        def set_snap(self, name):
            self.snap = name

        def list_children2(self):
            return children_of(self.pool, self.name, self.snap)

    rbd.RBD, rbd.Image = RBD, Image
    return rados, rbd


def install(monkeypatch, cluster=None):
    cluster = cluster or FakeCluster()
    rados, rbd = make_modules(cluster)
    monkeypatch.setitem(sys.modules, 'rados', rados)
    monkeypatch.setitem(sys.modules, 'rbd', rbd)
    return cluster
