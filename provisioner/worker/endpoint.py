"""The worker's RPC endpoint: execute and revert the host-side steps sent to it.

Only step classes that are HostTasks from the flows package are accepted: a message
names a class, and a worker must never import whatever a message names.
"""

import functools
import logging
import time

from oslo_utils import importutils
from taskflow.types import failure as tf_failure

from provisioner import exception
from provisioner.engine import remote

from flows.tasks import base

LOG = logging.getLogger(__name__)

_TASK_PACKAGE = 'flows.tasks.'


class StaleRequest(exception.ProvisionerError):
    msg_fmt = ('Step %(step)s reached this worker %(late).1f s after its sender gave '
               'up on it; not running it.')


class UnknownStep(exception.ProvisionerError):
    msg_fmt = 'Refusing step class %(task)s: not a host-side step of provisioner.'


@functools.lru_cache(maxsize=64)
def _task_class(path):
    if not path.startswith(_TASK_PACKAGE):
        raise UnknownStep(task=path)
    try:
        cls = importutils.import_class(path)
    except ImportError:
        raise UnknownStep(task=path)
    if not (isinstance(cls, type) and issubclass(cls, base.HostTask)):
        raise UnknownStep(task=path)
    return cls


def run_step(method, task, name, arguments, result=None, flow_failures=None):
    """Execute or revert one step here; return the wire-encoded outcome."""
    try:
        step = _task_class(task)(name)
        if method == remote.EXECUTE:
            outcome = step.execute(**arguments)
        else:
            outcome = step.revert(result=remote.decode_result(result or {'result': None}),
                                  flow_failures=remote.decode_failures(flow_failures),
                                  **arguments)
    except Exception:
        outcome = tf_failure.Failure()
        LOG.warning('Step %s (%s) failed here: %s', name, method,
                    outcome.exception_str)
    return remote.encode_result(outcome)


class HostStepsEndpoint:
    """Serves ``execute_task`` and ``revert_task`` on topic [worker] topic.<host>."""

    def __init__(self, host):
        self.host = host

    @staticmethod
    def _check_deadline(name, deadline):
        late = time.time() - deadline
        if late > 0:
            # Queued while this worker was down: the engine gave up and moved on.
            LOG.warning('Dropping stale step %s (%.1f s late)', name, late)
            return remote.encode_result(tf_failure.Failure.from_exception(
                StaleRequest(step=name, late=late)))
        return None

    def execute_task(self, ctxt, task, name, arguments, deadline):
        LOG.info('Executing step %s for instance %s', name, arguments.get('instance_id'))
        return (self._check_deadline(name, deadline)
                or run_step(remote.EXECUTE, task, name, arguments))

    def revert_task(self, ctxt, task, name, arguments, result, flow_failures, deadline):
        LOG.info('Reverting step %s for instance %s', name, arguments.get('instance_id'))
        return (self._check_deadline(name, deadline)
                or run_step(remote.REVERT, task, name, arguments, result, flow_failures))
