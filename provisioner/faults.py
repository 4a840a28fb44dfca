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


class InjectedHostFault(exception.ProvisionerError):
    """A fault injected on one host only (``STEP@HOST``): another host may succeed."""

    msg_fmt = "Injected fault at step %(step)s on host %(host)s"


def _check_on_host(step_name, instance_id):
    scoped = [entry.partition('@')[2] for entry in CONF.fault_injection.fail_after_step
              if entry.startswith(step_name + '@')]
    if not scoped or instance_id is None:
        return
    from provisioner.compute import instances
    host = instances.host_of(instance_id)
    if '*' in scoped or host in scoped:
        raise InjectedHostFault(step=step_name, host=host)


def check(step_name, instance_id=None):
    _check_on_host(step_name, instance_id)
    if step_name in CONF.fault_injection.crash_after_step:
        LOG.warning('Fault injection: killing this process after step %s', step_name)
        os.kill(os.getpid(), signal.SIGKILL)
    if step_name in CONF.fault_injection.fail_after_step:
        raise exception.InjectedFault(step=step_name)


def stop_taking_lease():
    """Stop this process (SIGSTOP) inside the transaction that takes a lease."""
    LOG.warning('Fault injection: stopping this process (SIGSTOP) while it takes '
                'an instance\'s lease')
    os.kill(os.getpid(), signal.SIGSTOP)


def after_execute(execute):
    """Wrap a task's execute so the fault point for its name runs after it."""

    @functools.wraps(execute)
    def wrapper(self, *args, **kwargs):
        result = execute(self, *args, **kwargs)
        check(self.name, kwargs.get('instance_id'))
        return result

    return wrapper
