"""Test-only fault points: fail or die right after a step's side effect.

The worst moment for a step to be interrupted is after it changed the world and before
its result was persisted; that is where these points sit, so the tests that use them
prove that revert and resume find what the step left.
"""

import functools
import logging
import os
import signal

from provisioner.conf import CONF
from provisioner import exception

LOG = logging.getLogger(__name__)


def check(step_name):
    if step_name in CONF.fault_injection.crash_after_step:
        LOG.warning('Fault injection: killing this process after step %s', step_name)
        os.kill(os.getpid(), signal.SIGKILL)
    if step_name in CONF.fault_injection.fail_after_step:
        raise exception.InjectedFault(step=step_name)


def after_execute(execute):
    """Wrap a task's execute so the fault point for its name runs after it."""

    @functools.wraps(execute)
    def wrapper(self, *args, **kwargs):
        result = execute(self, *args, **kwargs)
        check(self.name)
        return result

    return wrapper
