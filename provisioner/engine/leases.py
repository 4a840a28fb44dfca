"""Instance leases: at most one engine runs an instance's flows, fenced by epoch.

A job claim on the jobboard says who *should* run a boot; the lease makes sure that an
engine that stalled past its claim (a long GC pause, a frozen VM, a cut network) cannot
keep running it next to the engine that took over. Acquiring bumps ``epoch``; the
holder's flow-store writes are conditional on (owner, epoch) (see persistence), so the
stale engine's next write fails and it stops before its next side effect.

Times are the engines' wall clocks: engines sharing work must keep them in sync (NTP),
as for any lease.
"""

import dataclasses
import time

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models

LEASES = models.InstanceLease.__table__


@dataclasses.dataclass(frozen=True)
class Lease:
    instance_id: str
    owner: str
    epoch: int


class LeaseLost(Exception):
    """Another engine now holds the instance: stop without touching anything."""


def acquire(instance_id, owner, ttl, before_commit=None):
    """Take the instance's lease when free or expired; return a Lease or None.

    ``before_commit()`` runs once the lease row is written, its transaction still
    open (the row locked): the fault injection of the takeover tests stalls the
    engine there, the worst instant.
    """
    before_commit = before_commit or (lambda: None)
    now = time.time()
    with db_api.connection() as conn:
        epoch = conn.execute(
            sa.update(LEASES)
            .where(LEASES.c.instance_id == instance_id, LEASES.c.expires_at < now)
            .values(owner=owner, epoch=LEASES.c.epoch + 1, expires_at=now + ttl)
            .returning(LEASES.c.epoch)).scalar()
        if epoch is not None:
            before_commit()
            return Lease(instance_id, owner, epoch)
        exists = conn.execute(sa.select(LEASES.c.epoch)
                              .where(LEASES.c.instance_id == instance_id)).first()
    if exists:
        return None
    try:
        with db_api.connection() as conn:
            conn.execute(sa.insert(LEASES).values(
                instance_id=instance_id, owner=owner, epoch=1, expires_at=now + ttl,
                rollback_requested=False))
            before_commit()
    except sa.exc.IntegrityError:  # another engine inserted it first
        return None
    return Lease(instance_id, owner, 1)


def _held(lease):
    return sa.and_(LEASES.c.instance_id == lease.instance_id,
                   LEASES.c.owner == lease.owner, LEASES.c.epoch == lease.epoch)


def renew(lease, ttl):
    """Extend a held lease; return whether a rollback was requested. LeaseLost if not held."""
    with db_api.connection() as conn:
        row = conn.execute(sa.update(LEASES).where(_held(lease))
                           .values(expires_at=time.time() + ttl)
                           .returning(LEASES.c.rollback_requested)).first()
    if row is None:
        raise LeaseLost(lease.instance_id)
    return bool(row[0])


def release(lease):
    """Give the lease up at once so the next engine need not wait for it to expire."""
    with db_api.connection() as conn:
        conn.execute(sa.update(LEASES).where(_held(lease)).values(expires_at=0))


def rollback_requested(instance_id):
    with db_api.connection() as conn:
        return bool(conn.execute(sa.select(LEASES.c.rollback_requested)
                                 .where(LEASES.c.instance_id == instance_id)).scalar())


def request_rollback(instance_id):
    """Ask whichever engine runs (or will run) the boot to roll it back."""
    with db_api.connection() as conn:
        updated = conn.execute(sa.update(LEASES)
                               .where(LEASES.c.instance_id == instance_id)
                               .values(rollback_requested=True)).rowcount
        if updated:
            return
    try:
        with db_api.connection() as conn:
            conn.execute(sa.insert(LEASES).values(
                instance_id=instance_id, owner='', epoch=0, expires_at=0,
                rollback_requested=True))
    except sa.exc.IntegrityError:
        request_rollback(instance_id)


def fence_condition():
    """A SQL condition, true while the lease bound as fence_* parameters is held."""
    return sa.exists().where(LEASES.c.instance_id == sa.bindparam('fence_instance'),
                             LEASES.c.owner == sa.bindparam('fence_owner'),
                             LEASES.c.epoch == sa.bindparam('fence_epoch'))


def fence_params(lease):
    return {'fence_instance': lease.instance_id, 'fence_owner': lease.owner,
            'fence_epoch': lease.epoch}
