"""Networks and their subnet on behalf of one caller (Neutron's rules, one subnet each).

A network belongs to the project that made it; ``shared`` networks (and those an
operator made before networks had owners) are seen and used by every project, and
external ones (Neutron's router:external: routers' gateways and floating IPs come
from them) are seen by every project. Only an admin shares a network or makes one
external. A network has at most one IPv4 subnet: it is one
isolated libvirt network per host, whose dnsmasq serves one range.
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
    """The network and its subnet as the API shows them."""
    return dict(ipam.network_dict(net), project_id=net.project_id,
                physical_network=None,
                shared=bool(net.shared or net.project_id is None),
                created_at=net.created_at, subnet_id=net.subnet_id,
                subnet_name=net.subnet_name, description=net.description or '',
                subnet_description=net.subnet_description or '',
                subnetpool_id=net.subnetpool_id,
                router_external=bool(net.router_external))


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
                         shared=bool(shared), dns_nameservers=[],
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
    if found['cidr']:
        unplug(found)
    with db_api.transaction() as session:
        session.execute(sa.delete(models.Network).where(models.Network.id == found['id']))


# -- the subnet ------------------------------------------------------------------

def subnet_row(session, context, subnet_id):
    net = session.execute(sa.select(models.Network).where(
        models.Network.subnet_id == subnet_id)).scalar()
    if net is None or not visible(context, net):
        raise exception.NotFound(kind='Subnet', name=subnet_id)
    return net


def list_subnets(context):
    return [n for n in list_networks(context) if n['subnet_id']]


def show_subnet(context, subnet_id):
    policy.authorize(context, 'network:show')
    with db_api.transaction() as session:
        return network_info(subnet_row(session, context, subnet_id))


def check_overlap(cidr):
    """Refuse ``cidr`` if it overlaps the subnet of a network already recorded."""
    with db_api.transaction() as session:
        _check_overlap(session, cidr)


def _check_overlap(session, cidr):
    for other, other_cidr in session.execute(
            sa.select(models.Network.name, models.Network.cidr)
            .where(models.Network.cidr.is_not(None))):
        if ipaddress.ip_network(other_cidr).overlaps(ipaddress.ip_network(cidr)):
            # Neutron's words: clients (tempest) match "overlaps with another
            # subnet" to try the next range.
            raise OverlappingSubnet(reason='Invalid input for operation: Requested '
                                           'subnet with cidr: %s overlaps with another '
                                           'subnet (%s of network %s).'
                                           % (cidr, other_cidr, other))


def create_subnet(context, network_id, cidr, name='', gateway=addressing.DEFAULT,
                  pools=None, enable_dhcp=True, dns_nameservers=(), description='',
                  host_routes=(), allocate=None):
    """Give a network its one subnet; refused if it has one or the CIDR overlaps.
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
    """Give the network the subnet ``plan`` (addressing.plan) (policy-free)."""
    validation.check({'name': name or None, 'description': description}, SUBNET)
    with db_api.transaction() as session:
        net = session.get(models.Network, network_id)
        if net is None:
            raise exception.NotFound(kind='Network', name=network_id)
        if net.subnet_id:
            raise exception.Conflict(
                reason='Network %s already has the subnet %s (%s): a network here has '
                       'one IPv4 subnet, served by one DHCP range on one isolated '
                       'bridge per host; make another network for another range.'
                       % (net.name, net.subnet_id, net.cidr))
        if net.project_id is not None:
            network_quotas.check(session, net.project_id, 'subnet')
        _check_overlap(session, plan['cidr'])
        for key, value in plan.items():
            setattr(net, key, value)
        net.subnet_id, net.subnet_name = str(uuid.uuid4()), name or ''
        net.subnet_description = description
        net.enable_dhcp = bool(enable_dhcp)
        net.subnetpool_id = subnetpool_id
        session.flush()
        return network_info(net)


# What a subnet update may change besides its name and description.
ADDRESSING = ('gateway_ip', 'allocation_pools', 'dns_nameservers', 'host_routes',
              'enable_dhcp')


def _replanned(net, changes):
    """The subnet's plan with ``changes`` ({ADDRESSING key: value}) applied."""
    current = ipam.network_dict(net)
    pools = (changes.get('allocation_pools')
             or [{'start': net.dhcp_start, 'end': net.dhcp_end}])
    return addressing.plan(net.cidr, changes.get('gateway_ip', current['gateway']),
                           pools, changes.get('dns_nameservers',
                                              current['dns_nameservers']),
                           changes.get('host_routes', current['host_routes']))


def update_subnet(context, subnet_id, name=None, description=None, changes=None,
                  unplug=None):
    """Rename a subnet, change its description (None: unchanged; '' clears) or its
    addressing (``changes``, ADDRESSING keys). The addressing changes only while no
    port uses the subnet: the hosts then drop the network (``unplug``), and the
    next port makes it again as it now is."""
    validation.check({'name': name or None, 'description': description}, SUBNET)
    changes = dict(changes or {})
    with db_api.transaction() as session:
        net = subnet_row(session, context, subnet_id)
        _owned(context, 'subnet:update', net)
        before = ipam.network_dict(net)
        if changes:
            plan = _replanned(net, changes)
            enable_dhcp = bool(changes.get('enable_dhcp', net.enable_dhcp))
            if {k: before[k] for k in plan} != plan or enable_dhcp != net.enable_dhcp:
                used = _ports_on(session, net, addressed=True)
                if used:
                    raise SubnetInUse(reason='Unable to change the addressing of '
                                             'subnet %s while %d port(s) use it: the '
                                             'hosts serve it already.'
                                             % (subnet_id, used))
                for key, value in plan.items():
                    setattr(net, key, value)
                net.enable_dhcp = enable_dhcp
            else:
                changes = {}
        if name is not None:
            net.subnet_name = name
        if description is not None:
            net.subnet_description = description
        session.flush()
        found = network_info(net)
    if changes and unplug is not None:
        unplug(before)
    return found


def delete_subnet(context, subnet_id, unplug):
    """Take the subnet from its network once no port uses it, and from every host."""
    with db_api.transaction() as session:
        net = subnet_row(session, context, subnet_id)
        _owned(context, 'subnet:delete', net)
        used = _ports_on(session, net, addressed=True)
        if used:
            raise SubnetInUse(reason='Unable to complete operation on subnet %s: one '
                                     'or more ports have an IP allocation from this '
                                     'subnet (%d port(s)).' % (subnet_id, used))
        found = ipam.network_dict(net)
    unplug(found)
    with db_api.transaction() as session:
        session.execute(sa.update(models.Network)
                        .where(models.Network.subnet_id == subnet_id)
                        .values(cidr=None, gateway=None, dhcp_start=None, dhcp_end=None,
                                subnet_id=None, subnet_name='',
                                subnet_description='', enable_dhcp=True,
                                dns_nameservers=[], subnetpool_id=None))
