"""Networks and their subnets on behalf of one caller (Neutron's rules).

A network belongs to the project that made it; ``shared`` networks (and those an
operator made before networks had owners) are seen and used by every project, and
external ones (Neutron's router:external: routers' gateways and floating IPs come
from them) are seen by every project. Only an admin shares a network or makes one
external. A network has any number of IPv4 subnets, no two of them overlapping (two
networks' may: each is its own bridge, served by one dnsmasq in its own DHCP
namespace).
"""

import ipaddress
import uuid

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import addressing
from provisioner.network import ipam
from provisioner.network import segments
from provisioner.quota import networks as network_quotas
from provisioner import policy
from provisioner import schemas
from provisioner import validation

# Neutron's names: any text up to 255 characters. Hosts never see them (libvirt's
# networks and bridges are named by id), nor does dnsmasq.
NAME = {'type': 'string', 'maxLength': 255, 'allOf': schemas.DESCRIPTION['allOf'],
        'errorMessage': {'type': '{label} must be text, not {pytype}',
                         'maxLength': '{label} is {length} characters long; the limit '
                                      'is {limit}'}}
# A network's name is also its handle (the CLI and boots find networks by name, and
# it is unique): not empty, unlike Neutron's.
NETWORK = schemas.request('network', {
    'name': schemas.titled(dict(NAME, minLength=1, errorMessage=dict(
        NAME['errorMessage'], minLength='{label} must not be empty')), 'network name'),
    'description': schemas.titled(schemas.DESCRIPTION, 'description')})
SUBNET = schemas.request('subnet', {
    'name': schemas.titled(NAME, 'subnet name'),
    'description': schemas.titled(schemas.DESCRIPTION, 'subnet description')})


class NetworkInUse(exception.Conflict):
    neutron_type = 'NetworkInUse'


class SubnetInUse(exception.Conflict):
    neutron_type = 'SubnetInUse'


class OverlappingSubnet(exception.Conflict):
    neutron_type = 'InvalidInput'
    http_status = 400  # Neutron: "Invalid input for operation: ... overlaps"


def network_info(net):
    """The network as the API shows it, with its first subnet's attributes at the
    top (the CLI's one-line view) and every subnet in ``subnets``."""
    return dict(ipam.network_dict(net), project_id=net.project_id,
                physical_network=None,
                shared=bool(net.shared or net.project_id is None),
                created_at=net.created_at, subnet_id=net.subnet_id,
                subnet_name=net.subnet_name, description=net.description or '',
                subnet_description=net.subnet_description or '',
                subnetpool_id=net.subnetpool_id,
                router_external=bool(net.router_external))


def subnet_info(net, subnet):
    """One subnet as the API shows it: network_info with that subnet's attributes."""
    own = ipam.subnet_dict(subnet)
    own.pop('id')
    return dict(network_info(net), **own, subnet_id=subnet.id,
                subnet_name=subnet.name or '',
                subnet_description=subnet.description or '',
                subnetpool_id=subnet.subnetpool_id, created_at=subnet.created_at)


def visible(context, net):
    return (context.is_admin or net.shared or net.project_id is None
            or net.router_external or net.project_id == context.project_id)


class ExternalNetworkAttachForbidden(exception.Forbidden):
    msg_fmt = 'It is not allowed to create an interface on external network %(net_id)s'


def check_attachable(context, net):
    """Only an admin (or its owner) puts a port on an external network that is not
    shared: Neutron's policy, which Nova answers with this 403."""
    if net.router_external and not (context.is_admin or net.shared
                                    or net.project_id == context.project_id):
        raise ExternalNetworkAttachForbidden(net_id=net.id)


class ExternalNetworkInUse(exception.Conflict):
    neutron_type = 'ExternalNetworkInUse'
    msg_fmt = ('External network %(net_id)s cannot be updated to be made '
               'non-external, since it has existing gateway ports.')


def _set_external(session, context, net, external):
    """Neutron's router:external (admins only); not taken away while a router's
    gateway or a floating IP is on it."""
    policy.authorize(context, 'network:create:external', {'project_id': net.project_id})
    if net.router_external and not external and session.execute(
            sa.select(models.Port.id).where(models.Port.network_id == net.id,
                                            models.Port.device_owner.is_not(None))
    ).first():
        raise ExternalNetworkInUse(net_id=net.id)
    net.router_external = bool(external)


def _owned(context, action, net):
    """Check ``action`` on a network the caller sees; another's is 'not found'."""
    if not visible(context, net):
        raise exception.NotFound(kind='Network', name=net.id)
    policy.authorize(context, action, {'project_id': net.project_id})


def get_row(session, context, network_id):
    net = session.get(models.Network, network_id)
    if net is None or not visible(context, net):
        raise exception.NotFound(kind='Network', name=network_id)
    return net


def list_networks(context):
    policy.authorize(context, 'network:list')
    with db_api.transaction() as session:
        rows = session.execute(sa.select(models.Network)
                               .order_by(models.Network.created_at)).scalars()
        return [network_info(n) for n in rows if visible(context, n)]


def show_network(context, network_id):
    policy.authorize(context, 'network:show')
    with db_api.transaction() as session:
        return network_info(get_row(session, context, network_id))


def find_network(context, name_or_id):
    """A network the caller sees, by id or by name (the CLI's way)."""
    policy.authorize(context, 'network:show')
    with db_api.transaction() as session:
        net = session.get(models.Network, name_or_id) or session.execute(
            sa.select(models.Network).where(models.Network.name == name_or_id)).scalar()
        if net is None or not visible(context, net):
            raise exception.NotFound(kind='Network', name=name_or_id)
        return network_info(net)


def add_network(name, project_id, shared=False, description='', segment=None,
                external=False):
    """Record a network (policy-free: the callers check) with its segment
    (``segment``: {'network_type', 'segmentation_id'} asked for, else the default
    type's next free one). project_id None: the operator's, shared by every
    project and counted against no quota."""
    validation.check({'name': name, 'description': description}, NETWORK)
    net = models.Network(id=str(uuid.uuid4()), name=name, project_id=project_id,
                         shared=bool(shared),
                         description=description, router_external=bool(external))
    segment = segment or {}
    try:
        with db_api.transaction() as session:
            if project_id is not None:
                network_quotas.check(session, project_id, 'network')
            segments.allocate(session, net, segment.get('network_type'),
                              segment.get('segmentation_id'))
            session.add(net)
            session.flush()
            return network_info(net)
    except sa_exc.IntegrityError:
        raise exception.Conflict(reason='Network %s already exists, or its segment '
                                        'was taken meanwhile.' % name) from None


def create_network(context, name, shared=False, project_id=None, description='',
                   segment=None, external=False):
    project_id = project_id or context.project_id
    policy.authorize(context, 'network:create', {'project_id': project_id})
    if shared:
        policy.authorize(context, 'network:create:shared', {'project_id': project_id})
    if segment:
        policy.authorize(context, 'network:create:provider', {'project_id': project_id})
    if external:
        policy.authorize(context, 'network:create:external', {'project_id': project_id})
    return add_network(name, project_id, shared, description, segment, external)


def update_network(context, network_id, name=None, shared=None, description=None,
                   external=None):
    """Change what is given (None: unchanged); all of it or, refused, nothing."""
    validation.check({'name': name, 'description': description}, NETWORK)
    with db_api.transaction() as session:
        net = get_row(session, context, network_id)
        _owned(context, 'network:update', net)
        if external is not None and bool(external) != net.router_external:
            _set_external(session, context, net, external)
        if shared is not None and bool(shared) != net.shared:
            policy.authorize(context, 'network:create:shared',
                             {'project_id': net.project_id})
            net.shared = bool(shared)
        if name is not None:
            net.name = name
        if description is not None:
            net.description = description
        try:
            session.flush()
        except sa_exc.IntegrityError:
            raise exception.Conflict(reason='Network %s already exists.' % name) \
                from None
        return network_info(net)


def _ports_on(session, net, addressed=False):
    """The ports on the network (``addressed``: those with an IP of its subnet)."""
    query = (sa.select(sa.func.count()).select_from(models.Port)
             .where(models.Port.network_id == net.id))
    if addressed:
        query = query.where(models.Port.ip.is_not(None))
    return session.execute(query).scalar()


def delete_network(context, network_id, unplug):
    with db_api.transaction() as session:
        _owned(context, 'network:delete', get_row(session, context, network_id))
    remove_network(network_id, unplug)


def remove_network(network_id, unplug):
    """Delete an unused network; ``unplug(network)`` removes it from every host first.
    """
    with db_api.transaction() as session:
        net = session.get(models.Network, network_id)
        if net is None:
            raise exception.NotFound(kind='Network', name=network_id)
        used = _ports_on(session, net)
        if used:
            raise NetworkInUse(reason='Unable to complete operation on network %s. '
                                      'There are %d port(s) on the network: delete '
                                      'them (or their servers) first.' % (net.id, used))
        found = ipam.network_dict(net)
    if found['subnets']:
        unplug(found)
    with db_api.transaction() as session:
        session.execute(sa.delete(models.Subnet).where(
            models.Subnet.network_id == found['id']))
        session.execute(sa.delete(models.Network).where(models.Network.id == found['id']))


# -- the subnet ------------------------------------------------------------------

def subnet_row(session, context, subnet_id):
    """(network row, subnet row) of a subnet the caller sees."""
    subnet = session.get(models.Subnet, subnet_id)
    net = subnet and session.get(models.Network, subnet.network_id)
    if net is None or not visible(context, net):
        raise exception.NotFound(kind='Subnet', name=subnet_id)
    return net, subnet


def list_subnets(context):
    policy.authorize(context, 'network:list')
    with db_api.transaction() as session:
        rows = session.execute(sa.select(models.Network)
                               .order_by(models.Network.created_at)).scalars()
        return [subnet_info(n, s) for n in rows if visible(context, n)
                for s in n.subnets]


def show_subnet(context, subnet_id):
    policy.authorize(context, 'network:show')
    with db_api.transaction() as session:
        return subnet_info(*subnet_row(session, context, subnet_id))


def _check_overlap(session, network_id, cidr, subnet_id=None):
    """Refuse ``cidr`` if it overlaps another subnet of the same network (Neutron's
    400); other networks may use any range (each its own bridge and DHCP namespace)."""
    for other_cidr in session.execute(
            sa.select(models.Subnet.cidr).where(models.Subnet.network_id == network_id,
                                                models.Subnet.id != subnet_id)
    ).scalars():
        if ipaddress.ip_network(other_cidr).overlaps(ipaddress.ip_network(cidr)):
            # Neutron's words: clients (tempest) match "overlaps with another
            # subnet" to try the next range.
            raise OverlappingSubnet(reason='Invalid input for operation: Requested '
                                           'subnet with cidr: %s for network: %s '
                                           'overlaps with another subnet.'
                                           % (cidr, network_id))


def create_subnet(context, network_id, cidr, name='', gateway=addressing.DEFAULT,
                  pools=None, enable_dhcp=True, dns_nameservers=(), description='',
                  host_routes=(), allocate=None):
    """Give a network a subnet; refused if its CIDR overlaps another of the network.
    ``allocate(network's project id)``, when given, carves the CIDR from a subnet
    pool: (pool id, CIDR)."""
    with db_api.transaction() as session:
        net = get_row(session, context, network_id)
        _owned(context, 'subnet:create', net)
        project_id = net.project_id
    subnetpool_id = None
    if allocate is not None:
        subnetpool_id, cidr = allocate(project_id)
    plan = addressing.plan(cidr, gateway, pools, dns_nameservers, host_routes)
    return add_subnet(network_id, plan, name, enable_dhcp, description, subnetpool_id)


def add_subnet(network_id, plan, name='', enable_dhcp=True, description='',
               subnetpool_id=None):
    """Give the network the subnet ``plan`` (addressing.plan) (policy-free); its
    subnet_info."""
    validation.check({'name': name or None, 'description': description}, SUBNET)
    with db_api.transaction() as session:
        net = session.get(models.Network, network_id)
        if net is None:
            raise exception.NotFound(kind='Network', name=network_id)
        if net.project_id is not None:
            network_quotas.check(session, net.project_id, 'subnet')
        _check_overlap(session, network_id, plan['cidr'])
        subnet = models.Subnet(id=str(uuid.uuid4()), network_id=net.id, name=name or '',
                               description=description, enable_dhcp=bool(enable_dhcp),
                               subnetpool_id=subnetpool_id, **plan)
        session.add(subnet)
        session.flush()
        session.refresh(net, ['subnets'])
        return subnet_info(net, subnet)


# What a subnet update may change besides its name and description.
ADDRESSING = ('gateway_ip', 'allocation_pools', 'dns_nameservers', 'host_routes',
              'enable_dhcp')


def _replanned(subnet, changes):
    """The subnet's plan with ``changes`` ({ADDRESSING key: value}) applied."""
    current = ipam.subnet_dict(subnet)
    pools = (changes.get('allocation_pools')
             or [{'start': subnet.dhcp_start, 'end': subnet.dhcp_end}])
    return addressing.plan(subnet.cidr, changes.get('gateway_ip', current['gateway']),
                           pools, changes.get('dns_nameservers',
                                              current['dns_nameservers']),
                           changes.get('host_routes', current['host_routes']))


def _addressed_from(session, net, subnet):
    """The ports of the network with an IP of ``subnet``."""
    cidr = ipaddress.ip_network(subnet.cidr)
    return sum(1 for ip in session.execute(sa.select(models.Port.ip).where(
        models.Port.network_id == net.id, models.Port.ip.is_not(None))).scalars()
        if ipaddress.ip_address(ip) in cidr)


def update_subnet(context, subnet_id, name=None, description=None, changes=None,
                  unplug=None):
    """Rename a subnet, change its description (None: unchanged; '' clears) or its
    addressing (``changes``, ADDRESSING keys). The addressing changes only while no
    port uses the subnet; the hosts then drop the network (``unplug``) if no port
    uses it at all, and the next port makes it again as it now is."""
    validation.check({'name': name or None, 'description': description}, SUBNET)
    changes = dict(changes or {})
    with db_api.transaction() as session:
        net, subnet = subnet_row(session, context, subnet_id)
        _owned(context, 'subnet:update', net)
        before = ipam.network_dict(net)
        if changes:
            plan = _replanned(subnet, changes)
            enable_dhcp = bool(changes.get('enable_dhcp', subnet.enable_dhcp))
            current = ipam.subnet_dict(subnet)
            if {k: current[k] for k in plan} != plan or \
                    enable_dhcp != subnet.enable_dhcp:
                used = _addressed_from(session, net, subnet)
                if used:
                    raise SubnetInUse(reason='Unable to change the addressing of '
                                             'subnet %s while %d port(s) use it: the '
                                             'hosts serve it already.'
                                             % (subnet_id, used))
                for key, value in plan.items():
                    setattr(subnet, key, value)
                subnet.enable_dhcp = enable_dhcp
            else:
                changes = {}
        if name is not None:
            subnet.name = name
        if description is not None:
            subnet.description = description
        session.flush()
        found = subnet_info(net, subnet)
        in_use = _ports_on(session, net, addressed=True)
    if changes and unplug is not None and not in_use:
        unplug(before)
    return found


def delete_subnet(context, subnet_id, unplug):
    """Take the subnet from its network once no port uses it, and from every host
    (the network goes from the hosts when no port of it is left addressed; else
    they drop the subnet at their next converge of it)."""
    with db_api.transaction() as session:
        net, subnet = subnet_row(session, context, subnet_id)
        _owned(context, 'subnet:delete', net)
        used = _addressed_from(session, net, subnet)
        if used:
            raise SubnetInUse(reason='Unable to complete operation on subnet %s: one '
                                     'or more ports have an IP allocation from this '
                                     'subnet (%d port(s)).' % (subnet_id, used))
        found = ipam.network_dict(net)
        in_use = _ports_on(session, net, addressed=True)
    if not in_use:
        unplug(found)
    with db_api.transaction() as session:
        session.execute(sa.delete(models.Subnet).where(models.Subnet.id == subnet_id))
