"""Cinder's records: volumes, their types, QoS specs, transfers and snapshots."""

import datetime

import sqlalchemy as sa
from sqlalchemy import orm

from provisioner.db.models.base import Base
from provisioner.db.models.base import TimestampMixin


class Volume(TimestampMixin, Base):
    """A volume: made with a boot (``index`` set) or by the volume service.

    A volume-service volume is attached to ``instance_id`` (null while available);
    its bytes live on ``host`` from its first attachment on (null before: a volume
    of no host yet is made on the host of the server it is first attached to).
    """

    __tablename__ = 'volumes'
    __table_args__ = (sa.UniqueConstraint('instance_id', 'index'),)
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    instance_id: orm.Mapped[str | None] = orm.mapped_column(
        sa.ForeignKey('instances.id'), index=True)
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))  # outlives it
    # Position in the boot request; with instance_id it names the volume deterministically.
    # Null for a volume of the volume service (it outlives its servers).
    index: orm.Mapped[int | None]
    size_gib: orm.Mapped[int]
    # The device tag its last attach gave it (Nova 2.49), shown with the attachment.
    attachment_tag: orm.Mapped[str | None] = orm.mapped_column(sa.String(60))
    status: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    path: orm.Mapped[str | None] = orm.mapped_column(sa.String(4096))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    user_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    host: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    availability_zone: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    image_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    bootable: orm.Mapped[bool] = orm.mapped_column(default=False)
    # Cinder's user metadata, its image metadata (the image's, copied at creation)
    # and its admin metadata ``readonly`` (null: never set).
    properties: orm.Mapped[dict | None] = orm.mapped_column(sa.JSON)
    image_metadata: orm.Mapped[dict | None] = orm.mapped_column(sa.JSON)
    readonly: orm.Mapped[bool | None]
    # The guest's device (/dev/vdc) while attached, and the attach or detach action
    # under way (its flow finds the volume by it).
    device: orm.Mapped[str | None] = orm.mapped_column(sa.String(32))
    action_id: orm.Mapped[int | None]
    attached_at: orm.Mapped[datetime.datetime | None]
    updated_at: orm.Mapped[datetime.datetime | None]
    # What it was made from (Cinder's snapshot_id, source_volid); null: blank/image.
    snapshot_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    source_volid: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    volume_type_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))


class VolumeType(TimestampMixin, Base):
    """A Cinder volume type: extra specs (key -> value), public or private to
    admins and the ``projects`` of its access list, and its ``encryption`` spec
    (Cinder's encryption type; null: none)."""

    __tablename__ = 'volume_types'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), unique=True)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    is_public: orm.Mapped[bool] = orm.mapped_column(default=True, server_default=sa.true())
    extra_specs: orm.Mapped[dict | None] = orm.mapped_column(sa.JSON)
    projects: orm.Mapped[list | None] = orm.mapped_column(sa.JSON)
    encryption: orm.Mapped[dict | None] = orm.mapped_column(sa.JSON)
    qos_specs_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    updated_at: orm.Mapped[datetime.datetime | None]


class QosSpecs(TimestampMixin, Base):
    """Cinder's QoS specs: a consumer (front-end, back-end, both) and key/value
    specs, associated with volume types (VolumeType.qos_specs_id)."""

    __tablename__ = 'qos_specs'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), unique=True)
    consumer: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    specs: orm.Mapped[dict | None] = orm.mapped_column(sa.JSON)


class VolumeTransfer(TimestampMixin, Base):
    """A volume offered to another project: accepted with its id and the
    authorization key whose salted hash is kept."""

    __tablename__ = 'volume_transfers'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    volume_id: orm.Mapped[str] = orm.mapped_column(sa.String(36), unique=True)
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    salt: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    crypt_hash: orm.Mapped[str] = orm.mapped_column(sa.String(255))


class VolumeSnapshot(TimestampMixin, Base):
    """A Cinder snapshot: a full copy of its volume's file on the volume's
    ``host``, or, for a volume with no bytes yet (null host), its source
    (``image_id``, or blank)."""

    __tablename__ = 'volume_snapshots'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    volume_id: orm.Mapped[str] = orm.mapped_column(sa.String(36), index=True)
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    user_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    size_gib: orm.Mapped[int]
    status: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    host: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    image_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    properties: orm.Mapped[dict | None] = orm.mapped_column(sa.JSON)
    updated_at: orm.Mapped[datetime.datetime | None]
    # The progress its maker last reported (os-update_snapshot_status); null: none.
    progress: orm.Mapped[str | None] = orm.mapped_column(sa.String(8))
