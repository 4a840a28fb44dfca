"""Steps that define, start and watch the libvirt domain (documented steps 27-29)."""

import logging
import math
import time

from taskflow import retry

from provisioner.compute import instances
from provisioner.compute import states
from provisioner import exception
from provisioner.virt import spec as virt_spec

from flows.tasks import base

LOG = logging.getLogger(__name__)


class DomainNotRunningYet(exception.ProvisionerError):
    msg_fmt = 'Domain of instance %(instance)s is %(state)s, not running yet.'


class DomainStopped(exception.ProvisionerError):
    msg_fmt = 'Domain of instance %(instance)s stopped while booting (%(state)s).'


def destroy_domain(instance_id):
    base.driver().destroy_domain(instance_id)


def guest_spec(instance_id, root_disk, volumes, config_drive, ports, image_files):
    req = instances.build_request(instance_id)
    drv = base.driver()
    return virt_spec.GuestSpec(
        uuid=instance_id, display_name=req.name, vcpus=req.vcpus,
        memory_mib=req.ram_mib, root_disk=root_disk,
        kernel=image_files.get('kernel'), ramdisk=image_files.get('ramdisk'),
        cmdline=image_files.get('cmdline'),
        volumes=[(vol['path'], vol['id'][:20]) for vol in volumes],
        config_drive=config_drive,
        nics=[(port['mac'], drv.network_name(port['network'])) for port in ports],
        console_log=drv.console_log_path(instance_id))


class DefineDomain(base.HostTask):
    """Generate the domain XML from the prepared resources and define it.

    Reversion strategy: destroy and undefine the domain named after the instance.
    """

    def execute(self, instance_id, root_disk, volumes, config_drive, ports, image_files):
        instances.advance_task_state(instance_id, states.SPAWNING)
        spec = guest_spec(instance_id, root_disk, volumes, config_drive, ports,
                          image_files)
        base.driver().define_domain(spec)

    def revert(self, instance_id, result, **kwargs):
        LOG.warning('Undefining the domain of instance %s', instance_id)
        base.undo('undefine domain', destroy_domain, instance_id)


class StartDomain(base.HostTask):
    """Start the defined domain; starting a running one is a no-op.

    Reversion strategy: destroy the domain (DefineDomain's revert undefines it).
    """

    def execute(self, instance_id):
        base.driver().start_domain(instance_id)

    def revert(self, instance_id, result, **kwargs):
        LOG.warning('Stopping the domain of instance %s', instance_id)
        base.undo('stop domain', destroy_domain, instance_id)


class WaitForBoot(base.HostTask):
    """Check once whether the domain runs; the retry around it polls.

    Reversion strategy: none; StartDomain's revert stops the domain.
    """

    def execute(self, instance_id):
        state = base.driver().power_state(instance_id)
        if state == states.RUNNING:
            return state
        if state in ('shutdown', 'crashed', 'nostate'):
            raise DomainStopped(instance=instance_id, state=state)
        raise DomainNotRunningYet(instance=instance_id, state=state)


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

    def execute(self, instance_id):
        destroy_domain(instance_id)


class DeleteInstanceFiles(base.HostTask):
    """Remove the instance's directory (its console log); kept until delete for debugging."""

    deferrable = True

    def execute(self, instance_id):
        base.driver().delete_instance_dir(instance_id)
