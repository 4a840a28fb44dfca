"""Instance rows: the record a boot request creates and every step updates."""

import dataclasses
import datetime
import functools
import types

import sqlalchemy as sa

from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import naming


@dataclasses.dataclass(frozen=True)
class BuildRequest:
    """Everything a step needs to know about the instance it builds (read-only)."""

    id: str
    name: str
    project_id: str
    vcpus: int
    ram_mib: int
    disk_gib: int
    image: types.MappingProxyType  # read-only: the result is cached and shared
    network_ids: tuple
    volume_sizes: tuple
    availability_zone: str | None = None
    server_group_id: str | None = None
    properties: types.MappingProxyType = dataclasses.field(
        default_factory=lambda: types.MappingProxyType({}))
    key_name: str | None = None
    key_data: str | None = None  # the public key: the guest's, not a secret
    # A boot from volume: {'id', 'size', 'delete_on_termination'} of the root volume.
    boot_volume: types.MappingProxyType | None = None
    # One per NIC: {'network_id', 'port_id'?, 'fixed_ip'?} (read-only mappings).
    nics: tuple = ()
    # The host asked for at boot (compute 2.74), if any.
    requested_host: str | None = None
    # The guest's hostname: the one set (compute 2.90), else from the name.
    hostname: str = ''
    # Whether it has a config drive (asked, or [compute] force_config_drive).
    config_drive: bool = True
    # Device tags (compute 2.32/2.42): {'nics': [...], 'root', 'blank_volumes': [...]}.
    device_tags: types.MappingProxyType | None = None


def get_row(session, instance_id):
    row = session.get(models.Instance, instance_id)
    if row is None:
        raise exception.NotFound(kind='Instance', name=instance_id)
    return row


@functools.lru_cache(maxsize=256)
def build_request(instance_id):
    """What a boot asked for. Cached: an instance's request never changes once made."""
    with db_api.transaction() as session:
        inst = get_row(session, instance_id)
        flavor = session.get(models.Flavor, inst.flavor_id)
        image = session.get(models.Image, inst.image_id)
        image_info = {c.name: getattr(image, c.name)
                      for c in models.Image.__table__.columns if c.name != 'created_at'}
        return BuildRequest(
            id=inst.id, name=inst.name, project_id=inst.project_id,
            vcpus=flavor.vcpus, ram_mib=flavor.ram_mib, disk_gib=flavor.disk_gib,
            image=types.MappingProxyType(image_info),
            network_ids=tuple(inst.request_spec.get('network_ids', [])),
            volume_sizes=tuple(inst.request_spec.get('volume_sizes', [])),
            availability_zone=inst.request_spec.get('availability_zone'),
            server_group_id=inst.request_spec.get('server_group_id'),
            properties=types.MappingProxyType(dict(inst.properties or {})),
            key_name=inst.key_name, key_data=inst.key_data,
            boot_volume=_read_only(inst.request_spec.get('boot_volume')),
            nics=tuple(types.MappingProxyType(nic) for nic in _nics(inst.request_spec)),
            requested_host=inst.request_spec.get('requested_host'),
            hostname=inst.hostname or naming.hostname(inst.name),
            config_drive=inst.request_spec.get('config_drive', True),
            device_tags=_read_only(inst.request_spec.get('device_tags')))


def current_request(instance_id):
    """build_request read now, not cached: a rebuild changed the instance's image,
    name, metadata and key."""
    return build_request.__wrapped__(instance_id)


def _read_only(mapping):
    return types.MappingProxyType(dict(mapping)) if mapping else None


def _nics(request_spec):
    # Boots recorded before ports and fixed IPs could be asked for name networks only.
    return request_spec.get('nics') or [{'network_id': network_id} for network_id
                                        in request_spec.get('network_ids', [])]


def _column(instance_id, column):
    """One column of the instance's row; NotFound as get_row. Read alone, not with
    the whole row: several steps of every boot ask, and loading the ORM object
    (its request spec's JSON decoded, its user data read) cost more than the query."""
    with db_api.connection() as conn:
        found = conn.execute(sa.select(column)
                             .where(models.Instance.id == instance_id)).first()
    if found is None:
        raise exception.NotFound(kind='Instance', name=instance_id)
    return found[0]


def host_of(instance_id):
    """The host the instance was placed on; None before its claim."""
    return _column(instance_id, models.Instance.host)


def user_data(instance_id):
    return _column(instance_id, models.Instance.user_data)


def now():
    return models.utcnow()


def update(instance_id, **fields):
    with db_api.transaction() as session:
        session.execute(sa.update(models.Instance)
                        .where(models.Instance.id == instance_id).values(**fields))


def conclude_action(instance_id, action_id, **fields):
    """Update the instance and stamp its action finished (success), in one transaction.

    One write, so a process killed in between cannot leave an instance whose task
    is over while its action still looks under way (or the other way round).
    """
    with db_api.transaction() as session:
        session.execute(sa.update(models.Instance)
                        .where(models.Instance.id == instance_id).values(**fields))
        session.execute(sa.update(models.InstanceAction)
                        .where(models.InstanceAction.id == action_id)
                        .values(finish_time=now(), message=None))


def take_task(session, row, action, allowed, task_state, name_or_id=None):
    """Give the instance ``task_state`` if its vm_state is one of ``allowed`` and no
    task is under way, in one conditional UPDATE (two racing requests cannot both
    pass); Nova's 409 otherwise. ``row`` is refreshed."""
    taken = session.execute(
        sa.update(models.Instance)
        .where(models.Instance.id == row.id, models.Instance.vm_state.in_(allowed),
               models.Instance.task_state.is_(None))
        .values(task_state=task_state))
    if taken.rowcount != 1:
        session.refresh(row)
        raise exception.Conflict(
            reason="Cannot '%s' instance %s while it is in vm_state %s%s."
                   % (action, name_or_id or row.id, row.vm_state,
                      ', task_state %s' % row.task_state if row.task_state else ''))
    session.refresh(row)


def advance_task_state(instance_id, task_state):
    """Move task_state forward only: parallel steps must not send it backwards."""
    order = states.BUILD_TASK_STATES
    earlier = list(order[:order.index(task_state)]) if task_state in order else []
    with db_api.transaction() as session:
        session.execute(
            sa.update(models.Instance)
            .where(models.Instance.id == instance_id,
                   models.Instance.vm_state == states.BUILDING,
                   sa.or_(models.Instance.task_state.is_(None),
                          models.Instance.task_state.in_(earlier)))
            .values(task_state=task_state))


def record_console_log(instance_id, path):
    """Remember where the instance's host writes its console log (shown by show)."""
    with db_api.transaction() as session:
        row = session.get(models.Instance, instance_id)
        if row is not None:
            row.request_spec = dict(row.request_spec or {}, console_log=path)


def set_error(instance_id, fault):
    update(instance_id, vm_state=states.ERROR, task_state=None,
           power_state=states.NOSTATE, fault=fault)


_EVENT = models.InstanceEvent.__table__
_INSERT_EVENT = sa.insert(_EVENT)


def record_event(instance_id, name, host, started_at, result, message=None,
                 action_id=None, conn=None):
    """Record one finished step (or one interrupted by a crash) as an instance event.

    ``action_id``: the instance action whose flow ran the step (its event list).
    ``conn``: a transaction to write it in (the step's own state write), else its own.
    """
    row = {'instance_id': instance_id, 'name': name, 'host': host,
           'started_at': started_at, 'finished_at': now(), 'result': result,
           'message': message, 'action_id': action_id}
    if conn is not None:
        conn.execute(_INSERT_EVENT, row)
        return
    with db_api.connection() as own:
        own.execute(_INSERT_EVENT, row)


def events(instance_id):
    ev = models.InstanceEvent
    with db_api.transaction() as session:
        rows = session.execute(sa.select(ev).where(ev.instance_id == instance_id)
                               .order_by(ev.id)).scalars().all()
        return [_event_dict(r) for r in rows]


def _event_dict(row):
    duration = None
    if row.finished_at is not None:
        duration = (row.finished_at - row.started_at) / datetime.timedelta(seconds=1)
    return {'name': row.name, 'host': row.host, 'result': row.result,
            'message': row.message, 'duration': duration,
            'started_at': row.started_at.isoformat(timespec='milliseconds'),
            'finished_at': (row.finished_at.isoformat(timespec='milliseconds')
                            if row.finished_at else None)}


def volumes_of(instance_id):
    """The instance's volumes (a boot's, in order, and attached ones) as dicts."""
    with db_api.transaction() as session:
        rows = session.execute(sa.select(models.Volume)
                               .where(models.Volume.instance_id == instance_id)
                               .order_by(models.Volume.index)).scalars().all()
        return [{'id': r.id, 'size_gib': r.size_gib, 'path': r.path, 'status': r.status,
                 'index': r.index, 'device': r.device, 'attachment_tag': r.attachment_tag}
                for r in rows]
