"""Snapshots and copies of volumes, file backend: full qcow2 copies in the host's
volume pool (``snapshot-<id>.qcow2`` next to ``volume-<id>.qcow2``).

A mixin of the driver: another backend (RBD: a snapshot and a clone) gives the
same three calls. Every call is idempotent: a copy already made is adopted.
"""

from provisioner import exception
from provisioner.virt.libvirt import storage

GIB = 1024 ** 3


class VolumeCopies:
    def _source_path(self, kind, name):
        pool = self._pool('volumes', create=False)
        path = pool and storage.volume_path(pool, name)
        if not path:
            raise exception.HypervisorError(reason='%s %s has no file on this host'
                                                   % (kind, name))
        return path

    def snapshot_volume(self, volume_id, snapshot_id):
        """A full copy of the volume's file (the guest may be writing to it);
        its path."""
        pool = self._pool('volumes', create=True)
        name = self._snapshot_name(snapshot_id)
        existing = storage.volume_path(pool, name)
        if existing:
            return existing
        storage.copy_into(pool, name, self._source_path(
            'volume', self._volume_name(volume_id)), 'qcow2', force_share=True)
        return storage.volume_path(pool, name)

    def delete_volume_snapshot(self, snapshot_id):
        pool = self._pool('volumes', create=False)
        if pool is not None:
            storage.delete_volume(pool, self._snapshot_name(snapshot_id))

    def copy_volume(self, volume_id, size_gib, source_snapshot_id=None,
                    source_volume_id=None):
        """The volume's file, a full copy of a snapshot's or another volume's
        (which a guest may be writing to), grown to ``size_gib``; its path."""
        pool = self._pool('volumes', create=True)
        name = self._volume_name(volume_id)
        if not storage.lookup_volume(pool, name):
            source = self._source_path(*(
                ('snapshot', self._snapshot_name(source_snapshot_id))
                if source_snapshot_id else
                ('volume', self._volume_name(source_volume_id))))
            storage.copy_into(pool, name, source, 'qcow2', force_share=True)
        storage.grow_volume(pool, name, int(size_gib) * GIB)
        return storage.volume_path(pool, name)
