"""The lifecycle steps: guard and conclude an instance's boot and delete (engine only)."""

import logging

from provisioner.compute import instances
from provisioner.compute import states
from provisioner import exception

from flows import constants
from flows.steps import base

LOG = logging.getLogger(__name__)


# The message of a reschedule event; failed_attempts() reads the "why" back.
RESCHEDULE_MESSAGE = 'attempt %d of %d; host %s failed: %s'
_FAILED = ' failed: '


def failed_attempts(instance_id):
    """'host: step: error' of each attempt the boot was rescheduled after, oldest first.

    An instance has one boot flow, so its reschedule events are that boot's.
    """
    return ['%s: %s' % (event['host'], event['message'].partition(_FAILED)[2])
            for event in instances.events(instance_id)
            if event['name'] == constants.RESCHEDULE and event['message']
            and _FAILED in event['message']]


_REVERT = ' (revert)'


def failed_cleanups(instance_id):
    """'step: what: error' of each step whose last revert left something behind."""
    last = {}
    for event in instances.events(instance_id):
        if event['name'].endswith(_REVERT):
            last[event['name'][:-len(_REVERT)]] = event
    return ['%s: %s' % (step, event['message']) for step, event in last.items()
            if event['result'] == 'Error' and event['message']]


class InstanceLifecycleGuard(base.ProvisionerTask):
    """First atom of a boot: does nothing going forward.

    Reversion strategy: runs last during a rollback, when every other step has undone
    its work, and marks the instance ERROR with the fault that caused the rollback.
    """

    def execute(self, instance_id):
        pass

    def revert(self, instance_id, *args, flow_failures=None, **kwargs):
        fault = base.describe_failures(flow_failures)
        earlier = failed_attempts(instance_id)
        if earlier and not any(f.check(exception.NoValidHost)
                               for f in (flow_failures or {}).values()):
            # The last of several attempts failed too: name what failed on each
            # host (a NoValidHost after a reschedule names them already).
            fault = 'Boot failed on each host tried: %s; %s: %s' % (
                '; '.join(earlier), instances.host_of(instance_id), fault)
        leftovers = failed_cleanups(instance_id)
        if leftovers:
            fault = '%s; cleanup failed: %s' % (fault, '; '.join(leftovers))
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
