"""Cinder's volume transfers: a project offers an available volume of its own to
whoever gives the transfer's id and authorization key; accepting moves the
volume, and its snapshots, to the accepting project (their gigabytes leave the
giver's quota and count in the taker's). While offered the volume is
``awaiting-transfer`` (nothing else can be done with it); deleting the transfer
makes it available again. Only a salted hash of the key is kept; the key is
answered once, at creation.
"""

import hashlib
import hmac
import secrets
import uuid

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import policy
from provisioner.quota import counters
from provisioner.volume import rules

AWAITING = 'awaiting-transfer'
ACTION = 'volume:transfer'


def _hash(salt, key):
    return hashlib.sha256((salt + key).encode()).hexdigest()


def _describe(row):
    return {'id': row.id, 'volume_id': row.volume_id, 'name': row.name,
            'project_id': row.project_id, 'created_at': row.created_at}


class TransferAPI:
    def __init__(self, context):
        self.context = context

    def _get(self, session, transfer_id, owner=True):
        row = session.get(models.VolumeTransfer, transfer_id)
        if row is None:
            raise exception.NotFound(kind='Transfer', name=transfer_id)
        if owner:
            policy.authorize_owned(self.context, ACTION, row.project_id, 'Transfer',
                                   transfer_id)
        return row

    def create(self, volume_id, name=None):
        """Offer the volume; the transfer, with its authorization key."""
        if name is not None and (not isinstance(name, str) or len(name) > 255):
            raise exception.Invalid(reason='Transfer name must be a string of at most '
                                           '255 characters.')
        key = secrets.token_hex(8)
        salt = secrets.token_hex(8)
        with db_api.transaction() as session:
            vol = rules.get_volume(self.context, session, volume_id, ACTION)
            taken = session.execute(
                sa.update(models.Volume)
                .where(models.Volume.id == volume_id,
                       models.Volume.status == rules.AVAILABLE,
                       models.Volume.index.is_(None))
                .values(status=AWAITING, updated_at=models.utcnow()))
            if taken.rowcount != 1:
                raise exception.InvalidVolume(
                    reason='status must be available to transfer volume %s, not %s'
                           % (volume_id, vol.status))
            row = models.VolumeTransfer(
                id=str(uuid.uuid4()), volume_id=volume_id, project_id=vol.project_id,
                name=name, salt=salt, crypt_hash=_hash(salt, key))
            session.add(row)
            session.flush()
            return dict(_describe(row), auth_key=key)

    def list(self):
        everyone = policy.check(self.context, 'instance:list:all_projects')
        with db_api.transaction() as session:
            query = sa.select(models.VolumeTransfer).order_by(
                models.VolumeTransfer.created_at)
            if not everyone:
                query = query.where(
                    models.VolumeTransfer.project_id == self.context.project_id)
            return [_describe(row) for row in session.scalars(query)]

    def show(self, transfer_id):
        with db_api.transaction() as session:
            return _describe(self._get(session, transfer_id))

    def delete(self, transfer_id):
        with db_api.transaction() as session:
            row = self._get(session, transfer_id)
            session.execute(sa.update(models.Volume)
                            .where(models.Volume.id == row.volume_id,
                                   models.Volume.status == AWAITING)
                            .values(status=rules.AVAILABLE, updated_at=models.utcnow()))
            session.delete(row)

    def accept(self, transfer_id, auth_key):
        """Move the volume and its snapshots to the caller's project."""
        policy.authorize(self.context, ACTION)
        if not isinstance(auth_key, str) or not auth_key:
            raise exception.Invalid(reason='Transfer auth_key must be given.')
        with db_api.transaction() as session:
            row = self._get(session, transfer_id, owner=False)
            if not hmac.compare_digest(row.crypt_hash, _hash(row.salt, auth_key)):
                raise exception.Invalid(reason='Invalid auth key: Attempt to transfer '
                                               '%s with invalid auth key.' % row.id)
            vol = session.get(models.Volume, row.volume_id)
            snaps = list(session.scalars(sa.select(models.VolumeSnapshot).where(
                models.VolumeSnapshot.volume_id == vol.id)))
            gib = vol.size_gib + sum(snap.size_gib for snap in snaps)
            counters.uncount(session, vol.project_id, {'volumes_gib': gib})
            counters.count(session, self.context.project_id, {'volumes_gib': gib},
                           self.context.project_name, error=counters.VolumeOverQuota)
            for owned in [vol] + snaps:
                owned.project_id, owned.user_id = (self.context.project_id,
                                                   self.context.user_id)
            vol.status, vol.updated_at = rules.AVAILABLE, models.utcnow()
            session.delete(row)
            return _describe(row)
