"""Test-only fault points: fail, die or pause right after a step's side effect.

The worst moment for a step to be interrupted is after it changed the world and before
its result was persisted; that is where these points sit, so the tests that use them
prove that revert and resume find what the step left. The engine installs them
(provisioner.engine.fault_points) and a worker checks them after its host steps,
only when [fault_injection] names a step: no step class carries them.
"""

import logging
import os
import signal
import time

from provisioner.conf import CONF
from provisioner import exception

LOG = logging.getLogger(__name__)


class InjectedHostFault(exception.ProvisionerError):
    """A fault injected on one host only (``STEP@HOST``): another host may succeed."""

    msg_fmt = "Injected fault at step %(step)s on host %(host)s"


def scoped_to_hosts():
    """Whether any fault names a host (STEP@HOST), so callers look the host up."""
    return any('@' in entry for entry in CONF.fault_injection.fail_after_step)


def _check_on_host(step_name, host):
    scoped = [entry.partition('@')[2] for entry in CONF.fault_injection.fail_after_step
              if entry.startswith(step_name + '@')]
    if scoped and host is not None and ('*' in scoped or host in scoped):
        raise InjectedHostFault(step=step_name, host=host)


def check(step_name, host=None):
    """The fault point of a step that just ran; ``host`` is the instance's host, if
    known (the caller looks it up: this module imports nothing above it)."""
    _check_on_host(step_name, host)
    if step_name in CONF.fault_injection.crash_after_step:
        LOG.warning('Fault injection: killing this process after step %s', step_name)
        os.kill(os.getpid(), signal.SIGKILL)
    if step_name in CONF.fault_injection.pause_after_step:
        LOG.warning('Fault injection: pausing %.1f s after step %s',
                    CONF.fault_injection.pause_seconds, step_name)
        time.sleep(CONF.fault_injection.pause_seconds)
    if step_name in CONF.fault_injection.fail_after_step:
        raise exception.InjectedFault(step=step_name)


def stop_taking_lease():
    """Stop this process (SIGSTOP) inside the transaction that takes a lease."""
    LOG.warning('Fault injection: stopping this process (SIGSTOP) while it takes '
                'an instance\'s lease')
    os.kill(os.getpid(), signal.SIGSTOP)
