"""Send host-side steps to the worker of the instance's host, over oslo.messaging.

``RemoteStepsEngine`` is TaskFlow's parallel engine with one change: a task marked
``runs_on_host`` (flows.tasks.base.HostTask) is executed and reverted by the worker
listening on ``[worker] topic`` with ``server=<host>``, where host is the one the
claim chose (the flow store's ``host``). Engine-side steps (claims, IPAM, the
database) run here as before. Results and failures cross the wire as JSON; a failure
keeps its exception type names and message, so retries and faults read it as usual.

A worker that dies mid-step stops sending call heartbeats, and the step fails after
``[worker] heartbeat_timeout``: never a hang. A revert, or a cleanup step of the
delete flow, whose worker cannot be reached is recorded as deferred; the worker
replays it when it comes back, so a host left alone during an outage is still
cleaned up.
"""

import logging
import time

from oslo_utils import reflection
from taskflow.engines.action_engine import engine as tf_engine
from taskflow.engines.action_engine import executor as tf_executor
from taskflow.types import failure as tf_failure

from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import faults
from provisioner import rpc

from flows import constants

LOG = logging.getLogger(__name__)

EXECUTE = 'execute_task'
REVERT = 'revert_task'


class WorkerUnreachable(exception.ProvisionerError):
    msg_fmt = ('The worker of host %(host)s did not answer step %(step)s within its '
               'timeout (%(reason)s). Is provisioner-worker running on %(host)s?')
    reschedulable = True


# -- the wire format, shared with provisioner.worker.endpoint --------------------------

def encode_result(result):
    if isinstance(result, tf_failure.Failure):
        return {'failure': result.to_dict()}
    return {'result': result}


def decode_result(reply):
    if 'failure' in reply:
        return tf_failure.Failure.from_dict(reply['failure'])
    return reply['result']


def encode_failures(failures):
    return {name: failure.to_dict() for name, failure in (failures or {}).items()}


def decode_failures(failures):
    return {name: tf_failure.Failure.from_dict(data)
            for name, data in (failures or {}).items()}


def task_path(task):
    return reflection.get_class_name(task, fully_qualified=True)


# -- the engine side -------------------------------------------------------------------

def _defer(host, task, payload):
    """Leave the step to the host's worker, which replays it when it is back."""
    with db_api.transaction() as session:
        session.add(models.DeferredHostStep(
            host=host, instance_id=payload['arguments'].get(constants.INSTANCE_ID, ''),
            task=task_path(task), name=task.name, payload=payload))


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
        return self._submit(self._execute_remote, task, self._host_of(), arguments)

    def revert_task(self, task, task_uuid, arguments, result, failures,
                    progress_callback=None):
        if not getattr(task, 'runs_on_host', False):
            return self._local.revert_task(task, task_uuid, arguments, result, failures,
                                           progress_callback=progress_callback)
        return self._submit(self._revert_remote, task, self._host_of(), arguments,
                            result, failures)

    def _submit(self, func, task, *args):
        future = self._pool.submit(func, task, *args)
        future.atom = task
        return future

    @staticmethod
    def _call(method, host, payload):
        """Send the step to the host's worker; again, up to step_attempts, if unanswered."""
        client = rpc.get_client(CONF.worker.topic, timeout=CONF.worker.task_timeout,
                                call_monitor_timeout=CONF.worker.heartbeat_timeout)
        attempts = CONF.worker.step_attempts
        for attempt in range(1, attempts + 1):
            payload['deadline'] = time.time() + CONF.worker.heartbeat_timeout
            try:
                return client.prepare(server=host).call({}, method, **payload)
            except rpc.messaging_errors() as exc:
                if attempt == attempts:
                    raise
                LOG.warning('No answer from the worker of host %s to %s (%s); sending '
                            'it again (%d/%d)', host, payload['name'],
                            type(exc).__name__, attempt + 1, attempts)

    def _execute_remote(self, task, host, arguments):
        # Runs on a pool thread; TaskFlow requires the future never to raise.
        try:
            reply = self._call(EXECUTE, host, {'task': task_path(task), 'name': task.name,
                                               'arguments': arguments})
            result = decode_result(reply)
            if not isinstance(result, tf_failure.Failure):
                # The engine's own fault point: after the worker changed the host,
                # before the engine persisted that it did.
                faults.check(task.name)
        except rpc.messaging_errors() as exc:
            result = tf_failure.Failure.from_exception(WorkerUnreachable(
                host=host, step=task.name, reason=type(exc).__name__))
            if task.deferrable:  # a cleanup: the worker finishes it when back
                result = self._deferred(host, task, {
                    'method': EXECUTE, 'arguments': task.capture(arguments)}, exc)
        except Exception:
            result = tf_failure.Failure()
        return tf_executor.EXECUTED, result

    @staticmethod
    def _deferred(host, task, payload, exc):
        LOG.warning('Worker of host %s unreachable (%s): %s of %s deferred until it '
                    'returns', host, type(exc).__name__, payload['method'], task.name)
        try:
            _defer(host, task, dict(payload, task=task_path(task), name=task.name))
        except Exception:
            return tf_failure.Failure()
        return None

    def _revert_remote(self, task, host, arguments, result, failures):
        payload = {'task': task_path(task), 'name': task.name, 'arguments': arguments,
                   'result': encode_result(result),
                   'flow_failures': encode_failures(failures)}
        try:
            reply = self._call(REVERT, host, dict(payload))
            outcome = decode_result(reply)
        except rpc.messaging_errors() as exc:
            # Failing the revert would stop the rollback half-way (TaskFlow gives up
            # on a flow whose revert fails). Defer it to the worker instead.
            outcome = self._deferred(host, task, dict(payload, method=REVERT), exc)
        except Exception:
            outcome = tf_failure.Failure()
        return tf_executor.REVERTED, outcome


class RemoteStepsEngine(tf_engine.ParallelActionEngine):
    """The parallel engine whose host-side steps run on the chosen host's worker."""

    def __init__(self, flow, flow_detail, backend, options):
        super().__init__(flow, flow_detail, backend, options)
        self._task_executor = RemoteTaskExecutor(options['executor'], self._stored_host)

    def _stored_host(self):
        return self.storage.fetch(constants.HOST)
