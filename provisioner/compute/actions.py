"""Instance actions: each request that changed an instance, and the steps it ran.

An action is what Nova's os-instance-actions reports: who asked for what, when,
under which request id. Its events are the steps of the flow that carried it out
(the boot's guard, claim, image, ports ... mark-active), as the flow listener
records them, so ``openstack server event show`` is the flow's timeline.
"""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception

CREATE = 'create'
DELETE = 'delete'
STOP = 'stop'
START = 'start'
REBOOT = 'reboot'
RESUME = 'resume'
ROLLBACK = 'rollback'
REBUILD = 'rebuild'
LIVE_MIGRATION = 'live-migration'
TRIGGER_CRASH_DUMP = 'trigger_crash_dump'
CREATE_IMAGE = 'createImage'  # a server's snapshot (Nova's action name)

# Actions carried out by a flow of their own (boot and delete have theirs).
POWER_ACTIONS = (STOP, START, REBOOT)
# A volume's attach and detach (provisioner.volume.api): they set no task_state.
VOLUME_ACTIONS = ('attach_volume', 'detach_volume')


def record(session, context, instance_id, action, flow_uuid=None):
    """Add an action row in the caller's transaction; return its id."""
    row = models.InstanceAction(
        instance_id=instance_id, request_id=context.request_id, action=action,
        user_id=context.user_id, project_id=context.project_id,
        start_time=models.utcnow(), flow_uuid=flow_uuid)
    session.add(row)
    session.flush()
    return row.id


def finish(action_id, message=None):
    """Stamp an action's end; ``message`` is Nova's 'Error' (or the fault) on failure."""
    with db_api.transaction() as session:
        session.execute(sa.update(models.InstanceAction)
                        .where(models.InstanceAction.id == action_id)
                        .values(finish_time=models.utcnow(), message=message))


def for_flow(instance_id, flow_uuid):
    """The id of the action a flow carries out, or None (a flow from before 0006)."""
    act = models.InstanceAction
    with db_api.transaction() as session:
        return session.execute(
            sa.select(act.id).where(act.instance_id == instance_id,
                                    act.flow_uuid == flow_uuid)
            .order_by(act.id.desc()).limit(1)).scalar()


def latest(instance_id, action):
    """The newest action of a kind on an instance, as a row dict, or None."""
    act = models.InstanceAction
    with db_api.transaction() as session:
        row = session.execute(
            sa.select(act).where(act.instance_id == instance_id, act.action == action)
            .order_by(act.id.desc()).limit(1)).scalar()
        return _action_dict(row) if row is not None else None


def unfinished(actions_of=POWER_ACTIONS + (REBUILD, LIVE_MIGRATION, CREATE_IMAGE)
               + VOLUME_ACTIONS):
    """Power, rebuild, live migration, snapshot and volume actions a killed process
    left unfinished: (instance_id, action id)."""
    act, inst = models.InstanceAction, models.Instance
    with db_api.transaction() as session:
        return session.execute(
            sa.select(act.instance_id, act.id)
            .join(inst, inst.id == act.instance_id)
            .where(act.action.in_(actions_of), act.finish_time.is_(None),
                   sa.or_(inst.task_state.is_not(None),
                          act.action.in_(VOLUME_ACTIONS)),
                   inst.vm_state != 'deleted')
            .order_by(act.id)).all()


def get_by_id(action_id):
    with db_api.transaction() as session:
        row = session.get(models.InstanceAction, action_id)
        if row is None:
            raise exception.NotFound(kind='Instance action', name=action_id)
        return _action_dict(row)


def list_for(instance_id):
    """Every action on the instance, newest first (as Nova lists them)."""
    act = models.InstanceAction
    with db_api.transaction() as session:
        rows = session.execute(sa.select(act).where(act.instance_id == instance_id)
                               .order_by(act.id.desc())).scalars().all()
        return [_action_dict(r) for r in rows]


def show(instance_id, request_id):
    """One action with its events (the steps its flow ran, in order)."""
    act, ev = models.InstanceAction, models.InstanceEvent
    with db_api.transaction() as session:
        row = session.execute(
            sa.select(act).where(act.instance_id == instance_id,
                                 act.request_id == request_id)
            .order_by(act.id.desc()).limit(1)).scalar()
        if row is None:
            raise exception.NotFound(kind='Action', name=request_id)
        info = _action_dict(row)
        events = session.execute(sa.select(ev).where(ev.action_id == row.id)
                                 .order_by(ev.id)).scalars().all()
        info['events'] = [{'event': e.name, 'start_time': e.started_at,
                           'finish_time': e.finished_at, 'result': e.result,
                           'host': e.host, 'message': e.message} for e in events]
        return info


def _action_dict(row):
    return {'id': row.id, 'instance_id': row.instance_id, 'request_id': row.request_id,
            'action': row.action, 'user_id': row.user_id, 'project_id': row.project_id,
            'start_time': row.start_time, 'finish_time': row.finish_time,
            'message': row.message, 'flow_uuid': row.flow_uuid}
