"""Flow listeners: record every step as an instance event and report it live."""

import logging
import time

from taskflow.listeners import base as listener_base
from taskflow import states as tf_states

from provisioner.compute import instances
from provisioner.conf import CONF

LOG = logging.getLogger(__name__)

_START = {tf_states.RUNNING: '', tf_states.REVERTING: ' (revert)'}
_END = {tf_states.SUCCESS: ('', 'Success'), tf_states.FAILURE: ('', 'Error'),
        tf_states.REVERTED: (' (revert)', 'Success'),
        tf_states.REVERT_FAILURE: (' (revert)', 'Error')}


class StepEvent:
    """What a progress reporter is told when a step starts or ends."""

    __slots__ = ('name', 'finished', 'result', 'duration', 'message')

    def __init__(self, name, finished, result=None, duration=None, message=None):
        self.name = name
        self.finished = finished
        self.result = result
        self.duration = duration
        self.message = message


class EventRecorder(listener_base.Listener):
    """Write an instance event (name, start, finish, result, host) per step.

    ``progress`` (optional) is called with a StepEvent at each start and end, so the
    CLI shows steps live without polling the database.
    """

    def __init__(self, engine, instance_id, progress=None):
        super().__init__(engine, task_listen_for=tuple(_START) + tuple(_END),
                         flow_listen_for=(), retry_listen_for=())
        self._instance_id = instance_id
        self._progress = progress
        self._open = {}  # event name -> (event id, monotonic start)

    def _task_receiver(self, state, details):
        name = details['task_name']
        if state in _START:
            event_name = name + _START[state]
            event_id = instances.record_event_start(self._instance_id, event_name,
                                                    CONF.host)
            self._open[event_name] = (event_id, time.monotonic())
            self._report(StepEvent(event_name, finished=False))
            return
        suffix, result = _END[state]
        event_name = name + suffix
        message = None
        failure = details.get('result')
        if result == 'Error' and failure is not None:
            message = failure.exception_str
        opened = self._open.pop(event_name, None)
        if opened is None:  # started before a crash: close_interrupted_events saw to it
            return
        event_id, began = opened
        instances.record_event_finish(event_id, result, message)
        duration = time.monotonic() - began
        LOG.info('Instance %s: step %s %s in %.2fs', self._instance_id, event_name,
                 result.lower(), duration)
        self._report(StepEvent(event_name, True, result, duration, message))

    def _report(self, event):
        if self._progress is not None:
            try:
                self._progress(event)
            except Exception:  # a broken terminal must not break the boot
                LOG.debug('Progress reporter failed', exc_info=True)
