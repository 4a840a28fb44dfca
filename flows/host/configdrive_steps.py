"""Host side of the config drive steps: write and delete the ISO the guest reads."""

import base64
import dataclasses
import logging

from flows.host import base

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class ConfigDrivePayload:
    """The drive's documents; user_data (base64) travels in this payload only.

    The payload is never persisted: TaskFlow stores the step's arguments (the
    instance id, the ports), not what the engine built from them.
    """

    instance_id: str
    meta_data: dict
    network_data: dict
    user_data_b64: str | None = None


def delete_config_drive(instance_id):
    base.driver().delete_config_drive(instance_id)


class BuildConfigDrive(base.HostStep):
    Payload = ConfigDrivePayload

    def run(self, payload):
        user_data = (None if payload.user_data_b64 is None
                     else base64.b64decode(payload.user_data_b64))
        return base.driver().create_config_drive(
            payload.instance_id, payload.meta_data, payload.network_data, user_data)

    def undo(self, payload, result):
        LOG.warning('Deleting the config drive of instance %s', payload.instance_id)
        base.undo('delete config drive', delete_config_drive, payload.instance_id)


class DeleteConfigDrive(base.HostStep):
    def run(self, payload):
        delete_config_drive(payload.instance_id)
