"""Host side of the domain steps: define, start, watch and remove the libvirt domain."""

import dataclasses
import logging

from provisioner.compute import states
from provisioner import exception
from provisioner.virt import spec as virt_spec

from flows.host import base

LOG = logging.getLogger(__name__)


class DomainNotRunningYet(exception.ProvisionerError):
    msg_fmt = 'Domain of instance %(instance)s is %(state)s, not running yet.'


class DomainStopped(exception.ProvisionerError):
    msg_fmt = 'Domain of instance %(instance)s stopped while booting (%(state)s).'


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
        nics=[(port['mac'], drv.network_name(port['network']))
              for port in payload.ports],
        console_log=drv.console_log_path(payload.instance_id))


class DefineDomain(base.HostStep):
    Payload = DomainPayload

    def run(self, payload):
        """{'console_log': its path on this host} (the engine records it for show)."""
        spec = guest_spec(payload)
        base.driver().define_domain(spec)
        return {'console_log': spec.console_log}

    def undo(self, payload, result):
        LOG.warning('Undefining the domain of instance %s', payload.instance_id)
        base.undo('undefine domain', destroy_domain, payload.instance_id)


class StartDomain(base.HostStep):
    def run(self, payload):
        base.driver().start_domain(payload.instance_id)

    def undo(self, payload, result):
        LOG.warning('Stopping the domain of instance %s', payload.instance_id)
        base.undo('stop domain', destroy_domain, payload.instance_id)


class WaitForBoot(base.HostStep):
    """Check once whether the domain runs (the engine's retry polls)."""

    def run(self, payload):
        state = base.driver().power_state(payload.instance_id)
        if state == states.RUNNING:
            return state
        if state in ('shutdown', 'crashed', 'nostate'):
            raise DomainStopped(instance=payload.instance_id, state=state)
        raise DomainNotRunningYet(instance=payload.instance_id, state=state)


class DestroyDomain(base.HostStep):
    def run(self, payload):
        destroy_domain(payload.instance_id)


class DeleteInstanceFiles(base.HostStep):
    def run(self, payload):
        base.driver().delete_instance_dir(payload.instance_id)
