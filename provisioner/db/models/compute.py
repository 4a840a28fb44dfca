"""Instances and what hangs on them: tags, events, actions, key pairs, claims,
migrations, server groups, quotas, leases, deferred host steps, leftovers."""

import datetime
import uuid

import sqlalchemy as sa
from sqlalchemy import orm

from provisioner.db.models.base import Base
from provisioner.db.models.base import TimestampMixin
from provisioner.db.models.base import utcnow


class Instance(TimestampMixin, Base):
    __tablename__ = 'instances'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(64), index=True)
    # Plain ids, no foreign keys: a server outlives its project and user (Keystone
    # deletes those without asking Nova), and a deleted server's row its flavor and
    # image.
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(36), index=True)
    user_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    flavor_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    image_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    # The request as asked: network ids and volume sizes (JSON), read by the tasks.
    request_spec: orm.Mapped[dict] = orm.mapped_column(sa.JSON)
    user_data: orm.Mapped[bytes | None] = orm.mapped_column(sa.LargeBinary)
    # User-given key/value metadata (boot --property), served in the config drive.
    properties: orm.Mapped[dict | None] = orm.mapped_column(sa.JSON)
    host: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    vm_state: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    task_state: orm.Mapped[str | None] = orm.mapped_column(sa.String(32))
    power_state: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    fault: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    flow_uuid: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    updated_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        default=utcnow, onupdate=utcnow)
    deleted_at: orm.Mapped[datetime.datetime | None]
    # The key pair the instance was booted with, copied (as Nova does): the config
    # drive serves it, and deleting the key pair later changes nothing here.
    key_name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    key_data: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    launched_at: orm.Mapped[datetime.datetime | None]
    # Nova's accessIPv4/accessIPv6: user data about how the server is reached.
    access_ip_v4: orm.Mapped[str | None] = orm.mapped_column(sa.String(39))
    access_ip_v6: orm.Mapped[str | None] = orm.mapped_column(sa.String(39))
    # Who locked the server ('owner' or 'admin', as Nova), None when unlocked.
    locked_by: orm.Mapped[str | None] = orm.mapped_column(sa.String(16))
    # Nova's display_description (2.19), lock reason (2.73), hostname (2.90; None:
    # derived from the name) and trusted image certificate ids (2.63).
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    locked_reason: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    hostname: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    trusted_certs: orm.Mapped[list | None] = orm.mapped_column(sa.JSON)
    # The encrypted password the guest posted (Nova's os-server-password), if any.
    password: orm.Mapped[str | None] = orm.mapped_column(sa.Text)


class InstanceTag(Base):
    """One of a server's tags (Nova's instance tags, compute 2.26)."""

    __tablename__ = 'instance_tags'
    instance_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('instances.id', ondelete='CASCADE'), primary_key=True)
    tag: orm.Mapped[str] = orm.mapped_column(sa.String(60), primary_key=True,
                                             index=True)


class InstanceEvent(Base):
    """One step of an instance's life: what ran, where, when, and how it ended."""

    __tablename__ = 'instance_events'
    id: orm.Mapped[int] = orm.mapped_column(primary_key=True, autoincrement=True)
    instance_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('instances.id', ondelete='CASCADE'), index=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    host: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    started_at: orm.Mapped[datetime.datetime]
    finished_at: orm.Mapped[datetime.datetime | None]
    result: orm.Mapped[str | None] = orm.mapped_column(sa.String(16))
    message: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # The instance action whose flow ran this step (None: recorded before 0006).
    action_id: orm.Mapped[int | None]


class InstanceAction(Base):
    """One request that changed an instance (Nova's instance action).

    ``request_id`` is the x-openstack-request-id of the call that asked for it;
    ``flow_uuid`` names the persisted flow that carries it out, whose steps are the
    action's events.
    """

    __tablename__ = 'instance_actions'
    id: orm.Mapped[int] = orm.mapped_column(primary_key=True, autoincrement=True)
    instance_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('instances.id', ondelete='CASCADE'), index=True)
    request_id: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    action: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    user_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    start_time: orm.Mapped[datetime.datetime] = orm.mapped_column(default=utcnow)
    finish_time: orm.Mapped[datetime.datetime | None]
    message: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    flow_uuid: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))


class KeyPair(TimestampMixin, Base):
    """A user's public key, given to the instances it boots (Nova's os-keypairs)."""

    __tablename__ = 'keypairs'
    __table_args__ = (sa.UniqueConstraint('user_id', 'name'),)
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    user_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))  # outlives the user
    type: orm.Mapped[str] = orm.mapped_column(sa.String(8), default='ssh')
    public_key: orm.Mapped[str] = orm.mapped_column(sa.Text)
    fingerprint: orm.Mapped[str] = orm.mapped_column(sa.String(64))


class Allocation(TimestampMixin, Base):
    """Resources an instance has claimed on a host; released by revert and delete."""

    __tablename__ = 'allocations'
    instance_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('instances.id'), primary_key=True)
    host_id: orm.Mapped[str] = orm.mapped_column(sa.ForeignKey('hosts.id'))
    vcpus: orm.Mapped[int]
    memory_mib: orm.Mapped[int]
    disk_gib: orm.Mapped[int]


class Migration(TimestampMixin, Base):
    """A server's move between hosts (Nova's migration record); while it is under
    way it holds the destination's claim (``dest_claimed``) beside the instance's."""

    __tablename__ = 'migrations'
    id: orm.Mapped[int] = orm.mapped_column(primary_key=True, autoincrement=True)
    uuid: orm.Mapped[str] = orm.mapped_column(
        sa.String(36), unique=True, default=lambda: str(uuid.uuid4()))
    instance_id: orm.Mapped[str] = orm.mapped_column(sa.ForeignKey('instances.id'),
                                                     index=True)
    action_id: orm.Mapped[int | None]
    migration_type: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    status: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    source_compute: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    dest_compute: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    dest_address: orm.Mapped[str | None] = orm.mapped_column(sa.String(39))
    flavor_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    vcpus: orm.Mapped[int]
    memory_mib: orm.Mapped[int]
    disk_gib: orm.Mapped[int]
    dest_claimed: orm.Mapped[bool] = orm.mapped_column(default=False)
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    user_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    updated_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        default=utcnow, onupdate=utcnow)


class ServerGroup(TimestampMixin, Base):
    """Instances placed together (affinity) or on distinct hosts (anti-affinity),
    strictly or as far as hosts allow (soft-); names repeat, as Nova's."""

    __tablename__ = 'server_groups'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))  # outlives it
    user_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    policy: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    # anti-affinity's rule (Nova 2.64): at most this many members per host.
    max_server_per_host: orm.Mapped[int | None]


class ServerGroupMember(Base):
    __tablename__ = 'server_group_members'
    instance_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('instances.id', ondelete='CASCADE'), primary_key=True)
    group_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('server_groups.id', ondelete='CASCADE'), index=True)


class QuotaLimit(Base):
    """A project's own limit for one resource; without a row the [quota] default applies."""

    __tablename__ = 'quota_limits'
    # Nova's and Neutron's quotas outlive their project (Keystone tells them nothing).
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    resource: orm.Mapped[str] = orm.mapped_column(sa.String(32), primary_key=True)
    hard_limit: orm.Mapped[int]


class QuotaUsage(Base):
    """What a project's live instances hold of one resource (a counter, for atomic checks)."""

    __tablename__ = 'quota_usages'
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    resource: orm.Mapped[str] = orm.mapped_column(sa.String(32), primary_key=True)
    in_use: orm.Mapped[int] = orm.mapped_column(sa.BigInteger, default=0)


class QuotaReservation(Base):
    """What one instance counts against its project's quota; released once."""

    __tablename__ = 'quota_reservations'
    instance_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('instances.id', ondelete='CASCADE'), primary_key=True)
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    amounts: orm.Mapped[dict] = orm.mapped_column(sa.JSON)


class InstanceLease(Base):
    """Which engine process may run an instance's flows now (distributed mode).

    ``epoch`` grows with every new holder; every flow-store write of the holder is
    conditional on (owner, epoch), so an engine that stalled past its lease cannot
    write over the engine that took the boot over (a fencing token).
    """

    __tablename__ = 'instance_leases'
    instance_id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    owner: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    epoch: orm.Mapped[int] = orm.mapped_column(sa.BigInteger)
    expires_at: orm.Mapped[float] = orm.mapped_column(sa.Float)
    rollback_requested: orm.Mapped[bool] = orm.mapped_column(default=False)


class DeferredHostStep(Base):
    """A host-side revert or cleanup whose worker was unreachable; it replays them."""

    __tablename__ = 'deferred_host_steps'
    id: orm.Mapped[int] = orm.mapped_column(primary_key=True, autoincrement=True)
    host: orm.Mapped[str] = orm.mapped_column(sa.String(255), index=True)
    instance_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    task: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    payload: orm.Mapped[dict] = orm.mapped_column(sa.JSON)
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(default=utcnow)


class Leftover(Base):
    """Something this deployment made on a host and could not remove (a cleanup that
    failed in a revert or a delete, a network a worker could not drop yet).

    Open while ``resolved_at`` is null; an audit --fix, a later delete or the host's
    reconciler that removes it (or finds it gone) resolves it.
    """

    __tablename__ = 'leftovers'
    id: orm.Mapped[int] = orm.mapped_column(primary_key=True, autoincrement=True)
    # domain, root_disk, volume, config_drive, instance_dir, dhcp_host, network, ...
    kind: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    host: orm.Mapped[str | None] = orm.mapped_column(sa.String(255), index=True)
    instance_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36), index=True)
    error: orm.Mapped[str] = orm.mapped_column(sa.Text)
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(default=utcnow)
    resolved_at: orm.Mapped[datetime.datetime | None]
