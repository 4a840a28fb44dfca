"""Create, run, resume and roll back an instance's flows in this process.

The boot flow is persisted: its flow detail (in a logbook named after the instance)
records each step's state and result, so ``run_boot`` continues a boot from its last
persisted step whether it was never started, interrupted, or is being rolled back.
Power actions (stop, start, reboot) and volume attaches and detaches are persisted
the same way, one flow detail per action in the same logbook (``run_action``). A
request only records the instance action and its flow's uuid: the flow detail is
saved by whoever first runs it (``boot_flow_detail``, ``action_flow_detail``).

Every flow carries out an instance action: its steps are recorded as the action's
events, the action is finished when the flow ends, and a versioned notification is
sent when it starts (not when it resumes) and when it ends. Every engine that runs
a flow is built by ``build_engine``.
"""

from concurrent import futures
import contextlib
import logging
import threading

from taskflow import engines
from taskflow import flow as tf_flow
from taskflow.persistence import models as tf_models
from taskflow import states as tf_states
from taskflow.types import failure as tf_failure
from taskflow.utils import persistence_utils as tf_p_utils

from provisioner.compute import actions
from provisioner.compute import instances
from provisioner.compute import migrations
from provisioner.compute import rebuild as compute_rebuild
from provisioner.compute import states
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.engine import fault_points
from provisioner.engine import leases
from provisioner.engine import listeners
from provisioner.engine import locks
from provisioner.engine import persistence
from provisioner.engine import remote
from provisioner.engine import step_pool
from provisioner.engine import step_records
from provisioner import exception
from provisioner import notifications
from provisioner.volume import api as volume_api
from provisioner.volume import volumes

from flows import boot
from flows import constants
from flows import create_image
from flows import delete
from flows import live_migration
from flows import power
from flows import rebuild
from flows import volume

LOG = logging.getLogger(__name__)


class RollbackRequested(exception.ProvisionerError):
    msg_fmt = 'Boot rolled back at the user\'s request.'


def boot_flow_detail(instance_id, flow_uuid):
    """The instance's persisted boot flow, saved on first use under the uuid the
    request recorded (the request only records; whoever runs the flow builds it)."""
    return (persistence.get_flow_detail(flow_uuid)
            or _save_flow(instance_id, flow_uuid, constants.BOOT_FLOW, boot.create_flow))


def _save_flow(instance_id, flow_uuid, flow_name, factory, factory_args=()):
    """A new flow detail in the instance's logbook, rebuildable from its factory.

    The factory is saved with the flow detail, in one transaction: a flow detail
    without its factory could never be loaded.
    """
    factory_holder = tf_models.FlowDetail(flow_name, uuid=flow_uuid)
    engines.save_factory_details(factory_holder, factory, list(factory_args), {})
    return persistence.create_flow_detail(
        'instance-%s' % instance_id, flow_name, book_uuid=instance_id,
        flow_uuid=flow_uuid, meta=factory_holder.meta)


_executor = None
_executor_lock = threading.Lock()
_flows_at_once = 1


def expect_concurrent_flows(count):
    """Size the step pool for this many flows at once (a conductor runs many).

    A step sent to a worker holds its pool thread until the worker answers, so one
    boot's parallel steps must not wait for another boot's.
    """
    global _flows_at_once
    with _executor_lock:
        _flows_at_once = max(1, count)


def _step_executor():
    """One thread pool per process, lent to every engine.

    An engine that owns its pool shuts it down at the end of each run, and joining
    futurist's idle workers costs a second per boot. A step it queued is never
    cancelled (provisioner.engine.step_pool says why).
    """
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = step_pool.UncancellablePool(futures.ThreadPoolExecutor(
                max_workers=CONF.compute.max_parallel_steps * _flows_at_once,
                thread_name_prefix='provisioner-step'))
        return _executor


def action_flow_detail(instance_id, action):
    """The persisted flow of a power action (stop, start, reboot: a hard reboot's
    task_state is REBOOTING_HARD), a rebuild (a stopped server's keeps it stopped),
    a snapshot into an image or a volume's attach or detach, saved on first
    use from the recorded action (an instance action row)."""
    flow_detail = persistence.get_flow_detail(action['flow_uuid'])
    if flow_detail is not None:
        return flow_detail
    if action['action'] in volume_api.VOLUME_ACTIONS:
        flow_name, factory, factory_args = volume.factory(
            action['action'], volumes.for_action(action['id']))
    elif action['action'] == actions.REBUILD:
        flow_name, factory, factory_args = rebuild.factory(
            compute_rebuild.was_stopped(instance_id))
    elif action['action'] == actions.LIVE_MIGRATION:
        flow_name, factory, factory_args = live_migration.factory()
    elif action['action'] == actions.CREATE_IMAGE:
        flow_name, factory, factory_args = create_image.factory()
    else:
        with db_api.transaction() as session:
            task_state = instances.get_row(session, instance_id).task_state
        flow_name, factory, factory_args = power.factory(
            action['action'], task_state == states.REBOOTING_HARD)
    return _save_flow(instance_id, action['flow_uuid'], flow_name, factory,
                      factory_args)


def _atoms(flow):
    for item, _meta in flow.iter_nodes():
        if isinstance(item, tf_flow.Flow):
            yield from _atoms(item)
        else:
            yield item


def build_engine(flow, store, flow_detail=None, remote_steps=False, serial=False):
    """The TaskFlow engine that runs flow: every engine of the project is built here.

    ``flow_detail``: the flow's persisted detail (its state is the flow store's);
    None for a flow run once and forgotten (the delete flows), kept in memory.
    ``remote_steps`` (a conductor): host-side steps run on the worker of the store's
    ``host`` (provisioner.engine.remote), the others on the shared step pool.
    In-process, the steps run on that pool too, or in turn when ``serial`` or
    ``[compute] max_parallel_steps`` is 1 (no thread hand-offs at all: the cheapest
    orchestration). Every atom gets the records port (provisioner.engine.step_records)
    and, when configured, the engine its fault points.
    """
    for atom in _atoms(flow):
        step_records.with_records(atom)
    if remote_steps:
        backend = persistence.get_backend() if flow_detail is not None else None
        if flow_detail is None:
            _book, flow_detail = tf_p_utils.temporary_flow_detail()
        engine = remote.RemoteStepsEngine(flow, flow_detail, backend,
                                          {'executor': _step_executor()})
        engine.storage.inject(store)
        return fault_points.install(engine)
    options = {'engine': 'parallel', 'executor': _step_executor()}
    if serial or CONF.compute.max_parallel_steps == 1:
        options = {'engine': 'serial'}
    if flow_detail is not None:
        options.update(flow_detail=flow_detail, backend=persistence.get_backend())
    return fault_points.install(engines.load(flow, store=store, **options))


def _load_engine(flow_detail, instance_id, remote_steps=False, store=None):
    """The engine of an instance's persisted flow, rebuilt from its factory."""
    return build_engine(engines.flow_from_detail(flow_detail),
                        dict(store or {}, **{constants.INSTANCE_ID: instance_id}),
                        flow_detail, remote_steps=remote_steps)


def _ownership(instance_id, lease, wait=0, on_wait=None):
    """All-in-one: the instance's file lock. Distributed: the lease the conductor holds."""
    if lease is None:
        return locks.instance_lock(instance_id, wait=wait, on_wait=on_wait)
    return contextlib.nullcontext()


def boot_flow_state(flow_uuid):
    """The boot flow's state; PENDING when its flow detail was never saved."""
    flow_detail = persistence.get_flow_detail(flow_uuid)
    return flow_detail.state if flow_detail is not None else tf_states.PENDING


def _not_started(flow_detail):
    return flow_detail.state in (None, tf_states.PENDING)


def _record_interrupted_steps(engine, flow_detail, instance_id, action_id):
    """Steps a dead process left running or reverting: they run again now."""
    tasks = [ad.name for ad in flow_detail if isinstance(ad, tf_models.TaskDetail)]
    atom_states = engine.storage.get_atoms_states(tasks)
    for name, (state, _intention) in atom_states.items():
        if state in (tf_states.RUNNING, tf_states.REVERTING):
            suffix = ' (revert)' if state == tf_states.REVERTING else ''
            instances.record_event(instance_id, name + suffix, CONF.host,
                                   instances.now(), 'Interrupted', action_id=action_id)


def _request_rollback(engine):
    # Marking the first atom failed makes the engine, on resume, apply the flow's
    # failure resolution: every step that ran (or was running) is reverted, in reverse
    # order, and the guard's own revert records the fault.
    failure = tf_failure.Failure.from_exception(RollbackRequested())
    engine.storage.save(constants.LIFECYCLE_GUARD, failure, tf_states.FAILURE)


def _fenced(flow_detail, lease):
    if lease is None:
        return contextlib.nullcontext()
    return persistence.fenced(flow_detail, lease)


_ENDED = (tf_states.SUCCESS, tf_states.REVERTED, tf_states.FAILURE,
          tf_states.REVERT_FAILURE)


def _finish(instance_id, kind, action_id, state, fault=None):
    """Finish the action (unless its flow did) and notify, as the flow ended.

    ``fault``: why the flow failed; by default the message the flow's guard left.
    """
    if state not in _ENDED:
        return  # suspended or stopped half-way: resume or rollback finishes it
    failed = state != tf_states.SUCCESS
    action = actions.get_by_id(action_id) if action_id is not None else None
    if action is not None and action['finish_time'] is None:
        actions.finish(action_id, ('Error: %s' % fault if fault else 'Error')
                       if failed else None)
    elif action is not None and failed and fault is None:
        fault = (action['message'] or '').removeprefix('Error: ') or None
    notifications.notify(instance_id, kind,
                         notifications.ERROR if failed else notifications.END,
                         request_id=action and action['request_id'], fault=fault)


def _notify_start(instance_id, kind, action_id):
    request_id = actions.get_by_id(action_id)['request_id'] if action_id else None
    notifications.notify(instance_id, kind, notifications.START, request_id=request_id)


def _deleted(instance_id):
    with db_api.transaction() as session:
        return instances.get_row(session, instance_id).vm_state == states.DELETED


def run_boot(instance_id, flow_uuid, progress=None, rollback=False, lease=None,
             on_engine=None):
    """Run (or resume, or roll back) the boot flow; return the flow's final state.

    All-in-one (no ``lease``) every step runs here under the instance's file lock;
    an instance a delete removed while this waited for the lock has no boot to run
    (None). A conductor checks that under its lease before it calls this.
    A conductor passes the instance lease it holds: host-side steps then run on the
    chosen host's worker, every flow write is fenced by the lease (LeaseLost when
    another engine took over), and ``on_engine(engine)`` lets it suspend the run.
    Its steps are the events of the boot's create action, finished when it ends.
    """
    with _ownership(instance_id, lease):
        if lease is None and _deleted(instance_id):
            # boot --no-wait then delete at once: the delete took the lock first and
            # removed everything, the flow included. Nothing may be made again.
            LOG.info('Boot of instance %s not run: the instance was deleted',
                     instance_id)
            return None
        flow_detail = boot_flow_detail(instance_id, flow_uuid)
        action_id = actions.for_flow(instance_id, flow_uuid)
        if _not_started(flow_detail) and not rollback:
            _notify_start(instance_id, actions.CREATE, action_id)
        engine = _load_engine(flow_detail, instance_id, remote_steps=lease is not None)
        with _fenced(flow_detail, lease):
            state = _run_engine(engine, flow_detail, instance_id, action_id,
                                progress, rollback, on_engine, 'Boot')
        fault = None
        if state != tf_states.SUCCESS:
            with db_api.transaction() as session:
                fault = instances.get_row(session, instance_id).fault
        _finish(instance_id, actions.CREATE, action_id, state, fault)
        return state


def _run_engine(engine, flow_detail, instance_id, action_id, progress, rollback,
                on_engine, what):
    """Run a loaded flow to its end (or suspension); return its final state."""
    engine.compile()
    engine.prepare()
    _record_interrupted_steps(engine, flow_detail, instance_id, action_id)
    if rollback:
        _request_rollback(engine)
    if on_engine is not None:
        on_engine(engine)
    with listeners.EventRecorder(engine, instance_id, progress, action_id=action_id,
                                 flow_detail=flow_detail):
        try:
            engine.run()
        except leases.LeaseLost:
            raise
        except Exception as exc:
            state = engine.storage.get_flow_state()
            if state == tf_states.REVERTED:  # the guard recorded the fault
                LOG.info('%s of instance %s rolled back: %s', what, instance_id, exc)
            else:  # stopped half-way: resume or rollback will pick it up
                LOG.exception('%s of instance %s stopped in flow state %s', what,
                              instance_id, state)
    return engine.storage.get_flow_state()


def run_action(instance_id, action_id, lease=None, progress=None, on_engine=None):
    """Run (or resume) the flow of a power or volume action; its final state.

    Ownership, remote steps and suspension as for run_boot. A flow that already
    ended is not run again: its final state is returned.
    """
    with _ownership(instance_id, lease):
        action = actions.get_by_id(action_id)
        flow_detail = action_flow_detail(instance_id, action)
        if flow_detail.state in _ENDED:
            return flow_detail.state
        if _not_started(flow_detail):
            _notify_start(instance_id, action['action'], action_id)
        store = {constants.ACTION_ID: action_id,
                 constants.HOST: instances.host_of(instance_id)}
        if action['action'] == actions.LIVE_MIGRATION:  # both hosts, as recorded
            migration = migrations.for_action(action_id)
            store.update({constants.SOURCE_HOST: migration['source_compute'],
                          constants.DEST_HOST: migration['dest_compute']})
        engine = _load_engine(flow_detail, instance_id, remote_steps=lease is not None,
                              store=store)
        with _fenced(flow_detail, lease):
            state = _run_engine(engine, flow_detail, instance_id, action_id,
                                progress, False, on_engine, action['action'].title())
        _finish(instance_id, action['action'], action_id, state)
        return state


def run_delete(instance_id, progress=None, on_wait=None, lease=None, action_id=None):
    """Tear down everything the instance owns, then forget its flows.

    A boot still running in another process is waited for (it ends active or rolled
    back), as a user deleting a just-booted instance expects. Under a conductor's
    ``lease`` the host-side steps run on the instance's host's worker. The steps
    are the events of ``action_id``, by default the latest delete action.
    """
    wait = CONF.compute.boot_timeout + 60
    with _ownership(instance_id, lease, wait=wait, on_wait=on_wait):
        if action_id is None:
            latest = actions.latest(instance_id, actions.DELETE)
            action_id = latest and latest['id']
        instances.update(instance_id, task_state=states.DELETING)
        _notify_start(instance_id, actions.DELETE, action_id)
        store = {constants.INSTANCE_ID: instance_id}
        if lease is not None:
            store[constants.HOST] = instances.host_of(instance_id)
        engine = build_engine(delete.create_flow(), store,
                              remote_steps=lease is not None, serial=True)
        with listeners.EventRecorder(engine, instance_id, progress,
                                     action_id=action_id):
            engine.run()
        persistence.destroy_logbook(instance_id)
        _finish(instance_id, actions.DELETE, action_id, tf_states.SUCCESS)
        if lease is None:
            locks.forget(instance_id)  # the last of it on this host


def run_volume_delete(volume_id, remote_steps=False):
    """Delete a volume's file on its host, then its row; a re-run after a crash
    does it again (both steps are idempotent). A failure leaves it error_deleting.

    ``remote_steps`` (a conductor): the file is deleted by its host's worker.
    """
    store = {constants.VOLUME_ID: volume_id, constants.HOST: volumes.host_of(volume_id)}
    engine = build_engine(volume.delete_flow(), store, remote_steps=remote_steps,
                          serial=True)
    try:
        engine.run()
    except Exception as exc:
        LOG.warning('Delete of volume %s failed: %s', volume_id, exc)
        volumes.mark(volume_id, volume_api.ERROR_DELETING)
        return tf_states.FAILURE
    return tf_states.SUCCESS
