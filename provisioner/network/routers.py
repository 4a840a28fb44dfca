"""Routers (Neutron's L3 API) on behalf of one caller, as records.

A router belongs to a project; its interfaces are ports of the subnets it joins
(``Port.router_id``), made on the subnet's gateway address or taken from the ports
a user made; its gateway, a port on an external network (provisioner.network.
gateways); its extra routes (extra_routes). These are records: forwarding and NAT
are the routers' datapath.
"""

import ipaddress
import uuid

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import extra_routes
from provisioner.network import gateways
from provisioner.network import ipam
from provisioner.network import ownership
from provisioner.network import service
from provisioner import policy
from provisioner.quota import networks as network_quotas
from provisioner import schemas
from provisioner import validation

ROUTER = schemas.request('router', {
    'name': schemas.titled(service.NAME, 'router name'),
    'description': schemas.titled(schemas.DESCRIPTION, 'description')})


class RouterNotFound(exception.NotFound):
    neutron_type = 'RouterNotFound'
    msg_fmt = 'Router %(name)s could not be found'


class RouterInUse(exception.Conflict):
    neutron_type = 'RouterInUse'


class InterfaceInUseByFloatingIP(exception.Conflict):
    neutron_type = 'RouterInterfaceInUseByFloatingIP'
    msg_fmt = ('Router interface for subnet %(subnet_id)s on router %(router_id)s '
               'cannot be deleted, as it is required by one or more floating IPs.')


class InterfaceNotFound(exception.NotFound):
    neutron_type = 'RouterInterfaceNotFound'
    msg_fmt = '%(name)s'


def _row(session, context, router_id):
    return ownership.get(session, context, models.Router, router_id, RouterNotFound)


def _interfaces(session, router_id):
    return session.execute(sa.select(models.Port).where(
        models.Port.router_id == router_id)).scalars().all()


def _router_dict(session, router):
    return {'id': router.id, 'name': router.name, 'description': router.description,
            'project_id': router.project_id, 'admin_state_up': router.admin_state_up,
            'created_at': router.created_at, 'routes': list(router.routes or []),
            'external_gateway_info': gateways.info(session, router)}


def _connected(session, router):
    """[(address, CIDR)] of the router's ports (interfaces and gateway): where its
    next hops may be."""
    port = models.Port
    return [(p.ip, net.cidr) for p, net in session.execute(
        sa.select(port, models.Network)
        .join(models.Network, models.Network.id == port.network_id)
        .where(sa.or_(port.router_id == router.id,
                      sa.and_(port.device_owner == gateways.OWNER,
                              port.device_id == router.id)),
               port.ip.is_not(None)))]


def _set_routes(session, router, routes):
    """Give the router ``routes`` (checked) once they fit its ports."""
    extra_routes.check(routes, _connected(session, router))
    router.routes = routes


def list_routers(context):
    policy.authorize(context, 'router:list')
    with db_api.transaction() as session:
        rows = session.execute(sa.select(models.Router)
                               .order_by(models.Router.created_at)).scalars()
        return [_router_dict(session, r) for r in rows
                if ownership.visible(context, r)]


def show_router(context, router_id):
    policy.authorize(context, 'router:show')
    with db_api.transaction() as session:
        return _router_dict(session, _row(session, context, router_id))


def create_router(context, name='', description='', admin_state_up=True,
                  gateway=None, project_id=None):
    validation.check({'name': name, 'description': description}, ROUTER)
    project_id = project_id or context.project_id
    policy.authorize(context, 'router:create', {'project_id': project_id})
    with db_api.transaction() as session:
        wanted = gateways.check(session, context, project_id, gateway)
        network_quotas.check(session, project_id, 'router')
        router = models.Router(id=str(uuid.uuid4()), project_id=project_id, name=name,
                               description=description,
                               admin_state_up=bool(admin_state_up))
        session.add(router)
        session.flush()
        gateways.apply(session, router, wanted)
        session.flush()
        return _router_dict(session, router)


UNCHANGED = object()


def update_router(context, router_id, name=None, description=None,
                  admin_state_up=None, gateway=UNCHANGED, routes=UNCHANGED):
    """Change what is given (None: unchanged; ``gateway`` and ``routes`` None:
    none)."""
    validation.check({'name': name, 'description': description}, ROUTER)
    if routes is not UNCHANGED:
        routes = extra_routes.checked(routes)
    with db_api.transaction() as session:
        router = _row(session, context, router_id)
        policy.authorize(context, 'router:update', {'project_id': router.project_id})
        if gateway is not UNCHANGED:
            gateways.apply(session, router, gateways.check(
                session, context, router.project_id, gateway))
            session.flush()
            if routes is UNCHANGED:  # its routes must still fit (Neutron's 400)
                _set_routes(session, router, list(router.routes or []))
        for key, value in (('name', name), ('description', description),
                           ('admin_state_up', admin_state_up)):
            if value is not None:
                setattr(router, key, value)
        if routes is not UNCHANGED:
            _set_routes(session, router, routes)
        session.flush()
        return _router_dict(session, router)


def change_routes(context, router_id, routes, add):
    """extraroute-atomic: add the routes to the router's (``add``), or remove them."""
    routes = extra_routes.checked(routes)
    with db_api.transaction() as session:
        router = _row(session, context, router_id)
        policy.authorize(context, 'router:update', {'project_id': router.project_id})
        change = extra_routes.added if add else extra_routes.removed
        _set_routes(session, router, change(list(router.routes or []), routes))
        session.flush()
        return _router_dict(session, router)


def delete_router(context, router_id):
    with db_api.transaction() as session:
        router = _row(session, context, router_id)
        policy.authorize(context, 'router:delete', {'project_id': router.project_id})
        if _interfaces(session, router.id):
            raise RouterInUse(reason='Router %s still has ports' % router_id)
        gateways.apply(session, router, None)
        session.flush()
        session.delete(router)


# -- interfaces ------------------------------------------------------------------------

def _port_subnet(session, port):
    """(network row, the subnet row of the port's IP or None)."""
    net = session.get(models.Network, port.network_id)
    return net, ipam.subnet_of_ip(net, port.ip)


def _interface_info(router, port, net, subnet):
    subnet_id = subnet.id if subnet is not None else None
    return {'id': router.id, 'project_id': router.project_id, 'port_id': port.id,
            'subnet_id': subnet_id, 'subnet_ids': [subnet_id] if subnet_id else [],
            'network_id': net.id}


def _on_subnet(session, context, router, subnet_id):
    """A new port of the router on the subnet's gateway address."""
    net, subnet = service.subnet_row(session, context, subnet_id)
    if not subnet.gateway:
        raise exception.Invalid(reason='Bad router request: Subnet for router '
                                       'interface must have a gateway IP.')
    network_quotas.check(session, router.project_id, 'port')
    port = models.Port(id=str(uuid.uuid4()), network_id=net.id, ip=subnet.gateway,
                       mac=ipam.mac_for(subnet.gateway), project_id=router.project_id,
                       boot_made=False, router_id=router.id)
    session.add(port)
    return port, net


def _from_port(session, context, router, port_id):
    port = session.get(models.Port, port_id)
    if port is None or not (context.is_admin or port.project_id == context.project_id):
        raise exception.NotFound(kind='Port', name=port_id)
    if port.instance_id is not None or port.router_id is not None:
        raise ipam.PortInUse(reason='Port %s is in use (it has a device).' % port_id)
    if port.ip is None:
        raise exception.Invalid(reason='Bad router request: Router port must have at '
                                       'least one fixed IP.')
    port.router_id = router.id
    return port, session.get(models.Network, port.network_id)


def _check_no_overlap(session, subnet, joined):
    """Neutron's 400: a router joins no two subnets whose ranges overlap (networks
    may share a range; a router between them could not route)."""
    for port in joined:
        _net, other = _port_subnet(session, port)
        if other is not None and subnet is not None and ipaddress.ip_network(
                other.cidr).overlaps(ipaddress.ip_network(subnet.cidr)):
            raise exception.Invalid(reason='Bad router request: Cidr %s of subnet %s '
                                           'overlaps with cidr %s of subnet %s.'
                                           % (subnet.cidr, subnet.id, other.cidr,
                                              other.id))


def add_interface(context, router_id, subnet_id=None, port_id=None):
    """Join the router to a subnet: by a new port on its gateway address, or by
    a user's port of it. One interface per subnet and router."""
    if bool(subnet_id) == bool(port_id):
        raise exception.Invalid(reason='Bad router request: Either subnet_id or '
                                       'port_id must be specified.')
    try:
        with db_api.transaction() as session:
            router = _row(session, context, router_id)
            policy.authorize(context, 'router:update', {'project_id': router.project_id})
            joined = _interfaces(session, router.id)
            port, net = (_on_subnet(session, context, router, subnet_id) if subnet_id
                         else _from_port(session, context, router, port_id))
            subnet = ipam.subnet_of_ip(net, port.ip)
            if net.id in {p.network_id for p in joined}:
                raise exception.Invalid(reason='Bad router request: Router already '
                                               'has a port on subnet %s.'
                                               % (subnet.id if subnet else net.id))
            _check_no_overlap(session, subnet, joined)
            session.flush()
            return _interface_info(router, port, net, subnet)
    except sa_exc.IntegrityError:
        raise ipam.IpAddressAlreadyAllocated(
            reason='The gateway address of subnet %s is taken by another port.'
                   % subnet_id) from None


def _check_no_floating_ips(session, router, net):
    fip, port = models.FloatingIP, models.Port
    if session.execute(sa.select(fip.id).join(port, port.id == fip.port_id).where(
            fip.router_id == router.id, port.network_id == net.id)).first():
        raise InterfaceInUseByFloatingIP(subnet_id=net.subnet_id, router_id=router.id)


def remove_interface(context, router_id, subnet_id=None, port_id=None):
    """Take the router off a subnet; its interface port goes (as in Neutron)."""
    if not (subnet_id or port_id):
        raise exception.Invalid(reason='Bad router request: Either subnet_id or '
                                       'port_id must be specified.')
    with db_api.transaction() as session:
        router = _row(session, context, router_id)
        policy.authorize(context, 'router:update', {'project_id': router.project_id})
        for port in _interfaces(session, router.id):
            net, subnet = _port_subnet(session, port)
            if port.id == port_id or (not port_id and subnet is not None
                                      and subnet.id == subnet_id):
                if subnet is not None:
                    extra_routes.check_unused(router.routes or [], router.id,
                                              subnet.id, subnet.cidr)
                _check_no_floating_ips(session, router, net)
                found = _interface_info(router, port, net, subnet)
                session.delete(port)
                return found
    if port_id:
        raise InterfaceNotFound(name='Router %s does not have an interface with id %s'
                                     % (router_id, port_id))
    raise InterfaceNotFound(name='Router %s has no interface on subnet %s'
                                 % (router_id, subnet_id))
