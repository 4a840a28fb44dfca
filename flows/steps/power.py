"""The power steps: stop, start and reboot an instance's domain.

The host-side steps are idempotent in the sense a resume needs: powering off a
domain that is off, or on one that runs, succeeds and changes nothing. A reboot run
again after a crash reboots the guest once more, which is what was asked anyway.
The shutdown timeout is the host's [compute] shutdown_timeout.
"""

import dataclasses
import logging

from provisioner.conf import CONF

from flows.steps import base

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
        fault = base.describe_failures(flow_failures, 'Power action')
        LOG.warning('Power action %s on instance %s rolled back: %s', action_id,
                    instance_id, fault)
        self.records.update_instance(instance_id, task_state=None)
        self.records.finish_action(action_id, 'Error: %s' % fault)


def power_on(instance_id):
    base.driver().power_on(instance_id)


def power_off_at_once(instance_id):
    base.driver().power_off(instance_id, 0)


class PowerOffDomainOnHost(base.HostStep):
    """Shut the guest down, powering it off after the timeout; True if it shut down."""

    name = 'power.power_off'

    def run(self, payload):
        clean = base.driver().power_off(payload.instance_id,
                                        CONF.compute.shutdown_timeout)
        if not clean:
            LOG.warning('Instance %s did not shut down within %d s; powered it off',
                        payload.instance_id, CONF.compute.shutdown_timeout)
        return clean

    def undo(self, payload, result):
        LOG.warning('Starting the domain of instance %s again', payload.instance_id)
        base.undo('start domain again', power_on, payload.instance_id)


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

    step = PowerOffDomainOnHost


class PowerOnDomainOnHost(base.HostStep):
    name = 'power.power_on'

    def run(self, payload):
        power_on(payload.instance_id)

    def undo(self, payload, result):
        LOG.warning('Powering the domain of instance %s off again', payload.instance_id)
        base.undo('power off domain', power_off_at_once, payload.instance_id)


class PowerOnDomain(base.HostTask):
    """Start the instance's defined domain; one that already runs is left alone.

    Reversion strategy: power the domain off at once; the instance stays stopped,
    as it was before the start.
    """

    step = PowerOnDomainOnHost


@dataclasses.dataclass(frozen=True)
class RebootPayload:
    instance_id: str
    hard: bool


class RebootDomainOnHost(base.HostStep):
    name = 'power.reboot'
    Payload = RebootPayload

    def run(self, payload):
        base.driver().reboot(payload.instance_id, payload.hard)

    def undo(self, payload, result):
        LOG.warning('Making sure the domain of instance %s runs', payload.instance_id)
        base.undo('start domain', power_on, payload.instance_id)


class RebootDomain(base.HostTask):
    """Restart the guest: soft (clean shutdown, then start) or hard (power cycle).

    A soft reboot powers off a guest that does not shut down within this host's
    [compute] shutdown_timeout, so it always ends in a fresh boot.

    Reversion strategy: make sure the domain runs; a reboot never leaves an instance
    whose domain is off.
    """

    step = RebootDomainOnHost

    def build_payload(self, instance_id, hard):
        return RebootPayload(instance_id, hard)


class RecordPowerState(base.ProvisionerTask):
    """Record the action's outcome: vm_state and power_state, task_state cleared.

    The same write finishes the action, so no crash can leave one without the other.

    Reversion strategy: none; it is the last step, nothing after it can fail.
    """

    def execute(self, instance_id, action_id, power_action):
        vm_state, power_state = self.records.power_outcome(power_action)
        self.records.conclude_action(instance_id, action_id, vm_state=vm_state,
                                     power_state=power_state, task_state=None)
