"""The rebuild steps: a new root disk and config drive for an existing server.

The replaced root disk and config drive stay on the host (``.previous``) until the
rebuilt domain is defined and, for a server that ran, running again: every undo
before that puts the old ones back, so a rolled back rebuild leaves the server as
it was; the last host step deletes them. The domain keeps its definition (the
volumes attached since its boot, its NICs) and takes the new name and boot.
"""

import dataclasses
import logging

from provisioner.conf import CONF

from flows import constants
from flows.steps import base
from flows.steps import configdrive
from flows.steps import domain
from flows.steps import image

LOG = logging.getLogger(__name__)


class RebuildGuard(base.ProvisionerTask):
    """First atom of a rebuild: does nothing going forward.

    Reversion strategy: runs last during a rollback, once the host steps put the
    old disk, config drive and domain back; the instance's row as it was before
    the request (image, name, metadata, key, user data), task_state cleared, the
    action finished with the fault.
    """

    def execute(self, instance_id, action_id):
        pass

    def revert(self, instance_id, action_id, *args, flow_failures=None, **kwargs):
        fault = base.describe_failures(flow_failures, 'Rebuild')
        LOG.warning('Rebuild %s of instance %s rolled back: %s', action_id,
                    instance_id, fault)
        self.records.restore_rebuilt(instance_id)
        self.records.finish_action(action_id, 'Error: %s' % fault)


@dataclasses.dataclass(frozen=True)
class PowerOffPayload:
    instance_id: str
    start_again: bool  # the server ran before the rebuild: an undo starts it


class PowerOffForRebuildOnHost(base.HostStep):
    name = 'rebuild.power_off'
    Payload = UndoPayload = PowerOffPayload

    def run(self, payload):
        return base.driver().power_off(payload.instance_id,
                                       CONF.compute.shutdown_timeout)

    def undo(self, payload, result):
        if payload.start_again:
            LOG.warning('Starting the domain of instance %s again', payload.instance_id)
            base.undo('start domain again', base.driver().power_on, payload.instance_id)


class PowerOffForRebuild(base.HostTask):
    """Shut the guest down (powered off after [compute] shutdown_timeout); a
    stopped server's is off already.

    Reversion strategy: start the domain again if the server was active.
    """

    step = PowerOffForRebuildOnHost

    def _payload(self, instance_id):
        return PowerOffPayload(instance_id,
                               not self.records.rebuild_was_stopped(instance_id))

    build_payload = build_undo_payload = _payload


class FetchRebuildImageOnHost(image.FetchImageOnHost):
    name = 'rebuild.fetch_image'


class FetchRebuildImage(image.FetchImage):
    """Bring the new image's files into this host's cache (as the boot's).

    Reversion strategy: none; the cache is shared and kept.
    """

    default_provides = constants.REBUILD_IMAGE_FILES
    step = FetchRebuildImageOnHost

    def _request(self, instance_id):
        return self.records.current_request(instance_id)


class CreateRebuildDiskOnHost(base.HostStep):
    name = 'rebuild.create_disk'
    Payload = image.RootDiskPayload

    def run(self, payload):
        return base.driver().create_rebuild_disk(
            payload.instance_id, payload.image_disk, payload.disk_format,
            payload.disk_gib)

    def undo(self, payload, result):
        LOG.warning('Deleting the rebuild disk of instance %s', payload.instance_id)
        base.undo('delete rebuild disk', base.driver().delete_rebuild_disk,
                  payload.instance_id)


class CreateRebuildDisk(base.HostTask):
    """The new root disk: a qcow2 overlay on the new image, beside the old disk.

    Reversion strategy: delete it by its deterministic name.
    """

    step = CreateRebuildDiskOnHost

    def build_payload(self, instance_id, rebuild_image_files):
        return image.RootDiskPayload(
            instance_id=instance_id,
            disk_gib=self.records.current_request(instance_id).disk_gib,
            image_disk=rebuild_image_files.get('disk'),
            disk_format=rebuild_image_files.get('disk_format'))


class SwapRootDiskOnHost(base.HostStep):
    name = 'rebuild.swap_root_disk'

    def run(self, payload):
        base.driver().swap_in_rebuild_disk(payload.instance_id)

    def undo(self, payload, result):
        LOG.warning('Putting back the root disk of instance %s', payload.instance_id)
        base.undo('put back root disk', base.driver().swap_back_root_disk,
                  payload.instance_id)


class SwapRootDisk(base.HostTask):
    """Put the new disk in the root disk's place, keeping the old one aside.

    Reversion strategy: the old disk back in its place (the new one dropped).
    """

    step = SwapRootDiskOnHost


class RebuildConfigDriveOnHost(configdrive.BuildConfigDriveOnHost):
    name = 'rebuild.config_drive'

    def run(self, payload):
        base.driver().set_aside_config_drive(payload.instance_id)
        return super().run(payload)

    def undo(self, payload, result):
        LOG.warning('Putting back the config drive of instance %s', payload.instance_id)
        base.undo('put back config drive', base.driver().restore_config_drive,
                  payload.instance_id)


class RebuildConfigDrive(configdrive.BuildConfigDrive):
    """A new config drive: the new name, metadata, key and user data, same ports.

    Reversion strategy: the old drive back in its place.
    """

    default_provides = None
    step = RebuildConfigDriveOnHost

    def build_payload(self, instance_id):
        return self._payload(instance_id, self.records.current_request(instance_id),
                             self.records.ports_for(instance_id),
                             self.records.instance_devices(instance_id))

    def record(self, result, **arguments):
        return result


class RedefineDomainOnHost(base.HostStep):
    name = 'rebuild.redefine_domain'
    Payload = domain.DomainPayload

    def run(self, payload):
        """{'previous_xml': the definition it replaced}, for its undo."""
        return {'previous_xml': base.driver().redefine_domain(
            domain.guest_spec(payload))}

    def undo(self, payload, result):
        if isinstance(result, dict) and result.get('previous_xml'):
            LOG.warning('Putting back the domain of instance %s', payload.instance_id)
            base.undo('put back domain definition', base.driver().define_domain_xml,
                      result['previous_xml'])


class RedefineDomain(base.HostTask):
    """The domain takes the new name and boot (kernel, initrd, cmdline); its
    devices stay.

    Reversion strategy: define it again from the definition it replaced.
    """

    step = RedefineDomainOnHost

    def build_payload(self, instance_id, rebuild_image_files):
        req = self.records.current_request(instance_id)
        return domain.DomainPayload(
            instance_id=instance_id, name=req.name, vcpus=req.vcpus,
            ram_mib=req.ram_mib, root_disk=None, image_files=rebuild_image_files,
            volumes=[], config_drive=None, ports=[])

    def build_undo_payload(self, instance_id, rebuild_image_files):
        return self.build_payload(instance_id, rebuild_image_files)


class DeleteReplacedFilesOnHost(base.HostStep):
    name = 'rebuild.delete_replaced_files'

    def run(self, payload):
        base.driver().delete_replaced_files(payload.instance_id)


class DeleteReplacedFiles(base.HostTask):
    """Delete the replaced root disk and config drive: the rebuild is in.

    Reversion strategy: none; nothing after it can fail but the record.
    """

    step = DeleteReplacedFilesOnHost


class RecordRebuild(base.ProvisionerTask):
    """The outcome: active (stopped for a server that was), task_state cleared,
    the action finished, what the request replaced forgotten; one write.

    Reversion strategy: none; it is the last step.
    """

    def execute(self, instance_id, action_id, keep_stopped):
        self.records.conclude_rebuild(instance_id, action_id, keep_stopped)
