"""An instance's device metadata (Nova's instance.device_metadata): the ``devices``
list of its meta_data.json, for the metadata service and a rebuilt config drive.

The boot's tagged devices (2.32/2.42) are kept as its config drive listed them
(record_boot_devices); a volume attached with a tag (2.49) is added, a volume
detached since is left out, as Nova updates its record on attach and detach.
"""

import sqlalchemy as sa

from provisioner.compute import instances
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.virt import device_metadata


def record_boot_devices(instance_id, devices):
    """Keep the devices list the boot's config drive has."""
    with db_api.transaction() as session:
        row = instances.get_row(session, instance_id)
        row.request_spec = dict(row.request_spec or {}, devices=list(devices))


def for_instance(instance_id):
    """The instance's tagged devices now (Nova's ``devices`` entries)."""
    vol = models.Volume
    with db_api.transaction() as session:
        row = instances.get_row(session, instance_id)
        boot = list((row.request_spec or {}).get('devices', []))
        volumes = session.execute(
            sa.select(vol.id, vol.device, vol.attachment_tag)
            .where(vol.instance_id == instance_id).order_by(vol.index)).all()
    attached = {v.id for v in volumes}
    devices = [d for d in boot if d['type'] != 'disk' or d.get('serial') is None
               or d['serial'] in attached]
    listed = {d.get('serial') for d in devices}
    devices += [device_metadata.disk(v.device, v.id, v.attachment_tag)
                for v in volumes
                if v.attachment_tag and v.device and v.id not in listed]
    return devices
