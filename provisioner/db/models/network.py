"""Neutron's records: networks and their subnets, subnet pools, ports, routers,
floating IPs, security groups and their rules."""

import datetime
import uuid

import sqlalchemy as sa
from sqlalchemy import orm

from provisioner.db.models.base import Base
from provisioner.db.models.base import TimestampMixin


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
