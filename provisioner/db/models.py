"""SQLAlchemy models: identity, catalog, hosts and the instances built on them.

TaskFlow's persistence tables (logbooks, flowdetails, atomdetails) live in the same
database but belong to TaskFlow; they are created by its own migrations in db-sync.
"""

import datetime
import uuid

import sqlalchemy as sa
from sqlalchemy import orm


def utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


class Base(orm.DeclarativeBase):
    pass


class TimestampMixin:
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(default=utcnow)


DEFAULT_DOMAIN_ID = 'default'


class Domain(TimestampMixin, Base):
    __tablename__ = 'domains'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(64), unique=True)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    enabled: orm.Mapped[bool] = orm.mapped_column(default=True)
    # Keystone's domain configuration ({group: {option: value}}), kept and served:
    # provisioner has one identity driver (SQL), domain-specific drivers are off.
    config: orm.Mapped[dict | None] = orm.mapped_column(sa.JSON)


class Project(TimestampMixin, Base):
    __tablename__ = 'projects'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(64), unique=True)
    domain_id: orm.Mapped[str] = orm.mapped_column(sa.String(64),
                                                   default=DEFAULT_DOMAIN_ID)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    enabled: orm.Mapped[bool] = orm.mapped_column(default=True)
    parent_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    tags: orm.Mapped[list | None] = orm.mapped_column(sa.JSON)


class User(TimestampMixin, Base):
    __tablename__ = 'users'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), unique=True)
    domain_id: orm.Mapped[str] = orm.mapped_column(sa.String(64),
                                                   default=DEFAULT_DOMAIN_ID)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    extra: orm.Mapped[dict | None] = orm.mapped_column(sa.JSON)  # e-mail...
    default_project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    password_hash: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    enabled: orm.Mapped[bool] = orm.mapped_column(default=True)
    # Tokens issued before this (a password change, a disable) are no longer valid.
    tokens_revoked_at: orm.Mapped[datetime.datetime | None]


class RoleAssignment(Base):
    __tablename__ = 'role_assignments'
    user_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('users.id', ondelete='CASCADE'), primary_key=True)
    project_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('projects.id', ondelete='CASCADE'), primary_key=True)
    role: orm.Mapped[str] = orm.mapped_column(sa.String(32), primary_key=True)


class Role(Base):
    """A role; the policy's (admin, member, reader, service) have their names as ids.
    A domain-specific role (domain_id set) is never in a token: it only implies."""

    __tablename__ = 'roles'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    domain_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)


class ImpliedRole(Base):
    __tablename__ = 'implied_roles'
    prior_role_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('roles.id', ondelete='CASCADE'), primary_key=True)
    implied_role_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('roles.id', ondelete='CASCADE'), primary_key=True)


class Group(Base):
    __tablename__ = 'groups'
    __table_args__ = (sa.UniqueConstraint('domain_id', 'name',
                                          name='uq_groups_domain_id_name'),)
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    domain_id: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)


class GroupMember(Base):
    __tablename__ = 'group_members'
    group_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('groups.id', ondelete='CASCADE'), primary_key=True)
    user_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('users.id', ondelete='CASCADE'), primary_key=True)


class Grant(Base):
    """A role assignment but a user's on a project (RoleAssignment): actor_type
    'user' or 'group', target_type 'project', 'domain' or 'system' (target_id
    'all')."""

    __tablename__ = 'grants'
    actor_type: orm.Mapped[str] = orm.mapped_column(sa.String(8), primary_key=True)
    actor_id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    target_type: orm.Mapped[str] = orm.mapped_column(sa.String(8), primary_key=True)
    target_id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    role_id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)


class Region(Base):
    __tablename__ = 'regions'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(255), primary_key=True)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    parent_region_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))


class Service(Base):
    """A service an operator added to the catalog (the built-in ones are not rows)."""

    __tablename__ = 'services'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    type: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    name: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    enabled: orm.Mapped[bool] = orm.mapped_column(default=True)


class Endpoint(Base):
    __tablename__ = 'endpoints'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    service_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('services.id', ondelete='CASCADE'))
    region_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    interface: orm.Mapped[str] = orm.mapped_column(sa.String(8))
    url: orm.Mapped[str] = orm.mapped_column(sa.Text)
    enabled: orm.Mapped[bool] = orm.mapped_column(default=True)


class Credential(Base):
    """Keystone's credential: a user's blob (an EC2 key pair, a TOTP secret...)."""

    __tablename__ = 'credentials'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    user_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('users.id', ondelete='CASCADE'))
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    type: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    blob: orm.Mapped[str] = orm.mapped_column(sa.Text)


class Policy(Base):
    """Keystone's stored policy blob (served, never enforced here)."""

    __tablename__ = 'policies'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    type: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    blob: orm.Mapped[str] = orm.mapped_column(sa.Text)


class EndpointGroup(Base):
    """Keystone's endpoint group (OS-EP-FILTER): filters on endpoints' attributes."""

    __tablename__ = 'endpoint_groups'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    filters: orm.Mapped[dict] = orm.mapped_column(sa.JSON)


class OAuthConsumer(Base):
    """Keystone's OAuth 1 consumer (OS-OAUTH1); only its secret's hash is kept."""

    __tablename__ = 'oauth_consumers'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(64), primary_key=True)
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    secret_hash: orm.Mapped[str] = orm.mapped_column(sa.String(255))


class ApplicationCredential(TimestampMixin, Base):
    """Keystone's application credential: a user's secret for one project and some
    of their roles on it (``roles``: names). Only the secret's hash is kept."""

    __tablename__ = 'application_credentials'
    __table_args__ = (sa.UniqueConstraint('user_id', 'name',
                                          name='uq_application_credentials_user_id_name'),)
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    user_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('users.id', ondelete='CASCADE'))
    project_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('projects.id', ondelete='CASCADE'))
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    secret_hash: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    expires_at: orm.Mapped[datetime.datetime | None]
    unrestricted: orm.Mapped[bool] = orm.mapped_column(default=False)
    roles: orm.Mapped[list] = orm.mapped_column(sa.JSON)


class RevokedToken(Base):
    """A token revoked before it expires (DELETE /v3/auth/tokens), by its audit id;
    kept until it would have expired anyway."""

    __tablename__ = 'revoked_tokens'
    audit_id: orm.Mapped[str] = orm.mapped_column(sa.String(32), primary_key=True)
    expires_at: orm.Mapped[datetime.datetime] = orm.mapped_column(index=True)


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


SUBNET_NAMESPACE = uuid.UUID('0b8a4d1e-7c6f-4e8e-9a9d-3f1c2b5e6a70')


def derived_subnet_id(network_id):
    """The subnet id networks recorded with their CIDR (before subnets) were served with."""
    return str(uuid.uuid5(SUBNET_NAMESPACE, network_id))


class Network(TimestampMixin, Base):
    """A network and its IPv4 subnets (``subnets``, oldest first).

    Each host serving its DHCP runs one dnsmasq for every subnet of it, in a DHCP
    namespace of its own. The subnet attributes read here (``cidr``, ``gateway``,
    ``subnet_id``...) are those of its first subnet (None without one).
    """

    __tablename__ = 'networks'
    __table_args__ = (sa.UniqueConstraint('network_type', 'segmentation_id',
                                          name='uq_networks_segment'),)
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), unique=True)
    description: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='',
                                                     server_default='')
    # Null: made by an operator before networks had owners (shared by everyone).
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    shared: orm.Mapped[bool] = orm.mapped_column(default=False)
    # The segment (Neutron's provider attributes): 'vxlan' and its VNI, unique per
    # type; null on a network made before segments (it gets one at its first bind).
    network_type: orm.Mapped[str | None] = orm.mapped_column(sa.String(16))
    segmentation_id: orm.Mapped[int | None] = orm.mapped_column()
    # The host whose DHCP server serves the network across hosts (null: none yet).
    dhcp_host: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    # Neutron's router:external: routers' gateways and floating IPs come from it.
    router_external: orm.Mapped[bool] = orm.mapped_column(default=False,
                                                          server_default=sa.false())
    subnets: orm.Mapped[list['Subnet']] = orm.relationship(
        order_by=lambda: (Subnet.created_at, Subnet.id), lazy='selectin',
        cascade='all, delete-orphan', passive_deletes=True)

    def _first(self, attribute, default=None):
        return getattr(self.subnets[0], attribute) if self.subnets else default

    cidr = property(lambda self: self._first('cidr'))
    gateway = property(lambda self: self._first('gateway'))
    dhcp_start = property(lambda self: self._first('dhcp_start'))
    dhcp_end = property(lambda self: self._first('dhcp_end'))
    subnet_id = property(lambda self: self._first('id'))
    subnet_name = property(lambda self: self._first('name', ''))
    subnet_description = property(lambda self: self._first('description', ''))
    enable_dhcp = property(lambda self: self._first('enable_dhcp', True))
    dns_nameservers = property(lambda self: self._first('dns_nameservers', []))
    host_routes = property(lambda self: self._first('host_routes', []))
    subnetpool_id = property(lambda self: self._first('subnetpool_id'))


class Subnet(TimestampMixin, Base):
    """An IPv4 subnet of a network: its range, gateway (null: none), allocation pool
    (one DHCP range), DNS servers and host routes. Two subnets of one network never
    overlap; subnets of two networks may."""

    __tablename__ = 'subnets'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    network_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('networks.id', ondelete='CASCADE'), index=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='')
    description: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='')
    cidr: orm.Mapped[str] = orm.mapped_column(sa.String(43))
    gateway: orm.Mapped[str | None] = orm.mapped_column(sa.String(39))
    dhcp_start: orm.Mapped[str] = orm.mapped_column(sa.String(39))
    dhcp_end: orm.Mapped[str] = orm.mapped_column(sa.String(39))
    enable_dhcp: orm.Mapped[bool] = orm.mapped_column(default=True)
    dns_nameservers: orm.Mapped[list] = orm.mapped_column(sa.JSON, default=list)
    # [{"destination": CIDR, "nexthop": IP}]: DHCP's classless static routes.
    host_routes: orm.Mapped[list] = orm.mapped_column(sa.JSON, default=list)
    # The subnet pool the subnet was carved from (null: its CIDR was given).
    subnetpool_id: orm.Mapped[str | None] = orm.mapped_column(
        sa.ForeignKey('subnet_pools.id'))


class SubnetPool(TimestampMixin, Base):
    """Neutron's subnet pool: IPv4 prefixes that subnets are carved from, each at
    most ``max_prefixlen`` and at least ``min_prefixlen`` long; ``default_quota``
    (null: none) bounds the addresses one project's subnets take of it."""

    __tablename__ = 'subnet_pools'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(36), index=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    description: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='')
    prefixes: orm.Mapped[list] = orm.mapped_column(sa.JSON)
    min_prefixlen: orm.Mapped[int]
    max_prefixlen: orm.Mapped[int]
    default_prefixlen: orm.Mapped[int]
    default_quota: orm.Mapped[int | None]
    shared: orm.Mapped[bool] = orm.mapped_column(default=False)
    is_default: orm.Mapped[bool] = orm.mapped_column(default=False)


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


class Port(TimestampMixin, Base):
    """A fixed IP and MAC on a network; bound to an instance (instance_id) or not.

    A boot's own port (``boot_made``) goes with its instance; a port a user made
    first is unbound again when its instance goes, as Neutron's ports are.
    """

    __tablename__ = 'ports'
    __table_args__ = (sa.UniqueConstraint('network_id', 'ip'),
                      sa.UniqueConstraint('network_id', 'mac'),
                      sa.UniqueConstraint('instance_id', 'network_id'))
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    instance_id: orm.Mapped[str | None] = orm.mapped_column(
        sa.ForeignKey('instances.id'), index=True)
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='')
    description: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='',
                                                     server_default='')
    boot_made: orm.Mapped[bool] = orm.mapped_column(default=True)
    network_id: orm.Mapped[str] = orm.mapped_column(sa.ForeignKey('networks.id'))
    mac: orm.Mapped[str] = orm.mapped_column(sa.String(17))
    # Null: a port on a network without a subnet (Neutron's port with no fixed IP).
    ip: orm.Mapped[str | None] = orm.mapped_column(sa.String(39))
    admin_state_up: orm.Mapped[bool] = orm.mapped_column(default=True,
                                                         server_default=sa.true())
    # A router's interface (Neutron's device_owner network:router_interface).
    router_id: orm.Mapped[str | None] = orm.mapped_column(
        sa.ForeignKey('routers.id'), index=True)
    # A port of neither an instance nor a router interface: Neutron's owner
    # (network:router_gateway, network:floatingip) and the id of what owns it.
    device_owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    device_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(36))
    # Neutron's port-security: the host lets the port send only from its MAC and
    # fixed IP (and allowed_address_pairs) and applies its security groups.
    port_security_enabled: orm.Mapped[bool] = orm.mapped_column(
        default=True, server_default=sa.true())
    allowed_address_pairs: orm.Mapped[list | None] = orm.mapped_column(sa.JSON,
                                                                       default=list)


class Router(TimestampMixin, Base):
    """Neutron's router, as recorded: its interfaces are ports (Port.router_id).
    Nothing routes between guest networks yet (they are isolated bridges)."""

    __tablename__ = 'routers'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(36), index=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='')
    description: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='')
    admin_state_up: orm.Mapped[bool] = orm.mapped_column(default=True)
    # Neutron's extraroute: [{'destination', 'nexthop'}].
    routes: orm.Mapped[list] = orm.mapped_column(sa.JSON, default=list,
                                                 server_default='[]')
    # external_gateway_info: the external network (its port: Port.device_owner
    # network:router_gateway, device_id this router) and whether it SNATs.
    gw_network_id: orm.Mapped[str | None] = orm.mapped_column(
        sa.ForeignKey('networks.id'))
    enable_snat: orm.Mapped[bool] = orm.mapped_column(default=True,
                                                      server_default=sa.true())


class FloatingIP(TimestampMixin, Base):
    """Neutron's floating IP: an address of an external network (held by its own
    port there), associated with a project's port through a router whose gateway
    is on that network. The API and its records: the NAT is the routers' datapath.
    """

    __tablename__ = 'floatingips'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(36), index=True)
    description: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='',
                                                     server_default='')
    floating_network_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('networks.id'))
    floating_port_id: orm.Mapped[str] = orm.mapped_column(sa.ForeignKey('ports.id'))
    floating_ip_address: orm.Mapped[str] = orm.mapped_column(sa.String(39))
    port_id: orm.Mapped[str | None] = orm.mapped_column(sa.ForeignKey('ports.id'),
                                                        index=True)
    fixed_ip_address: orm.Mapped[str | None] = orm.mapped_column(sa.String(39))
    router_id: orm.Mapped[str | None] = orm.mapped_column(sa.ForeignKey('routers.id'),
                                                          index=True)
    updated_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column()


class SecurityGroup(TimestampMixin, Base):
    """Neutron's security group: a project's named set of rules that ports carry.

    ``default_of`` is the project's id on its ``default`` group (null on any other):
    the unique constraint makes a second default impossible even under a race.
    """

    __tablename__ = 'security_groups'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(36), index=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='')
    description: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='')
    default_of: orm.Mapped[str | None] = orm.mapped_column(sa.String(36), unique=True)


class SecurityGroupRule(TimestampMixin, Base):
    """One rule of a group, as Neutron records it: traffic ``direction`` of
    ``ethertype`` (and ``protocol``, ports or ICMP type/code) from or to
    ``remote_ip_prefix`` or the ports of ``remote_group_id``. Hosts do not enforce
    them yet: recorded for the agent that will."""

    __tablename__ = 'security_group_rules'
    id: orm.Mapped[str] = orm.mapped_column(sa.String(36), primary_key=True)
    security_group_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('security_groups.id', ondelete='CASCADE'), index=True)
    project_id: orm.Mapped[str] = orm.mapped_column(sa.String(36))
    direction: orm.Mapped[str] = orm.mapped_column(sa.String(7))
    ethertype: orm.Mapped[str] = orm.mapped_column(sa.String(4))
    protocol: orm.Mapped[str | None] = orm.mapped_column(sa.String(40))
    port_range_min: orm.Mapped[int | None]
    port_range_max: orm.Mapped[int | None]
    remote_ip_prefix: orm.Mapped[str | None] = orm.mapped_column(sa.String(43))
    remote_group_id: orm.Mapped[str | None] = orm.mapped_column(
        sa.ForeignKey('security_groups.id', ondelete='CASCADE'))
    description: orm.Mapped[str] = orm.mapped_column(sa.String(255), default='')


class PortSecurityGroup(Base):
    """A port's security groups: a group a port carries cannot be deleted."""

    __tablename__ = 'port_security_groups'
    port_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('ports.id', ondelete='CASCADE'), primary_key=True)
    security_group_id: orm.Mapped[str] = orm.mapped_column(
        sa.ForeignKey('security_groups.id'), primary_key=True, index=True)


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
