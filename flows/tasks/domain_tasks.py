"""Steps that define, start and watch the libvirt domain (documented steps 27-29)."""

import logging
import math
import time

from taskflow import retry

from provisioner.compute import instances
from provisioner.compute import states

from flows.host import domain_steps
from flows.tasks import base

LOG = logging.getLogger(__name__)


# Defined with the host half (a worker raises them); the retry below checks them.
DomainNotRunningYet = domain_steps.DomainNotRunningYet
DomainStopped = domain_steps.DomainStopped


class DefineDomain(base.HostTask):
    """Generate the domain XML from the prepared resources and define it.

    Reversion strategy: destroy and undefine the domain named after the instance.
    """

    step = domain_steps.DefineDomain

    def before_run(self, instance_id, **resources):
        instances.advance_task_state(instance_id, states.SPAWNING)

    def build_payload(self, instance_id, root_disk, volumes, config_drive, ports,
                      image_files):
        req = instances.build_request(instance_id)
        return domain_steps.DomainPayload(
            instance_id=instance_id, name=req.name, vcpus=req.vcpus, ram_mib=req.ram_mib,
            root_disk=root_disk, image_files=image_files, volumes=volumes,
            config_drive=config_drive, ports=ports)

    def record(self, result, instance_id, **arguments):
        # A worker of the previous release reports nothing: show falls back.
        if isinstance(result, dict) and result.get('console_log'):
            instances.record_console_log(instance_id, result['console_log'])
        return result


class StartDomain(base.HostTask):
    """Start the defined domain; starting a running one is a no-op.

    Reversion strategy: destroy the domain (DefineDomain's revert undefines it).
    """

    step = domain_steps.StartDomain


class WaitForBoot(base.HostTask):
    """Check once whether the domain runs; the retry around it polls.

    Reversion strategy: none; StartDomain's revert stops the domain.
    """

    step = domain_steps.WaitForBoot


class PowerStatePoll(retry.Times):
    """Re-run the power-state check every interval until the boot timeout.

    Only 'not running yet' is retried. Any other failure, or the timeout, is REVERT:
    TaskFlow then asks the enclosing reschedule controller, which undoes the attempt
    and tries the next host, or reverts the whole boot (REVERT_ALL) when it gives up.
    """

    def __init__(self, name, timeout, interval):
        super().__init__(attempts=max(1, math.ceil(timeout / interval)), name=name)
        self._interval = interval

    def on_failure(self, history, *args, **kwargs):
        failures = history[-1][1]
        if not failures or not all(f.check(DomainNotRunningYet)
                                   for f in failures.values()):
            return retry.REVERT
        return super().on_failure(history, *args, **kwargs)

    def execute(self, history, *args, **kwargs):
        if len(history):
            time.sleep(self._interval)
        return super().execute(history, *args, **kwargs)


class DestroyDomain(base.HostTask):
    """Power off and undefine the instance's domain."""

    deferrable = True

    step = domain_steps.DestroyDomain


class DeleteInstanceFiles(base.HostTask):
    """Remove the instance's directory (its console log); kept until delete for debugging."""

    deferrable = True

    step = domain_steps.DeleteInstanceFiles
