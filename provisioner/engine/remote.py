"""Send host steps to the worker of the instance's host, over oslo.messaging.

``RemoteStepsEngine`` is TaskFlow's parallel engine with one change: a
``flows.steps.base.HostTask`` is split at its payload. The engine runs its engine
hooks here (``before_run``, ``build_payload``, then ``record`` of the result; for a
revert ``build_undo_payload`` and ``record_undo``) and sends only the payload and
the host half's registered name to the worker listening on ``[worker] topic`` with
``server=<host>`` (the flow store's ``host``), which runs that host half
(``provisioner.worker.rpcapi``).
Engine-side steps (claims, IPAM) run here as before. A failure keeps its exception
type names and message, so retries and faults read it as usual.

A worker that dies mid-step stops sending call heartbeats, and the step fails after
``[worker] heartbeat_timeout``: never a hang. An undo, or a cleanup step of the
delete flow, whose worker cannot be reached is recorded as deferred with its payload;
an engine replays it when that host reports again (``provisioner.engine.reports``),
so a host left alone during an outage is still cleaned up.
"""

import logging

from taskflow.engines.action_engine import engine as tf_engine
from taskflow.engines.action_engine import executor as tf_executor
from taskflow.types import failure as tf_failure

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import rpc
from provisioner.worker import rpcapi as worker_rpcapi

from flows import constants
from flows.steps import base as steps_base
from flows.steps import registry

LOG = logging.getLogger(__name__)

# What a deferred-step row asks for (its payload's 'method').
RUN = 'run'
UNDO = 'undo'


class WorkerUnreachable(exception.ProvisionerError):
    msg_fmt = ('The worker of host %(host)s did not answer step %(step)s within its '
               'timeout (%(reason)s). Is provisioner-worker running on %(host)s?')
    reschedulable = True


def _cause(failures):
    """'step: error' of the failure that made the flow revert, for the host's log."""
    for name, failure in (failures or {}).items():
        return '%s: %s' % (name, failure.exception_str)
    return None


def _row_task(task):
    """What a deferred row names its step by: its registered name, or, while the
    engines are capped below worker API 2.2 (an upgrade: engines of release 2.1 may
    replay the row), the engine half's class path that release reads."""
    if worker_rpcapi.sends_step_names():
        return task.step.name
    return registry.release_2_1_task_path(task.step.name)


def defer(host, task, deferred):
    """Leave the step to the host's worker until it reports back (reports.replay)."""
    with db_api.transaction() as session:
        session.add(models.DeferredHostStep(
            host=host, instance_id=deferred['arguments'].get(constants.INSTANCE_ID, ''),
            task=_row_task(task), name=task.name, payload=deferred))


def run_remote(task, host, arguments, payload):
    """Run the step's host half on host; its recorded result, or a Failure.

    Messaging errors (the worker did not answer) are raised.
    """
    reply = worker_rpcapi.WorkerAPI().run_step(host, task.step.name, task.name,
                                               payload)
    result = worker_rpcapi.decode_result(reply)
    if isinstance(result, tf_failure.Failure):
        return result
    return task.record(result, **arguments)


def undo_remote(task, host, arguments, payload, encoded_result, cause=None):
    """Undo the step's host half on host; None, {CLEANUP_FAILED: [...]} or a Failure."""
    reply = worker_rpcapi.WorkerAPI().undo_step(host, task.step.name, task.name,
                                                payload, encoded_result, cause)
    outcome = worker_rpcapi.decode_result(reply)
    if not isinstance(outcome, tf_failure.Failure):
        task.record_undo(**arguments)
    return outcome


class RemoteTaskExecutor(tf_executor.TaskExecutor):
    """Runs engine-side tasks on the local pool, host-side ones on their worker."""

    def __init__(self, pool, host_of):
        self._local = tf_executor.ParallelThreadTaskExecutor(executor=pool)
        self._pool = pool
        self._host_of = host_of

    def start(self):
        self._local.start()

    def stop(self):
        self._local.stop()

    def execute_task(self, task, task_uuid, arguments, progress_callback=None):
        if not getattr(task, 'runs_on_host', False):
            return self._local.execute_task(task, task_uuid, arguments,
                                            progress_callback=progress_callback)
        return self._submit(self._execute_remote, task, self._host_of(task), arguments)

    def revert_task(self, task, task_uuid, arguments, result, failures,
                    progress_callback=None):
        if not getattr(task, 'runs_on_host', False):
            return self._local.revert_task(task, task_uuid, arguments, result, failures,
                                           progress_callback=progress_callback)
        return self._submit(self._revert_remote, task, self._host_of(task), arguments,
                            result, failures)

    def _submit(self, func, task, *args):
        future = self._pool.submit(func, task, *args)
        future.atom = task
        return future

    @staticmethod
    def _execute_remote(task, host, arguments):
        # Runs on a pool thread; TaskFlow requires the future never to raise.
        payload = None
        try:
            task.before_run(**arguments)
            payload = steps_base.to_wire(task.build_payload(**arguments))
            result = run_remote(task, host, arguments, payload)
        except rpc.messaging_errors() as exc:
            result = tf_failure.Failure.from_exception(WorkerUnreachable(
                host=host, step=task.name, reason=type(exc).__name__))
            if task.deferrable:  # a cleanup: finished when the worker is back
                result = _deferred(host, task, {
                    'method': RUN, 'payload': payload, 'arguments': arguments}, exc)
        except Exception:
            result = tf_failure.Failure()
        return tf_executor.EXECUTED, result

    @staticmethod
    def _revert_remote(task, host, arguments, result, failures):
        if not task.step.has_undo():
            return tf_executor.REVERTED, None
        encoded = worker_rpcapi.encode_result(result)
        payload = None
        try:
            payload = steps_base.to_wire(task.build_undo_payload(**arguments))
            outcome = undo_remote(task, host, arguments, payload, encoded,
                                  _cause(failures))
        except rpc.messaging_errors() as exc:
            # Failing the revert would stop the rollback half-way (TaskFlow gives up
            # on a flow whose revert fails). Defer it to the worker's return instead.
            outcome = _deferred(host, task, {'method': UNDO, 'payload': payload,
                                             'arguments': arguments, 'result': encoded},
                                exc)
        except Exception:
            outcome = tf_failure.Failure()
        return tf_executor.REVERTED, outcome


def _deferred(host, task, deferred, exc):
    LOG.warning('Worker of host %s unreachable (%s): %s of %s deferred until it '
                'reports again', host, type(exc).__name__, deferred['method'], task.name)
    try:
        defer(host, task, deferred)
    except Exception:
        return tf_failure.Failure()
    return None


class RemoteStepsEngine(tf_engine.ParallelActionEngine):
    """The parallel engine whose host-side steps run on the chosen host's worker."""

    def __init__(self, flow, flow_detail, backend, options):
        super().__init__(flow, flow_detail, backend, options)
        self._task_executor = RemoteTaskExecutor(options['executor'], self._stored_host)

    def _stored_host(self, task):
        return self.storage.fetch(getattr(task, 'host_key', constants.HOST))
