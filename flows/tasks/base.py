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
