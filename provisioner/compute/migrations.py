"""A server's moves between hosts (Nova's migration records) and their claims.

A live migration is asked for (``request``: Nova's checks, 400/409, nothing changed
when they fail), then carried out by its persisted flow (flows.live_migration),
whose engine-side steps call the functions below: the destination's claim is taken
before anything moves (``claim_target``) and held by the migration row beside the
instance's own claim on its source; once the guest runs on the destination
``conclude`` makes it the instance's claim and gives the source's back, in one
transaction; a rollback gives the destination's back (``release_target``) and the
server stays where it ran (``abandon``).
"""

import uuid

import sqlalchemy as sa

from provisioner.catalog import hosts
from provisioner.compute import actions
from provisioner.compute import locks
from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.scheduler import filters
from provisioner.scheduler import manager

LIVE_MIGRATION = actions.LIVE_MIGRATION  # Nova's migration_type and instance action
# Nova's statuses of a live migration.
QUEUED, PREPARING, RUNNING = 'queued', 'preparing', 'running'
COMPLETED, ERROR = 'completed', 'error'
IN_PROGRESS = (QUEUED, PREPARING, RUNNING)


class UnableToMigrateToSelf(exception.Invalid):
    msg_fmt = ('Unable to migrate instance (%(instance_id)s) to current host '
               '(%(host)s).')


class ComputeServiceUnavailable(exception.Invalid):
    msg_fmt = 'Compute service of %(host)s is unavailable at this time.'


class ComputeHostNotFound(exception.Invalid):
    msg_fmt = 'Compute host %(host)s could not be found.'


class NoTarget(exception.Invalid):
    msg_fmt = '%(reason)s'


class NoRoomOnTarget(exception.ProvisionerError):
    msg_fmt = ('Host %(host)s has no room for instance %(instance_id)s any more '
               '(%(vcpus)d VCPUs, %(ram)d MiB RAM, %(disk)d GiB disk).')


def _target_row(session, host, source, instance_id, force):
    target = session.execute(sa.select(models.Host)
                             .where(models.Host.name == host)).scalar()
    if target is None:
        raise ComputeHostNotFound(host=host)
    if host == source:
        raise UnableToMigrateToSelf(instance_id=instance_id, host=host)
    alive = (not target.forced_down and target.updated_at is not None
             and target.updated_at >= hosts.down_cutoff())
    if not alive or (not target.enabled and not force):
        raise ComputeServiceUnavailable(host=host)
    return target


def _choose(row, flavor, source):
    """The scheduler's best host for the server other than its own (NoValidHost)."""
    spec = filters.RequestSpec(
        vcpus=flavor.vcpus, ram_mib=flavor.ram_mib, disk_gib=flavor.disk_gib,
        availability_zone=(row.request_spec or {}).get('availability_zone'),
        excluded_hosts=frozenset([source]), alive_since=hosts.down_cutoff())
    try:
        return manager.select_hosts(spec, max_hosts=1)[0]
    except exception.NoValidHost as exc:  # Nova's 400 for a live migration
        raise NoTarget(reason=str(exc)) from None


def request(api, name_or_id, host=None, force=False):
    """Record a live migration of a running server to ``host`` (the scheduler's
    choice when None); (instance id, action id). ``force`` (before 2.68): a
    disabled host is taken too, as Nova's bypass of the scheduler."""
    with db_api.transaction() as session:
        row = api._find(session, name_or_id, 'instance:live_migrate')
        locks.check_unlocked(api.context, row)
        _check_state(row, name_or_id)
        instance_id, source = row.id, row.host
        flavor = session.get(models.Flavor, row.flavor_id)
        if host is not None:
            _target_row(session, host, source, instance_id, force)
    if host is None:
        host = _choose(row, flavor, source)
    with db_api.transaction() as session:
        target = _target_row(session, host, source, instance_id, force)
        taken = session.execute(
            sa.update(models.Instance)
            .where(models.Instance.id == instance_id,
                   models.Instance.vm_state == states.ACTIVE,
                   models.Instance.host == source,
                   models.Instance.task_state.is_(None))
            .values(task_state=states.MIGRATING))
        if taken.rowcount != 1:
            _check_state(session.get(models.Instance, instance_id), name_or_id,
                         always=True)
        flow_uuid = str(uuid.uuid4())
        action_id = actions.record(session, api.context, instance_id, LIVE_MIGRATION,
                                   flow_uuid)
        session.add(models.Migration(
            instance_id=instance_id, action_id=action_id,
            migration_type=LIVE_MIGRATION, status=QUEUED, source_compute=source,
            dest_compute=target.name, dest_address=target.underlay_ip,
            flavor_id=flavor.id, vcpus=flavor.vcpus, memory_mib=flavor.ram_mib,
            disk_gib=flavor.disk_gib, dest_claimed=False,
            project_id=row.project_id, user_id=api.context.user_id))
    return instance_id, action_id


def _check_state(row, name_or_id, always=False):
    if always or row.vm_state != states.ACTIVE or row.task_state is not None \
            or row.host is None:
        raise exception.Conflict(
            reason="Cannot 'os-migrateLive' instance %s while it is in vm_state %s%s."
                   % (name_or_id, row.vm_state, ', task_state %s' % row.task_state
                      if row.task_state else ''))


# -- the flow's records --------------------------------------------------------------

def _as_dict(row):
    return {column.name: getattr(row, column.name)
            for column in models.Migration.__table__.columns}


def _by_action(session, action_id):
    row = session.execute(sa.select(models.Migration)
                          .where(models.Migration.action_id == action_id)).scalar()
    if row is None:
        raise exception.NotFound(kind='Migration of action', name=action_id)
    return row


def for_action(action_id):
    """The migration an instance action carries out, as a dict."""
    with db_api.transaction() as session:
        return _as_dict(_by_action(session, action_id))


def set_status(action_id, status):
    with db_api.transaction() as session:
        _by_action(session, action_id).status = status


def _add_usage(session, host_name, row, sign, enabled_only=False):
    """Add (sign 1, within the host's free room) or take back (sign -1) the
    migration's resources on a host; whether the host took them."""
    h = models.Host
    query = sa.update(h).where(h.name == host_name)
    if sign > 0:
        query = query.where(filters.FREE_VCPUS >= row.vcpus,
                            filters.FREE_RAM_MIB >= row.memory_mib,
                            filters.FREE_DISK_GIB >= row.disk_gib)
        if enabled_only:
            query = query.where(h.enabled.is_(True))
    result = session.execute(query.values(
        vcpus_used=h.vcpus_used + sign * row.vcpus,
        memory_mib_used=h.memory_mib_used + sign * row.memory_mib,
        disk_gib_used=h.disk_gib_used + sign * row.disk_gib, **hosts.KEEP_LIVENESS))
    return result.rowcount == 1


def claim_target(action_id):
    """Claim the flavor's resources on the destination (once); NoRoomOnTarget when
    it filled up since the request."""
    with db_api.transaction() as session:
        row = _by_action(session, action_id)
        if row.dest_claimed:
            return row.dest_compute
        if not _add_usage(session, row.dest_compute, row, 1):
            raise NoRoomOnTarget(host=row.dest_compute, instance_id=row.instance_id,
                                 vcpus=row.vcpus, ram=row.memory_mib,
                                 disk=row.disk_gib)
        row.dest_claimed = True
        row.status = PREPARING
        return row.dest_compute


def release_target(action_id):
    """Give the destination's claim back; a no-op when it holds none."""
    with db_api.transaction() as session:
        row = _by_action(session, action_id)
        if row.dest_claimed:
            _add_usage(session, row.dest_compute, row, -1)
            row.dest_claimed = False


def conclude(action_id, console_log=None):
    """The server is on its destination: its host, its claim (the destination's,
    the source's given back), its console log, task_state cleared, the migration
    completed and the action finished: one transaction, done once."""
    with db_api.transaction() as session:
        row = _by_action(session, action_id)
        if row.status == COMPLETED:
            return
        inst = session.get(models.Instance, row.instance_id)
        alloc = session.get(models.Allocation, row.instance_id)
        dest = session.execute(sa.select(models.Host)
                               .where(models.Host.name == row.dest_compute)).scalar()
        if not row.dest_claimed:  # resumed after a crash between claim and here
            _add_usage(session, row.dest_compute, row, 1)
        if alloc is not None:
            source = session.get(models.Host, alloc.host_id)
            _add_usage(session, source.name, alloc, -1)
            alloc.host_id = dest.id
            alloc.vcpus, alloc.memory_mib, alloc.disk_gib = (row.vcpus, row.memory_mib,
                                                             row.disk_gib)
        else:
            session.add(models.Allocation(instance_id=row.instance_id,
                                          host_id=dest.id, vcpus=row.vcpus,
                                          memory_mib=row.memory_mib,
                                          disk_gib=row.disk_gib))
        row.dest_claimed = False
        row.status = COMPLETED
        inst.host = row.dest_compute
        inst.task_state = None
        if console_log:
            inst.request_spec = dict(inst.request_spec or {}, console_log=console_log)
        session.execute(sa.update(models.InstanceAction)
                        .where(models.InstanceAction.id == action_id)
                        .values(finish_time=models.utcnow(), message=None))


def abandon(action_id, fault):
    """The migration rolled back: the server runs where it ran, its task cleared;
    the migration in error, the action finished with the fault."""
    with db_api.transaction() as session:
        row = _by_action(session, action_id)
        row.status = ERROR
        session.execute(sa.update(models.Instance)
                        .where(models.Instance.id == row.instance_id,
                               models.Instance.task_state == states.MIGRATING)
                        .values(task_state=None))
    actions.finish(action_id, 'Error: %s' % fault)


# -- reads (os-migrations) -------------------------------------------------------------

def list_migrations(instance_id=None, in_progress=False, **filters_):
    """Migration dicts, newest first; ``filters_``: column=value (None: any)."""
    mig = models.Migration
    query = sa.select(mig).order_by(mig.id.desc())
    if instance_id is not None:
        query = query.where(mig.instance_id == instance_id)
    if in_progress:
        query = query.where(mig.status.in_(IN_PROGRESS))
    for column, value in filters_.items():
        if value is not None:
            query = query.where(getattr(mig, column) == value)
    with db_api.transaction() as session:
        return [_as_dict(row) for row in session.execute(query).scalars()]
