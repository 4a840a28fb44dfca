"""The shared catalog: flavors, images (and their members, metadata definitions)
and the hypervisor hosts."""

import datetime

import sqlalchemy as sa
from sqlalchemy import orm

from provisioner.db.models.base import Base
from provisioner.db.models.base import TimestampMixin
from provisioner.db.models.base import utcnow


class Flavor(TimestampMixin, Base):
    __tablename__ = 'flavors'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(64), unique=True)
    vcpus: orm.Mapped[int]
    ram_mib: orm.Mapped[int]
    disk_gib: orm.Mapped[int]
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)  # Nova 2.55
    # Private flavors: admins and the projects of flavor_projects only.
    is_public: orm.Mapped[bool] = orm.mapped_column(default=True, server_default=sa.true())
    ephemeral_gib: orm.Mapped[int] = orm.mapped_column(default=0, server_default='0')
    swap_mib: orm.Mapped[int] = orm.mapped_column(default=0, server_default='0')
    rxtx_factor: orm.Mapped[float] = orm.mapped_column(sa.Float(), default=1.0,
                                                       server_default='1.0')


class FlavorProject(Base):
    """A project on a private flavor's access list (any project id, as Nova's)."""

    __tablename__ = 'flavor_projects'
    flavor_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(36), sa.ForeignKey('flavors.id', ondelete='CASCADE'), primary_key=True)
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(255), primary_key=True)


class FlavorExtraSpec(Base):
    __tablename__ = 'flavor_extra_specs'
    flavor_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(36), sa.ForeignKey('flavors.id', ondelete='CASCADE'), primary_key=True)
    key: orm.Mapped[str] = orm.mapped_column(sa.String(255), primary_key=True)
    value: orm.Mapped[str] = orm.mapped_column(sa.String(255))


class Image(TimestampMixin, Base):
    """A registered image: a disk file, or a kernel + ramdisk with an optional disk."""

    __tablename__ = 'images'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    # Glance's: any text of at most 255 characters, or none; names repeat.
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    disk_path: orm.Mapped[str | None] = orm.mapped_column(sa.String(4096))
    disk_format: orm.Mapped[str | None] = orm.mapped_column(sa.String(16))
    disk_sha256: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    kernel_path: orm.Mapped[str | None] = orm.mapped_column(sa.String(4096))
    kernel_sha256: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    ramdisk_path: orm.Mapped[str | None] = orm.mapped_column(sa.String(4096))
    ramdisk_sha256: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    cmdline: orm.Mapped[str | None] = orm.mapped_column(sa.String(1024))
    size_bytes: orm.Mapped[int] = orm.mapped_column(sa.BigInteger, default=0)
    # Scheduling properties: what a host must be for this image to run on it.
    arch: orm.Mapped[str | None] = orm.mapped_column(sa.String(16))
    hypervisor_type: orm.Mapped[str | None] = orm.mapped_column(sa.String(16))
    min_ram_mib: orm.Mapped[int] = orm.mapped_column(default=0, server_default='0')
    min_disk_gib: orm.Mapped[int] = orm.mapped_column(default=0, server_default='0')
    # Glance's view of it (uploaded images; registered ones are active and public).
    status: orm.Mapped[str] = orm.mapped_column(sa.String(16), default='active',
                                                server_default='active')
    visibility: orm.Mapped[str] = orm.mapped_column(sa.String(16), default='public',
                                                    server_default='public')
    owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255), index=True)
    container_format: orm.Mapped[str | None] = orm.mapped_column(sa.String(16))
    protected: orm.Mapped[bool] = orm.mapped_column(default=False,
                                                    server_default=sa.false())
    # Glance's: left out of image lists unless asked for (?os_hidden=true).
    os_hidden: orm.Mapped[bool] = orm.mapped_column(default=False,
                                                    server_default=sa.false())
    checksum: orm.Mapped[str | None] = orm.mapped_column(sa.String(32))  # md5
    os_hash_algo: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    os_hash_value: orm.Mapped[str | None] = orm.mapped_column(sa.String(128))
    virtual_size: orm.Mapped[int | None] = orm.mapped_column(sa.BigInteger)
    properties: orm.Mapped[dict | None] = orm.mapped_column(sa.JSON)
    tags: orm.Mapped[list | None] = orm.mapped_column(sa.JSON)  # Glance's, in order
    # The image store's file holding the uploaded bytes: deleted with the image.
    store_path: orm.Mapped[str | None] = orm.mapped_column(sa.String(4096))
    updated_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column()


class MetadefNamespace(Base):
    """Glance's metadata definitions namespace; its objects, properties, tags and
    resource type associations are one JSON document (read and written whole)."""

    __tablename__ = 'metadef_namespaces'
    namespace: orm.Mapped[str] = orm.mapped_column(sa.String(80), primary_key=True)
    display_name: orm.Mapped[str | None] = orm.mapped_column(sa.String(80))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    visibility: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    protected: orm.Mapped[bool]
    owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    document: orm.Mapped[dict] = orm.mapped_column(sa.JSON)
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(default=utcnow)
    updated_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        default=utcnow, onupdate=utcnow)


class ImageMember(Base):
    """A project a shared image is shared with, and whether it took it (Glance's
    pending, accepted or rejected)."""

    __tablename__ = 'image_members'
    image_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('images.id', ondelete='CASCADE'), primary_key=True)
    member_id: orm.Mapped[str] = orm.mapped_column(sa.String(255), primary_key=True,
                                                   index=True)
    status: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(default=utcnow)
    updated_at: orm.Mapped[datetime.datetime] = orm.mapped_column(default=utcnow)


class Host(Base):
    """A hypervisor host with its capacity and what claims have taken of it."""

    __tablename__ = 'hosts'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), unique=True)
    vcpus: orm.Mapped[int]
    memory_mib: orm.Mapped[int]
    disk_gib: orm.Mapped[int]
    vcpus_used: orm.Mapped[int] = orm.mapped_column(default=0)
    memory_mib_used: orm.Mapped[int] = orm.mapped_column(default=0)
    disk_gib_used: orm.Mapped[int] = orm.mapped_column(default=0)
    cpu_allocation_ratio: orm.Mapped[float] = orm.mapped_column(default=4.0)
    ram_allocation_ratio: orm.Mapped[float] = orm.mapped_column(default=1.0)
    disk_allocation_ratio: orm.Mapped[float] = orm.mapped_column(default=1.0)
    hypervisor_type: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    arch: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    enabled: orm.Mapped[bool] = orm.mapped_column(default=True)
    updated_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        default=utcnow, onupdate=utcnow)
    availability_zone: orm.Mapped[str] = orm.mapped_column(
        sa.String(255), default='nova', server_default='nova')
    disabled_reason: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # The host's VXLAN tunnel address its worker reports (null: no L2 agent there).
    underlay_ip: orm.Mapped[str | None] = orm.mapped_column(sa.String(39))
    # Nova's forced_down (2.11): down, whatever its reports say, until cleared.
    forced_down: orm.Mapped[bool] = orm.mapped_column(default=False,
                                                      server_default=sa.false())
