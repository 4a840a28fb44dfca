"""The config drive steps: write the ISO 9660 drive the guest reads (documented
steps 52-54), and delete it (the delete flow's delete-config-drive)."""

import base64
import dataclasses
import logging

from provisioner.compute import guest_documents
from provisioner import naming
from provisioner.virt import device_metadata
from provisioner.virt.libvirt import designer

from flows import constants
from flows.steps import base

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class ConfigDrivePayload:
    """The drive's documents; user_data (base64) travels in this payload only.

    The payload is never persisted: TaskFlow stores the step's arguments (the
    instance id, the ports), not what the engine built from them.
    """

    instance_id: str
    meta_data: dict | None  # None: the instance has no config drive
    network_data: dict | None
    user_data_b64: str | None = None


def _has_root_disk(req):
    """Whether the guest gets a root disk (vda): a root volume, a flavor's disk or an
    image with a disk; an image of a kernel alone boots without one."""
    image = req.image
    return bool(req.boot_volume or req.disk_gib or image.get('disk_path')
                or image.get('disk_format') in ('qcow2', 'raw'))


def boot_devices(req, ports):
    """The tagged devices the guest boots with (Nova's device metadata): its ports
    in order, its root disk, then its blank volumes (designer's virtio disks)."""
    tags = req.device_tags or {}
    disks = []
    if _has_root_disk(req):
        disks.append((designer.dev_name('virtio', 0),
                      req.boot_volume['id'] if req.boot_volume else None,
                      tags.get('root')))
    for index, tag in enumerate(tags.get('blank_volumes') or ()):
        disks.append((designer.dev_name('virtio', len(disks)),
                      naming.volume_id(req.id, index), tag))
    return device_metadata.boot_devices([p['mac'] for p in ports],
                                        tags.get('nics') or (), disks)


def delete_config_drive(instance_id):
    base.driver().delete_config_drive(instance_id)


class BuildConfigDriveOnHost(base.HostStep):
    name = 'configdrive.build'
    Payload = ConfigDrivePayload

    def run(self, payload):
        if payload.meta_data is None:
            return None  # no drive: the guest reads the metadata service
        user_data = (None if payload.user_data_b64 is None
                     else base64.b64decode(payload.user_data_b64))
        return base.driver().create_config_drive(
            payload.instance_id, payload.meta_data, payload.network_data, user_data)

    def undo(self, payload, result):
        LOG.warning('Deleting the config drive of instance %s', payload.instance_id)
        base.undo('delete config drive', delete_config_drive, payload.instance_id)


class BuildConfigDrive(base.HostTask):
    """Write the ISO 9660 config drive: meta_data, network_data and user_data.

    Reversion strategy: delete the drive file by its deterministic name.
    """

    default_provides = constants.CONFIG_DRIVE
    step = BuildConfigDriveOnHost

    def build_payload(self, instance_id, ports):
        req = self.records.build_request(instance_id)
        return self._payload(instance_id, req, ports, boot_devices(req, ports))

    def record(self, result, instance_id, ports, **arguments):
        # What the drive lists, kept for the metadata service (and a rebuild).
        self.records.record_boot_devices(
            instance_id, boot_devices(self.records.build_request(instance_id), ports))
        return result

    def _payload(self, instance_id, req, ports, devices=None):
        """``devices``: what meta_data.json lists (the boot's, unless given)."""
        if devices is None:
            devices = boot_devices(req, ports)
        if not req.config_drive:
            return ConfigDrivePayload(instance_id, None, None)
        # user_data is read here, from the instance row, so it never enters the
        # flow store (TaskFlow persists every task's inputs and results).
        user_data = self.records.user_data(instance_id)
        return ConfigDrivePayload(
            instance_id, guest_documents.meta_data(req, devices),
            guest_documents.network_data(ports),
            None if user_data is None else base64.b64encode(user_data).decode('ascii'))


class DeleteConfigDriveOnHost(base.HostStep):
    name = 'configdrive.delete'

    def run(self, payload):
        delete_config_drive(payload.instance_id)


class DeleteConfigDrive(base.HostTask):
    """Delete the instance's config drive."""

    deferrable = True
    step = DeleteConfigDriveOnHost
