"""What the metadata service serves a guest, read from the database: the instance
as it is now (not as it booted: a rebuild or new metadata shows), its ports, user
data, flavor name and security groups, and which instance holds an address on a
network (Neutron's metadata agent asks neutron-server that; here one query)."""

import dataclasses

import sqlalchemy as sa

from provisioner.compute import device_metadata
from provisioner.compute import instances
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import ipam
from provisioner.network import security_groups


@dataclasses.dataclass(frozen=True)
class GuestRecord:
    """One instance's side of the metadata service (compute.guest_documents)."""

    request: instances.BuildRequest
    ports: list
    user_data: bytes | None
    flavor_name: str
    security_groups: tuple
    devices: tuple = ()  # Nova's device metadata: its tagged devices now


def load(instance_id):
    """The instance's GuestRecord; NotFound for an instance that is not (or no
    longer) there."""
    with db_api.connection() as conn:
        row = conn.execute(
            sa.select(models.Instance.deleted_at, models.Flavor.name)
            .outerjoin(models.Flavor, models.Flavor.id == models.Instance.flavor_id)
            .where(models.Instance.id == instance_id)).first()
    if row is None or row.deleted_at is not None:
        raise exception.NotFound(kind='Instance', name=instance_id)
    groups = security_groups.server_groups(None, instance_id)
    return GuestRecord(request=instances.current_request(instance_id),
                       ports=ipam.ports_for(instance_id),
                       user_data=instances.user_data(instance_id),
                       flavor_name=row.name or '',
                       security_groups=tuple(g['name'] for g in groups),
                       devices=tuple(device_metadata.for_instance(instance_id)))


def instance_at(network_id, ip):
    """(instance id, project id) of the instance whose port holds ``ip`` on the
    network, or None (no such port, or one bound to no instance)."""
    with db_api.connection() as conn:
        row = conn.execute(
            sa.select(models.Instance.id, models.Instance.project_id)
            .join(models.Port, models.Port.instance_id == models.Instance.id)
            .where(models.Port.network_id == network_id, models.Port.ip == ip,
                   models.Instance.deleted_at.is_(None))).first()
    return None if row is None else (row.id, row.project_id)
