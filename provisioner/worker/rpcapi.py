"""Client side of the worker RPC API: what an engine sends a host's worker.

API version history (the endpoint, ``provisioner.worker.endpoint``, serves the
newest; ``[upgrade_levels] worker`` caps what the engines send during an upgrade):

* 1.0 - ``execute_task``/``revert_task(task, name, arguments, deadline[, result,
  flow_failures])``: a TaskFlow task path and the flow's arguments; the worker read
  the database to run the step.
* 2.0 - ``run_step``/``undo_step(step, name, payload, deadline[, result])``: a
  host step's class path (``flows.host.domain_steps.DefineDomain``) and its typed
  payload (issue 13); the worker never reads the database, the engine records the
  result. 1.0 is gone: no worker that could serve it is left without database
  credentials.
* 2.1 - ``undo_step`` takes ``cause``: why the engine undoes the step
  ('step: error'), so the host's log says it.
* 2.2 - ``step`` is a registered step name (``'domain.define'``,
  ``flows.steps.registry``), not a class path (issue 21). A worker still accepts
  the class paths release 2.1 sent; an engine capped below 2.2 sends them.
"""

import logging
import time

from taskflow.types import failure as tf_failure

from provisioner.conf import CONF
from provisioner import rpc

from flows.steps import registry

LOG = logging.getLogger(__name__)

BASE_VERSION = '2.0'
VERSION = '2.2'
UNDO_CAUSE = '2.1'
STEP_NAMES = '2.2'


# -- the wire format of a step's outcome, shared with the endpoint ----------------------

def encode_result(result):
    if isinstance(result, tf_failure.Failure):
        return {'failure': result.to_dict()}
    return {'result': result}


def decode_result(reply):
    if 'failure' in reply:
        return tf_failure.Failure.from_dict(reply['failure'])
    return reply['result']


class WorkerAPI:
    """Sends one host step to the worker of a host (topic ``[worker] topic``,
    server = the host) and returns its encoded outcome.

    A call the worker does not answer (heartbeats stop for ``[worker]
    heartbeat_timeout``) is sent again, up to ``[worker] step_attempts`` times: steps
    are idempotent. The last attempt's messaging error is raised.
    """

    def __init__(self):
        self.client = rpc.get_client(
            CONF.worker.topic, timeout=CONF.worker.task_timeout,
            call_monitor_timeout=CONF.worker.heartbeat_timeout,
            version=BASE_VERSION, version_cap=CONF.upgrade_levels.worker)

    def _call(self, host, version, method, **kwargs):
        cctxt = self.client.prepare(server=host, version=version)
        attempts = CONF.worker.step_attempts
        for attempt in range(1, attempts + 1):
            # A message queued while the worker was down is dropped there once late.
            deadline = time.time() + CONF.worker.heartbeat_timeout
            try:
                return cctxt.call({}, method, deadline=deadline, **kwargs)
            except rpc.messaging_errors() as exc:
                if attempt == attempts:
                    raise
                LOG.warning('No answer from the worker of host %s to %s (%s); sending '
                            'it again (%d/%d)', host, kwargs['name'],
                            type(exc).__name__, attempt + 1, attempts)

    def sends_step_names(self):
        return self.client.can_send_version(STEP_NAMES)

    def run_step(self, host, step, name, payload):
        """Run the host step registered as ``step``; ``name`` is its atom's."""
        if self.sends_step_names():
            return self._call(host, STEP_NAMES, 'run_step', step=step, name=name,
                              payload=payload)
        return self._call(host, BASE_VERSION, 'run_step',
                          step=registry.release_2_1_path(step), name=name,
                          payload=payload)

    def undo_step(self, host, step, name, payload, result, cause=None):
        kwargs = {'name': name, 'payload': payload, 'result': result}
        if self.sends_step_names():
            return self._call(host, STEP_NAMES, 'undo_step', step=step, cause=cause,
                              **kwargs)
        kwargs['step'] = registry.release_2_1_path(step)
        if self.client.can_send_version(UNDO_CAUSE):
            return self._call(host, UNDO_CAUSE, 'undo_step', cause=cause, **kwargs)
        return self._call(host, BASE_VERSION, 'undo_step', **kwargs)


def sends_step_names():
    """Whether the engines send registered step names (not capped below 2.2)."""
    return WorkerAPI().sends_step_names()
