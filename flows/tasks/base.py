"""What every step shares: the hypervisor driver of this host and the fault point."""

import contextvars
import functools
import logging

from taskflow import task

from provisioner import faults
from provisioner import virt

from flows import constants

LOG = logging.getLogger(__name__)


def driver():
    return virt.get_driver()


# The cleanup errors of the revert running in this thread (None outside a revert).
_cleanup_failures = contextvars.ContextVar('cleanup_failures', default=None)


def undo(what, func, *args):
    """Run one cleanup action; swallow its error so the others still run.

    The error goes to the log (WARNING, with its traceback: the log file, not the
    user's terminal) and into the revert's result, which the step's event and the
    instance's fault show.
    """
    try:
        func(*args)
    except Exception as exc:
        LOG.warning('Cleanup failed: %s: %s', what, exc, exc_info=True)
        failures = _cleanup_failures.get()
        if failures is not None:
            failures.append('%s: %s' % (what, exc))


def _reporting_cleanup_failures(revert):
    """Wrap a revert so it returns {CLEANUP_FAILED: [...]} when an undo() failed."""

    @functools.wraps(revert)
    def wrapper(self, *args, **kwargs):
        token = _cleanup_failures.set([])
        try:
            result = revert(self, *args, **kwargs)
            failed = _cleanup_failures.get()
        finally:
            _cleanup_failures.reset(token)
        return {constants.CLEANUP_FAILED: failed} if failed else result

    return wrapper


class ProvisionerTask(task.Task):
    """Base of every step: adds the test-only fault point after each execute, and
    reports the cleanup errors of its revert as the revert's result."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if 'execute' in cls.__dict__:
            cls.execute = faults.after_execute(cls.__dict__['execute'])
        if 'revert' in cls.__dict__:
            cls.revert = _reporting_cleanup_failures(cls.__dict__['revert'])


class HostTask(ProvisionerTask):
    """A step that changes the chosen host (disks, networks, the domain).

    All-in-one it runs in-process; distributed, the engine's executor sends it to the
    worker of the instance's host (``provisioner.engine.remote``). Its arguments and
    result cross the wire as JSON, so they are IDs, paths and plain dicts.
    """

    runs_on_host = True
    # A cleanup (delete flow) may run later, when its host's worker is back; a boot
    # step may not.
    deferrable = False

    def capture(self, arguments):
        """Arguments for running this step later; add what may be gone by then."""
        return arguments
