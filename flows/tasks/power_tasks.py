"""Steps of the power actions: stop, start and reboot an instance's domain.

The host-side steps are idempotent in the sense a resume needs: powering off a
domain that is off, or on one that runs, succeeds and changes nothing. A reboot run
again after a crash reboots the guest once more, which is what was asked anyway.
"""

import logging

from provisioner.compute import actions
from provisioner.compute import instances
from provisioner.compute import power

from flows.host import power_steps
from flows.tasks import base
from flows.tasks import lifecycle_tasks

LOG = logging.getLogger(__name__)


class PowerActionGuard(base.ProvisionerTask):
    """First atom of a stop, start or reboot: does nothing going forward.

    Reversion strategy: runs last during a rollback, once the host step put the
    domain back as it was; clears task_state (vm_state is left alone: a failed stop
    leaves the instance active) and finishes the action with the fault as message.
    """

    def execute(self, instance_id, action_id):
        pass

    def revert(self, instance_id, action_id, *args, flow_failures=None, **kwargs):
        fault = lifecycle_tasks.describe_failures(flow_failures, 'Power action')
        LOG.warning('Power action %s on instance %s rolled back: %s', action_id,
                    instance_id, fault)
        instances.update(instance_id, task_state=None)
        actions.finish(action_id, 'Error: %s' % fault)


class PowerOffDomain(base.HostTask):
    """Shut the guest down (ACPI power button), powering it off after a timeout.

    The timeout is this host's [compute] shutdown_timeout. Returns True when the
    guest shut down by itself, False when it had to be powered off at once. The
    wait stays inside the step (not a retry-polled check, as the boot's) because a
    timeout must end in a power-off by the same step; a resumed step checks the real
    state again, and a domain that is already off is done.

    Reversion strategy: start the domain again. A stop applies to active instances
    only and a failed stop leaves the instance active, so its domain must run.
    """

    step = power_steps.PowerOffDomain


class PowerOnDomain(base.HostTask):
    """Start the instance's defined domain; one that already runs is left alone.

    Reversion strategy: power the domain off at once; the instance stays stopped,
    as it was before the start.
    """

    step = power_steps.PowerOnDomain


class RebootDomain(base.HostTask):
    """Restart the guest: soft (clean shutdown, then start) or hard (power cycle).

    A soft reboot powers off a guest that does not shut down within this host's
    [compute] shutdown_timeout, so it always ends in a fresh boot.

    Reversion strategy: make sure the domain runs; a reboot never leaves an instance
    whose domain is off.
    """

    step = power_steps.RebootDomain

    def build_payload(self, instance_id, hard):
        return power_steps.RebootPayload(instance_id, hard)


class RecordPowerState(base.ProvisionerTask):
    """Record the action's outcome: vm_state and power_state, task_state cleared.

    The same write finishes the action, so no crash can leave one without the other.

    Reversion strategy: none; it is the last step, nothing after it can fail.
    """

    def execute(self, instance_id, action_id, power_action):
        vm_state, power_state = power.outcome(power_action)
        instances.conclude_action(instance_id, action_id, vm_state=vm_state,
                                  power_state=power_state, task_state=None)
