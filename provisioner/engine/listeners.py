"""Flow listeners: record every step as an instance event and report it live."""

import contextlib
import logging
import time

from taskflow.listeners import base as listener_base
from taskflow.persistence import models as tf_models
from taskflow import states as tf_states

from provisioner.compute import instances
from provisioner.conf import CONF
from provisioner.engine import cleanups
from provisioner.engine import persistence
from provisioner.progress import StepEvent
from provisioner import redact

from flows import constants

LOG = logging.getLogger(__name__)

_START = {tf_states.RUNNING: '', tf_states.REVERTING: ' (revert)'}
_END = {tf_states.SUCCESS: ('', 'Success'), tf_states.FAILURE: ('', 'Error'),
        tf_states.REVERTED: (' (revert)', 'Success'),
        tf_states.REVERT_FAILURE: (' (revert)', 'Error')}


def _ending(atom_detail):
    """What a task's end state carries: what the notification of that end calls
    its result (the result, the revert's result, or the failure)."""
    return {tf_states.SUCCESS: atom_detail.results,
            tf_states.FAILURE: atom_detail.failure,
            tf_states.REVERTED: atom_detail.revert_results,
            tf_states.REVERT_FAILURE: atom_detail.revert_failure}[atom_detail.state]


def _outcome(name, state, failure):
    """(event name, result, message, what was left behind) of a step's end."""
    suffix, result = _END[state]
    message = None
    left_behind = [redact.redact(f) for f in cleanups.cleanup_failures(failure)]
    is_cleanup = bool(suffix) or cleanups.is_cleanup_step(name)
    if result == 'Error' and failure is not None:
        message = redact.redact(failure.exception_str)
        if is_cleanup:  # a failed revert or delete step left its resource
            left_behind = ['%s: %s' % (name, message)]
    elif left_behind:
        # The step ran to its end, but left something behind: say what.
        result = 'Error'
        message = '; '.join(left_behind)
    return name + suffix, result, message, left_behind


class EventRecorder(listener_base.Listener):
    """Write an instance event (name, start, finish, result, host) per step.

    One write per step, when it ends: the start is kept in memory. For a persisted
    flow (``flow_detail``) the event is written in the transaction that stores the
    step's end state (persistence.recording), so a step's end costs one transaction;
    otherwise (a flow kept in memory, TaskFlow's stock backend) on its own, when
    TaskFlow reports the end. A step that was running when its process died is
    recorded as 'Interrupted' by the runner, from TaskFlow's own atom states, when
    the flow is resumed.
    ``progress`` (optional) is called with a StepEvent at each start and end, so the
    CLI shows steps live without polling the database. ``action_id``: the instance
    action the flow carries out; its events are these steps.
    """

    def __init__(self, engine, instance_id, progress=None, action_id=None,
                 flow_detail=None):
        super().__init__(engine, task_listen_for=tuple(_START) + tuple(_END),
                         flow_listen_for=(), retry_listen_for=())
        self._instance_id = instance_id
        self._action_id = action_id
        self._progress = progress
        self._flow_detail = flow_detail
        self._recording = contextlib.ExitStack()
        self._open = {}  # event name -> (wall clock start, monotonic start)
        self._stored_state = {}  # atom uuid -> its state as last stored
        self._recorded = set()  # (atom uuid, state): event written with that state

    def register(self):
        super().register()
        if self._flow_detail is not None:
            self._stored_state = {atom_detail.uuid: atom_detail.state
                                  for atom_detail in self._flow_detail}
            self._recording.enter_context(
                persistence.recording(self._flow_detail, self._write_with_state))

    def deregister(self):
        self._recording.close()
        super().deregister()

    def _write_with_state(self, conn, atom_detail):
        """In the transaction storing an atom's state: a task's end writes its event.

        Called for every write of the flow's atoms; only a task's move into an end
        state (not a rewrite of the same state: an intention, a result) is a step's
        end, the one TaskFlow reports next.
        """
        state = atom_detail.state
        ended = (state in _END and isinstance(atom_detail, tf_models.TaskDetail)
                 and self._stored_state.get(atom_detail.uuid) != state)
        if ended:
            event_name, result, message, _left = _outcome(atom_detail.name, state,
                                                          _ending(atom_detail))
            started_at, _began = self._open.get(event_name, (instances.now(), None))
            instances.record_event(self._instance_id, event_name, CONF.host,
                                   started_at, result, message,
                                   action_id=self._action_id, conn=conn)

        def committed():
            self._stored_state[atom_detail.uuid] = state
            if ended:
                self._recorded.add((atom_detail.uuid, state))

        return committed

    def _task_receiver(self, state, details):
        name = details['task_name']
        if state in _START:
            event_name = name + _START[state]
            self._open[event_name] = (instances.now(), time.monotonic())
            self._report(StepEvent(event_name, finished=False))
            return
        event_name, result, message, left_behind = _outcome(name, state,
                                                            details.get('result'))
        if left_behind:
            cleanups.record(self._instance_id, name, self._host(), left_behind)
        elif state == tf_states.SUCCESS and cleanups.is_cleanup_step(name):
            cleanups.resolve(self._instance_id, name)
        # A step resumed from RUNNING gets no RUNNING notification (TaskFlow sees no
        # transition): its start is unknown, so it is recorded as starting now.
        started_at, began = self._open.pop(event_name, (instances.now(), None))
        key = (details.get('task_uuid'), state)
        if key in self._recorded:
            self._recorded.discard(key)  # written with the step's end state
        else:
            instances.record_event(self._instance_id, event_name, CONF.host,
                                   started_at, result, message,
                                   action_id=self._action_id)
        duration = time.monotonic() - began if began is not None else None
        LOG.info('Instance %s: step %s %s', self._instance_id, event_name, result.lower())
        self._report(StepEvent(event_name, True, result, duration, message))

    def _host(self):
        """The host the flow's host steps ran on (the store's), else this one."""
        try:
            return self._engine.storage.fetch(constants.HOST) or CONF.host
        except Exception:  # a flow that never chose a host
            return instances.host_of(self._instance_id) or CONF.host

    def _report(self, event):
        if self._progress is not None:
            try:
                self._progress(event)
            except Exception:  # a broken terminal must not break the boot
                LOG.debug('Progress reporter failed', exc_info=True)
