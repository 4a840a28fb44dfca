"""Steps that guard and conclude an instance's lifecycle."""

import logging

from provisioner.compute import instances
from provisioner.compute import states
from provisioner import exception

from flows.tasks import base

LOG = logging.getLogger(__name__)


def describe_failures(flow_failures, what='Boot'):
    """One line naming the step that failed and why, for the instance's fault."""
    if not flow_failures:
        return '%s failed for an unknown reason.' % what
    step, failure = next(iter(flow_failures.items()))
    if failure.check(exception.ProvisionerError):
        return '%s: %s' % (step, failure.exception_str)
    return '%s: %s: %s' % (step, next(iter(failure), 'Error'), failure.exception_str)


class InstanceLifecycleGuard(base.ProvisionerTask):
    """First atom of a boot: does nothing going forward.

    Reversion strategy: runs last during a rollback, when every other step has undone
    its work, and marks the instance ERROR with the fault that caused the rollback.
    """

    def execute(self, instance_id):
        pass

    def revert(self, instance_id, *args, flow_failures=None, **kwargs):
        fault = describe_failures(flow_failures)
        LOG.warning('Boot of instance %s rolled back: %s', instance_id, fault)
        instances.set_error(instance_id, fault)


class MarkActive(base.ProvisionerTask):
    """Record the instance as active and running (step 29).

    Reversion strategy: none; it is the last step, nothing after it can fail.
    """

    def execute(self, instance_id):
        # launched_at is the first time the guest ran (Nova's): a boot runs once.
        instances.update(instance_id, vm_state=states.ACTIVE, task_state=None,
                         power_state=states.RUNNING, fault=None,
                         launched_at=instances.now())


class MarkDeleted(base.ProvisionerTask):
    """Record the instance as deleted once everything it owned is gone."""

    def execute(self, instance_id):
        instances.update(instance_id, vm_state=states.DELETED, task_state=None,
                         power_state=states.NOSTATE, deleted_at=instances.now())
