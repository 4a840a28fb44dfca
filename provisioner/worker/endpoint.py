"""The worker's RPC endpoint: run and undo the host steps engines send it.

A message names a host step by its registered name (worker RPC API 2.2), or by the
class path an engine of release 2.1 sends (``flows.steps.registry``); anything else
is refused. A step runs from its typed payload alone: a worker has no database.
"""

import logging
import time

from taskflow.types import failure as tf_failure

from provisioner import exception
from provisioner import fault_injection
from provisioner import rpc
from provisioner.worker import rpcapi

from flows.steps import base as steps_base
from flows.steps import registry

LOG = logging.getLogger(__name__)


class StaleRequest(exception.ProvisionerError):
    msg_fmt = ('Step %(step)s reached this worker %(late).1f s after its sender gave '
               'up on it; not running it.')


def run_step(host, step, name, payload):
    """Run one step here; the wire-encoded outcome. The fault point follows it."""
    try:
        cls = registry.host_step_named(step)
        outcome = cls().run(steps_base.from_wire(cls.Payload, payload))
        fault_injection.check(name, host=host)
    except Exception:
        outcome = tf_failure.Failure()
        LOG.warning('Step %s failed here: %s', name, outcome.exception_str)
    return rpcapi.encode_result(outcome)


def undo_step(step, name, payload, result):
    """Undo one step here; the wire-encoded outcome ({CLEANUP_FAILED: [...]} or None)."""
    try:
        cls = registry.host_step_named(step)
        outcome = cls().undo(steps_base.from_wire(cls.UndoPayload, payload),
                             rpcapi.decode_result(result))
    except Exception:
        outcome = tf_failure.Failure()
        LOG.warning('Undoing step %s failed here: %s', name, outcome.exception_str)
    return rpcapi.encode_result(outcome)


class HostStepsEndpoint:
    """Serves ``run_step`` and ``undo_step`` on topic [worker] topic, server = host.

    ``version`` is the newest API version served (``rpcapi.VERSION``);
    ``_step_class`` finds the step a message names, or raises UnknownStep: the steps
    this version accepts (private: the dispatcher serves every public attribute).
    """

    version = rpcapi.VERSION
    _step_class = staticmethod(registry.host_step_named)

    def __init__(self, host):
        self.host = host
        self.target = rpc.endpoint_target(self.version)

    def _refused(self, step, name):
        try:
            self._step_class(step)
        except registry.UnknownStep:
            outcome = tf_failure.Failure()
            LOG.warning('Refusing step %s: %s', name, outcome.exception_str)
            return rpcapi.encode_result(outcome)
        return None

    @staticmethod
    def _stale(name, deadline):
        late = time.time() - deadline
        if late > 0:
            # Queued while this worker was down: the engine gave up and moved on.
            LOG.warning('Dropping stale step %s (%.1f s late)', name, late)
            return rpcapi.encode_result(tf_failure.Failure.from_exception(
                StaleRequest(step=name, late=late)))
        return None

    def run_step(self, ctxt, step, name, payload, deadline):
        LOG.info('Running step %s for instance %s', name, payload.get('instance_id'))
        return (self._stale(name, deadline) or self._refused(step, name)
                or run_step(self.host, step, name, payload))

    def undo_step(self, ctxt, step, name, payload, result, deadline, cause=None):
        LOG.info('Undoing step %s for instance %s%s', name, payload.get('instance_id'),
                 ' after %s' % cause if cause else '')
        return (self._stale(name, deadline) or self._refused(step, name)
                or undo_step(step, name, payload, result))
