"""The domain steps: define, start, watch and remove the libvirt domain (documented
steps 28-29, and the delete flow's destroy-domain and delete-instance-files)."""

import dataclasses
import logging
import math
import time

from taskflow import retry

from provisioner.compute import states
from provisioner import exception
from provisioner.virt import spec as virt_spec

from flows.steps import base
from flows.steps import network

LOG = logging.getLogger(__name__)


class DomainNotRunningYet(exception.ProvisionerError):
    msg_fmt = 'Domain of instance %(instance)s is %(state)s, not running yet.'


class DomainStopped(exception.ProvisionerError):
    msg_fmt = 'Domain of instance %(instance)s stopped while booting (%(state)s).'


# A failure keeps its exception's class path. A worker of release 2.1 (and a boot
# persisted by it) names DomainNotRunningYet where that release defined it.
_NOT_RUNNING_YET = (DomainNotRunningYet, 'flows.host.domain_steps.DomainNotRunningYet')


def destroy_domain(instance_id):
    base.driver().destroy_domain(instance_id)


@dataclasses.dataclass(frozen=True)
class DomainPayload:
    """The flavor and the resources the earlier steps prepared on this host."""

    instance_id: str
    name: str
    vcpus: int
    ram_mib: int
    root_disk: str | None
    image_files: dict  # the cached kernel, ramdisk and cmdline (FetchImage's result)
    volumes: list  # CreateVolumes' result
    config_drive: str | None
    ports: list


def guest_spec(payload):
    drv = base.driver()
    files = payload.image_files
    return virt_spec.GuestSpec(
        uuid=payload.instance_id, display_name=payload.name, vcpus=payload.vcpus,
        memory_mib=payload.ram_mib, root_disk=payload.root_disk,
        kernel=files.get('kernel'), ramdisk=files.get('ramdisk'),
        cmdline=files.get('cmdline'),
        volumes=[(vol['path'], vol['id'][:20]) for vol in payload.volumes],
        config_drive=payload.config_drive,
        nics=[(port['mac'], drv.network_name(port['network']),
               drv.guest_mtu(port['network']),
               drv.port_filter_name(port['id']) if port.get('security') else None)
              for port in payload.ports],
        console_log=drv.console_log_path(payload.instance_id))


class DefineDomainOnHost(base.HostStep):
    name = 'domain.define'
    Payload = DomainPayload

    def run(self, payload):
        """{'console_log': its path on this host} (the engine records it for show)."""
        spec = guest_spec(payload)
        network.ensure_port_filters(payload.ports)
        base.driver().define_domain(spec)
        return {'console_log': spec.console_log}

    def undo(self, payload, result):
        LOG.warning('Undefining the domain of instance %s', payload.instance_id)
        base.undo('undefine domain', destroy_domain, payload.instance_id)


class DefineDomain(base.HostTask):
    """Generate the domain XML from the prepared resources and define it.

    Reversion strategy: destroy and undefine the domain named after the instance.
    """

    step = DefineDomainOnHost

    def before_run(self, instance_id, **resources):
        self.records.advance_task_state(instance_id, states.SPAWNING)

    def build_payload(self, instance_id, root_disk, volumes, config_drive, ports,
                      image_files):
        req = self.records.build_request(instance_id)
        return DomainPayload(
            instance_id=instance_id, name=req.name, vcpus=req.vcpus, ram_mib=req.ram_mib,
            root_disk=root_disk, image_files=image_files, volumes=volumes,
            config_drive=config_drive, ports=self.records.with_filters(ports))

    def record(self, result, instance_id, ports, **arguments):
        # A worker of the previous release reports nothing: show falls back.
        if isinstance(result, dict) and result.get('console_log'):
            self.records.record_console_log(instance_id, result['console_log'])
        # The ports joined their groups: rules naming these groups as remote now
        # match their addresses, on every host.
        self.records.sync_port_filters(port_ids=[port['id'] for port in ports],
                                       strict=False)
        return result


class StartDomainOnHost(base.HostStep):
    name = 'domain.start'

    def run(self, payload):
        base.driver().start_domain(payload.instance_id)

    def undo(self, payload, result):
        # Destroying a domain undefines it too (the driver's destroy_domain).
        LOG.warning('Destroying the domain of instance %s', payload.instance_id)
        base.undo('destroy domain', destroy_domain, payload.instance_id)


class StartDomain(base.HostTask):
    """Start the defined domain; starting a running one is a no-op.

    Reversion strategy: destroy the domain, which also undefines it (the driver's
    destroy_domain does both), so DefineDomain's revert that follows finds nothing
    left and succeeds.
    """

    step = StartDomainOnHost


class WaitForBootOnHost(base.HostStep):
    """Check once whether the domain runs (the engine's retry polls)."""

    name = 'domain.wait_for_boot'

    def run(self, payload):
        state = base.driver().power_state(payload.instance_id)
        if state == states.RUNNING:
            return state
        if state in ('shutdown', 'crashed', 'nostate'):
            raise DomainStopped(instance=payload.instance_id, state=state)
        raise DomainNotRunningYet(instance=payload.instance_id, state=state)


class WaitForBoot(base.HostTask):
    """Check once whether the domain runs; the retry around it polls.

    Reversion strategy: none; StartDomain's revert destroys the domain.
    """

    step = WaitForBootOnHost


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
        if not failures or not all(f.check(*_NOT_RUNNING_YET)
                                   for f in failures.values()):
            return retry.REVERT
        return super().on_failure(history, *args, **kwargs)

    def execute(self, history, *args, **kwargs):
        if len(history):
            time.sleep(self._interval)
        return super().execute(history, *args, **kwargs)


class DestroyDomainOnHost(base.HostStep):
    name = 'domain.destroy'

    def run(self, payload):
        destroy_domain(payload.instance_id)


class DestroyDomain(base.HostTask):
    """Power off and undefine the instance's domain."""

    deferrable = True
    step = DestroyDomainOnHost


class DeleteInstanceFilesOnHost(base.HostStep):
    name = 'domain.delete_instance_files'

    def run(self, payload):
        base.driver().delete_instance_dir(payload.instance_id)


class DeleteInstanceFiles(base.HostTask):
    """Remove the instance's directory (its console log); kept until delete for debugging."""

    deferrable = True
    step = DeleteInstanceFilesOnHost
