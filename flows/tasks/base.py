"""What every step shares: the hypervisor driver of this host and the fault point."""

import logging

from taskflow import task

from provisioner import faults
from provisioner import virt

LOG = logging.getLogger(__name__)


def driver():
    return virt.get_driver()


def undo(what, func, *args):
    """Run one cleanup action; log and swallow its error so the others still run."""
    try:
        func(*args)
    except Exception:
        LOG.exception('Cleanup failed: %s', what)


class ProvisionerTask(task.Task):
    """Base of every step: adds the test-only fault point after each execute."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if 'execute' in cls.__dict__:
            cls.execute = faults.after_execute(cls.__dict__['execute'])


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
