"""Floating IPs (Neutron's L3 floatingips) on behalf of one caller, as records.

A floating IP is an address of an external network's subnet, held by a port of its
own there (device_owner network:floatingip, of no project), given to a project
and associated with one of its ports through a router that has an interface on
that port's subnet and its gateway on the external network. Neutron's rules and
words: 404 for what the caller cannot see, 400 for a network that is not external
or a port that cannot have one, 404 ExternalGatewayForFloatingIPNotFound when no
router joins them, 409 FloatingIPPortAlreadyAssociated, the ``floatingip`` quota.
The NAT that makes the address reach the port is the routers' datapath.
"""

import uuid

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import ipam
from provisioner.network import ownership
from provisioner.network import service
from provisioner import policy
from provisioner.quota import networks as network_quotas

OWNER = 'network:floatingip'


class FloatingIPNotFound(exception.NotFound):
    neutron_type = 'FloatingIPNotFound'
    msg_fmt = 'Floating IP %(name)s could not be found'


class GatewayNotFound(exception.NotFound):
    neutron_type = 'ExternalGatewayForFloatingIPNotFound'
    msg_fmt = ('External network %(net_id)s is not reachable from subnet '
               '%(subnet_id)s.  Therefore, cannot associate Port %(port_id)s with a '
               'Floating IP.')


class PortAlreadyAssociated(exception.Conflict):
    neutron_type = 'FloatingIPPortAlreadyAssociated'
    msg_fmt = ('Cannot associate floating IP %(address)s (%(fip_id)s) with port '
               '%(port_id)s using fixed IP %(fixed_ip)s, as that fixed IP already has '
               'a floating IP on external network %(net_id)s.')


def _bad(reason):
    return exception.Invalid(reason='Bad floatingip request: %s.' % reason)


def _dict(session, fip):
    """The floating IP, with what Nova's proxy shows: its network's name (Nova's
    pool) and the server of its port."""
    port = session.get(models.Port, fip.port_id) if fip.port_id else None
    return dict({key: getattr(fip, key) for key in (
        'id', 'project_id', 'description', 'floating_network_id', 'floating_ip_address',
        'fixed_ip_address', 'port_id', 'router_id', 'created_at', 'updated_at')},
        network_name=session.get(models.Network, fip.floating_network_id).name,
        instance_id=port.instance_id if port is not None else None)


def _row(session, context, fip_id):
    return ownership.get(session, context, models.FloatingIP, fip_id,
                         FloatingIPNotFound)


def list_floating_ips(context):
    policy.authorize(context, 'floatingip:list')
    with db_api.transaction() as session:
        rows = session.execute(sa.select(models.FloatingIP)
                               .order_by(models.FloatingIP.created_at)).scalars()
        return [_dict(session, f) for f in rows if ownership.visible(context, f)]


def show_floating_ip(context, fip_id):
    policy.authorize(context, 'floatingip:show')
    with db_api.transaction() as session:
        return _dict(session, _row(session, context, fip_id))


def find_by_address(context, address):
    """The caller's floating IP of that address, or NotFound."""
    policy.authorize(context, 'floatingip:show')
    with db_api.transaction() as session:
        for fip in session.execute(sa.select(models.FloatingIP).where(
                models.FloatingIP.floating_ip_address == address)).scalars():
            if ownership.visible(context, fip):
                return _dict(session, fip)
    raise FloatingIPNotFound(name=address)


def external_network(context, name_or_id):
    """An external network the caller sees, by id or name (Nova's pool)."""
    net = service.find_network(context, name_or_id)
    if not net['router_external']:
        raise exception.NotFound(kind='Network', name=name_or_id)
    return net


def _router_between(session, port, net_id):
    """The router joining the port's subnet to the external network (the one whose
    interface is the subnet's gateway first, as Neutron's)."""
    port_row, router = models.Port, models.Router
    found = session.execute(
        sa.select(router.id, port_row.ip)
        .join(port_row, port_row.router_id == router.id)
        .where(port_row.network_id == port.network_id, router.gw_network_id == net_id)
        .order_by(router.created_at)).all()
    subnet = session.get(models.Network, port.network_id)
    for router_id, interface_ip in found:
        if interface_ip == subnet.gateway:
            return router_id
    if found:
        return found[0][0]
    raise GatewayNotFound(net_id=net_id, subnet_id=subnet.subnet_id, port_id=port.id)


def _association(session, context, fip, port_id, fixed_ip):
    """(port id, fixed IP, router id) of associating ``fip`` with ``port_id``."""
    if port_id is None:
        if fixed_ip:
            raise _bad('fixed_ip_address cannot be specified without a port_id')
        return None, None, None
    port = session.get(models.Port, port_id)
    if port is None or not ownership.visible(context, port):
        raise exception.NotFound(kind='Port', name=port_id)
    if port.project_id != fip.project_id and not context.is_admin:
        raise _bad('Cannot process floating IP association with Port %s, since that '
                   'port is owned by a different project' % port_id)
    if port.device_owner or port.router_id:
        raise _bad('Port %s is unable to be assigned a floating IP' % port_id)
    if fixed_ip and fixed_ip != port.ip:
        raise _bad('Port %s does not have fixed ip %s' % (port_id, fixed_ip))
    if port.ip is None:
        raise _bad('Cannot add floating IP to port %s that has no fixed IPv4 addresses'
                   % port_id)
    router_id = _router_between(session, port, fip.floating_network_id)
    taken = models.FloatingIP
    if session.execute(sa.select(taken.id).where(
            taken.port_id == port.id, taken.id != fip.id,
            taken.floating_network_id == fip.floating_network_id)).first():
        raise PortAlreadyAssociated(address=fip.floating_ip_address, fip_id=fip.id,
                                    port_id=port.id, fixed_ip=port.ip,
                                    net_id=fip.floating_network_id)
    return port.id, port.ip, router_id


def _associate(session, context, fip, port_id, fixed_ip):
    fip.port_id, fip.fixed_ip_address, fip.router_id = _association(
        session, context, fip, port_id, fixed_ip)


def create_floating_ip(context, network_id, project_id=None, port_id=None,
                       fixed_ip_address=None, floating_ip_address=None, subnet_id=None,
                       description=''):
    project_id = project_id or context.project_id
    policy.authorize(context, 'floatingip:create', {'project_id': project_id})
    if floating_ip_address is not None:
        policy.authorize(context, 'floatingip:create:floating_ip_address',
                         {'project_id': project_id})
    with db_api.transaction() as session:
        net = service.get_row(session, context, network_id)
        if not net.router_external:
            raise _bad('Network %s is not a valid external network' % network_id)
        if not net.subnet_id:
            raise _bad('Network %s does not contain any IPv4 subnet' % network_id)
        if subnet_id not in (None, net.subnet_id):
            raise _bad('Subnet %s is not a subnet of network %s' % (subnet_id, net.id))
        network_quotas.check(session, project_id, 'floatingip')
        fip = models.FloatingIP(id=str(uuid.uuid4()), project_id=project_id,
                                description=description or '',
                                floating_network_id=net.id)
        fip.floating_ip_address = ipam.take_ip(session, net, floating_ip_address)
        _associate(session, context, fip, port_id, fixed_ip_address)
        port = models.Port(id=str(uuid.uuid4()), network_id=net.id,
                           ip=fip.floating_ip_address,
                           mac=ipam.mac_for(fip.floating_ip_address), project_id='',
                           boot_made=False, device_owner=OWNER, device_id=fip.id)
        session.add(port)
        session.flush()  # the port first: the floating IP refers to it
        fip.floating_port_id = port.id
        session.add(fip)
        session.flush()
        return _dict(session, fip)


UNCHANGED = object()


def update_floating_ip(context, fip_id, port_id=UNCHANGED, fixed_ip_address=None,
                       description=None):
    """Associate (``port_id``), disassociate (None) or describe the floating IP."""
    with db_api.transaction() as session:
        fip = _row(session, context, fip_id)
        policy.authorize(context, 'floatingip:update', {'project_id': fip.project_id})
        if port_id is not UNCHANGED or fixed_ip_address:
            _associate(session, context, fip,
                       fip.port_id if port_id is UNCHANGED else port_id,
                       fixed_ip_address)
        if description is not None:
            fip.description = description
        fip.updated_at = models.utcnow()
        session.flush()
        return _dict(session, fip)


def delete_floating_ip(context, fip_id):
    with db_api.transaction() as session:
        fip = _row(session, context, fip_id)
        policy.authorize(context, 'floatingip:delete', {'project_id': fip.project_id})
        port_id = fip.floating_port_id
        session.delete(fip)
        session.flush()
        session.execute(sa.delete(models.Port).where(models.Port.id == port_id))
