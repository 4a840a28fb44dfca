"""Test-only fault points, installed on an engine only when [fault_injection] asks.

A point fires right after a step's execute returned and before TaskFlow persisted its
result: the worst instant for an interruption (the step changed the world, the flow
store does not know it did). The runner wraps the engine's task executor; no step
class carries the hook. A worker checks its own points after the host steps it runs
(provisioner.worker.endpoint).
"""

import futurist
from taskflow.engines.action_engine import executor as tf_executor
from taskflow.types import failure as tf_failure

from provisioner.compute import instances
from provisioner.conf import CONF
from provisioner import fault_injection

from flows import constants


def configured():
    return bool(CONF.fault_injection.fail_after_step
                or CONF.fault_injection.crash_after_step
                or CONF.fault_injection.pause_after_step)


def install(engine):
    """Give a loaded TaskFlow engine the fault points; the engine, as it was, else."""
    if configured():
        # Every action engine runs its tasks through this one attribute.
        engine._task_executor = FaultPoints(engine._task_executor)
    return engine


def _host_of(arguments):
    """The instance's chosen host, for STEP@HOST points (None before the claim)."""
    instance_id = arguments.get(constants.INSTANCE_ID)
    if instance_id is None or not fault_injection.scoped_to_hosts():
        return None
    return instances.host_of(instance_id)


class FaultPoints(tf_executor.TaskExecutor):
    """A task executor that runs the fault point of each step after its execute."""

    def __init__(self, inner):
        self._inner = inner

    def start(self):
        self._inner.start()

    def stop(self):
        self._inner.stop()

    def revert_task(self, task, task_uuid, arguments, result, failures,
                    progress_callback=None):
        return self._inner.revert_task(task, task_uuid, arguments, result, failures,
                                       progress_callback=progress_callback)

    def execute_task(self, task, task_uuid, arguments, progress_callback=None):
        done = futurist.Future()
        done.atom = task  # what TaskFlow's completer reads, as its executors set it
        # Uncancellable, as the step pool's futures are (provisioner.engine.step_pool).
        done.set_running_or_notify_cancel()

        def check(future):
            # A future of TaskFlow's executors never raises: (event, result).
            event, result = future.result()
            if not isinstance(result, tf_failure.Failure):
                try:
                    fault_injection.check(task.name, host=_host_of(arguments))
                except Exception:
                    result = tf_failure.Failure()
            done.set_result((event, result))

        self._inner.execute_task(task, task_uuid, arguments,
                                 progress_callback=progress_callback
                                 ).add_done_callback(check)
        return done
