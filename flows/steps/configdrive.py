"""The config drive steps: write the ISO 9660 drive the guest reads (documented
steps 52-54), and delete it (the delete flow's delete-config-drive)."""

import base64
import dataclasses
import logging

from provisioner.compute import guest_documents

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
        return self._payload(instance_id, self.records.build_request(instance_id),
                             ports)

    def _payload(self, instance_id, req, ports):
        if not req.config_drive:
            return ConfigDrivePayload(instance_id, None, None)
        # user_data is read here, from the instance row, so it never enters the
        # flow store (TaskFlow persists every task's inputs and results).
        user_data = self.records.user_data(instance_id)
        return ConfigDrivePayload(
            instance_id, guest_documents.meta_data(req),
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
