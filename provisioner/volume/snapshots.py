"""Cinder's volume snapshots, and volumes made from a snapshot or another volume.

A volume's bytes live on one host (provisioner.volume.api), so its snapshot is a
full copy of its file made there by the snapshot flow (creating -> available), and
a volume made from a snapshot or from another volume is copied on that host by the
copy flow (creating -> available), bound to it from then on. A volume with no bytes
yet (never attached) has nothing to copy: its snapshot, and a volume made from
either, take its source (its image, or blank) and are available at once.

Quota (Cinder's): a snapshot counts its volume's size against the project's
gigabytes (provisioner's ``volumes_gib``); the number of snapshots is not limited.
Every check and its status change are one conditional UPDATE, as for volumes.
"""

import uuid

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import policy
from provisioner import schemas
from provisioner.quota import counters
from provisioner import validation
from provisioner.volume import rules

CREATING = 'creating'
AVAILABLE = 'available'
DELETING = 'deleting'
ERROR = 'error'
ERROR_DELETING = 'error_deleting'
_DELETABLE = (AVAILABLE, ERROR, ERROR_DELETING)

_TEXT = {'type': ['string', 'null'], 'maxLength': 255,
         'errorMessage': '{key} must be a string of at most 255 characters'}
CREATE = schemas.request('snapshot create', {
    'name': _TEXT, 'description': _TEXT, 'metadata': rules.METADATA})
UPDATE = schemas.request('snapshot update', {
    'name': _TEXT, 'description': _TEXT, 'metadata': rules.METADATA})
_TRUE = ('1', 't', 'true', 'on', 'y', 'yes')
_FALSE = ('0', 'f', 'false', 'off', 'n', 'no')


def parse_force(value):
    """Cinder's strict boolean of ``force`` (400 for anything else)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise exception.Invalid(reason="Invalid value '%s' for force." % value)


def describe(project_id=None, snapshot_id=None, volume_id=None):
    """Snapshots (of a project, of a volume, or one), oldest first, as dicts."""
    snap = models.VolumeSnapshot
    query = sa.select(snap).order_by(snap.created_at, snap.id)
    if project_id is not None:
        query = query.where(snap.project_id == project_id)
    if snapshot_id is not None:
        query = query.where(snap.id == snapshot_id)
    if volume_id is not None:
        query = query.where(snap.volume_id == volume_id)
    with db_api.transaction() as session:
        return [_describe(row) for row in session.execute(query).scalars()]


def _describe(row):
    return {'id': row.id, 'volume_id': row.volume_id, 'project_id': row.project_id,
            'user_id': row.user_id, 'name': row.name, 'description': row.description,
            'size_gib': row.size_gib, 'status': row.status, 'host': row.host,
            'metadata': dict(row.properties or {}), 'created_at': row.created_at,
            'updated_at': row.updated_at, 'progress': row.progress}


def _volume_host(session, vol):
    """Where a volume's bytes live: its own host, or its server's for a boot's
    volume; None when it has none yet."""
    if vol.host is not None or vol.index is None:
        return vol.host
    inst = session.get(models.Instance, vol.instance_id)
    return inst and inst.host


class SnapshotAPI(rules.Described):
    """What a user may do with snapshots (policy checked here)."""

    update_schema = UPDATE
    update_action = metadata_action = 'volume:update_snapshot'

    def __init__(self, context):
        self.context = context

    def _get(self, session, snapshot_id, action):
        return rules.get_owned(self.context, session, models.VolumeSnapshot,
                               'Snapshot', snapshot_id, action)

    def create(self, volume_id, name=None, description=None, metadata=None,
               force=False):
        """Record a snapshot; (its id, whether the snapshot flow must copy bytes)."""
        policy.authorize(self.context, 'volume:create_snapshot')
        validation.check({'name': name, 'description': description,
                          'metadata': metadata}, CREATE)
        force = parse_force(force)
        with db_api.transaction() as session:
            vol = rules.get_volume(self.context, session, volume_id,
                                   'volume:create_snapshot')
            allowed = (rules.AVAILABLE, rules.IN_USE) if force \
                else (rules.AVAILABLE,)
            if vol.status not in allowed:
                raise exception.InvalidVolume(
                    reason='Volume %s status must be %s, but current status is: %s.'
                           % (volume_id, ' or '.join(allowed), vol.status))
            counters.count(session, self.context.project_id,
                           {'volumes_gib': vol.size_gib}, self.context.project_name,
                           error=counters.VolumeOverQuota)
            rules.check_count(session, self.context.project_id, models.VolumeSnapshot,
                              'snapshots')
            host = _volume_host(session, vol)
            snapshot_id = str(uuid.uuid4())
            session.add(models.VolumeSnapshot(
                id=snapshot_id, volume_id=volume_id, project_id=self.context.project_id,
                user_id=self.context.user_id, name=name, description=description,
                size_gib=vol.size_gib, status=CREATING if host else AVAILABLE,
                host=host, image_id=vol.image_id, properties=metadata or None,
                updated_at=models.utcnow()))
        return snapshot_id, host is not None

    def request_delete(self, snapshot_id, force=False):
        """Forget a snapshot of no bytes at once; mark one with bytes ``deleting``
        for the delete flow. True when that flow must run. ``force`` (admins'
        os-force_delete): whatever its status."""
        with db_api.transaction() as session:
            row = self._get(session, snapshot_id, 'volume:force_delete' if force
                            else 'volume:delete_snapshot')
            return mark_deleting(session, row, (row.status,) if force else _DELETABLE)


def mark_deleting(session, row, deletable=_DELETABLE):
    """One snapshot to delete, in the caller's transaction (a volume's cascade
    too): True when its delete flow must run."""
    taken = session.execute(
        sa.update(models.VolumeSnapshot)
        .where(models.VolumeSnapshot.id == row.id,
               models.VolumeSnapshot.status.in_(deletable))
        .values(status=DELETING, updated_at=models.utcnow()))
    if taken.rowcount != 1:
        raise exception.InvalidSnapshot(
            reason='Snapshot status must be available or error and must not be part '
                   'of a group; snapshot %s is %s.' % (row.id, row.status))
    if row.host is None:
        _forget(session, row)
        return False
    return True


def _forget(session, row):
    counters.uncount(session, row.project_id, {'volumes_gib': row.size_gib})
    session.delete(row)


def of_volume(session, volume_id):
    return list(session.execute(
        sa.select(models.VolumeSnapshot)
        .where(models.VolumeSnapshot.volume_id == volume_id)).scalars())


# -- a volume made from a snapshot or from another volume ---------------------------

def source_for_volume(context, session, size, snapshot_id, source_volid):
    """What a new volume takes from its snapshot or volume: the row's fields
    (size, host, status, image), and whether the copy flow must make its bytes.
    Cinder's 404 for a source that does not exist, 400 for one not available or a
    size smaller than the source's."""
    if snapshot_id:
        src = SnapshotAPI(context)._get(session, snapshot_id, 'instance:show')
        what, ok = 'snapshot', src.status == AVAILABLE
        image_id, kind = src.image_id, 'Originating snapshot'
    else:
        src = rules.get_volume(context, session, source_volid, 'instance:show')
        what, ok = 'volume', src.status in (rules.AVAILABLE, rules.IN_USE)
        image_id, kind = src.image_id, 'Source volume'
    if not ok:
        raise exception.InvalidVolume(
            reason="%s status must be 'available' to create a volume from it, not "
                   "'%s'." % (kind, src.status))
    size = src.size_gib if size is None else size
    if size < src.size_gib:
        raise exception.Invalid(
            reason="Volume size '%d'GB cannot be smaller than the %s size %dGB. They "
                   "must be >= original %s size." % (size, what, src.size_gib, what))
    host = src.host if snapshot_id else _volume_host(session, src)
    image = session.get(models.Image, image_id) if image_id else None
    fields = {'size_gib': size, 'host': host, 'image_id': image_id,
              'bootable': image_id is not None, 'snapshot_id': snapshot_id or None,
              'source_volid': source_volid or None,
              'status': CREATING if host else rules.AVAILABLE,
              'image_metadata': rules.image_metadata_of(image) if image else None}
    return fields, host is not None


# -- the rows the snapshot and copy flows write (engine side) -----------------------

def _set(snapshot_id, **values):
    with db_api.transaction() as session:
        session.execute(sa.update(models.VolumeSnapshot)
                        .where(models.VolumeSnapshot.id == snapshot_id)
                        .values(updated_at=models.utcnow(), **values))


def mark(snapshot_id, status):
    _set(snapshot_id, status=status)


def forget(snapshot_id):
    """The delete flow's end: the row goes, its gigabytes go back; gone is fine."""
    with db_api.transaction() as session:
        row = session.get(models.VolumeSnapshot, snapshot_id)
        if row is not None:
            _forget(session, row)


def copy_source(volume_id):
    """The copy flow's payload fields: the new volume's size and its source."""
    with db_api.transaction() as session:
        row = session.get(models.Volume, volume_id)
        return {'size_gib': row.size_gib, 'source_snapshot_id': row.snapshot_id,
                'source_volume_id': row.source_volid}


def pending(status):
    """Snapshots in ``status`` (creating, deleting): their flows to resume."""
    with db_api.transaction() as session:
        return list(session.execute(
            sa.select(models.VolumeSnapshot.id)
            .where(models.VolumeSnapshot.status == status)
            .order_by(models.VolumeSnapshot.updated_at)).scalars())


def copies_pending():
    """Volumes whose copy (from a snapshot or volume) has not finished."""
    with db_api.transaction() as session:
        return list(session.execute(
            sa.select(models.Volume.id)
            .where(models.Volume.status == CREATING,
                   sa.or_(models.Volume.snapshot_id.is_not(None),
                          models.Volume.source_volid.is_not(None)))).scalars())


def host_of(snapshot_id):
    with db_api.transaction() as session:
        row = session.get(models.VolumeSnapshot, snapshot_id)
        return row and row.host
