"""Ports a user makes before a boot, on behalf of one caller (Neutron's port API).

A port belongs to its project. One made here is unbound until a boot takes it
(``--nic port-id=``); it stays, unbound, when its server goes. Deleting a bound port
is refused: detaching it would need a hot-unplug from the running guest.
"""

import functools
import uuid

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import ipam
from provisioner.network import ownership
from provisioner.network import port_security
from provisioner.network import security_groups
from provisioner.quota import networks as network_quotas
from provisioner.network import service
from provisioner import policy
from provisioner import schemas
from provisioner import validation

PORT = schemas.request('port', {
    'name': schemas.titled(service.NAME, 'port name'),
    'description': schemas.titled(schemas.DESCRIPTION, 'port description'),
    # Six hex octets, the first one's lowest bit clear (unicast).
    'mac_address': {'type': 'string',
                    'pattern': schemas.whole('[0-9a-fA-F][02468aceACE](:[0-9a-fA-F]{2}){5}'),
                    'errorMessage': 'mac_address {value!r} is not a unicast MAC address '
                                    '(six hex octets, e.g. fa:16:3e:00:00:01)'}})

_ONE_FIXED_IP = ('fixed_ips: give one {{"subnet_id", "ip_address"}}: a port has one '
                 'fixed IP here')
FIXED_IPS = {'type': 'array', 'minItems': 1, 'maxItems': 1, 'items': {
    'type': 'object', 'errorMessage': _ONE_FIXED_IP}, 'errorMessage': _ONE_FIXED_IP}


MacAddressInUse = ipam.MacAddressInUse


def _take_ip(session, net, fixed_ips):
    """The one fixed IP asked for (``ip_address`` and/or ``subnet_id``), or the next
    free one of the first subnet with room."""
    if not fixed_ips:
        return ipam.take_ip(session, net)
    validation.check(fixed_ips, FIXED_IPS)
    wanted = fixed_ips[0]
    return ipam.take_ip(session, net, wanted.get('ip_address'), wanted.get('subnet_id'))


def _row(session, context, port_id):
    return ownership.get(session, context, models.Port, port_id,
                         functools.partial(exception.NotFound, kind='Port'))


def list_ports(context):
    policy.authorize(context, 'port:list')
    return ipam.list_ports(None if context.is_admin else context.project_id)


def show_port(context, port_id):
    policy.authorize(context, 'port:show')
    for port in list_ports(context):
        if port['id'] == port_id:
            return port
    raise exception.NotFound(kind='Port', name=port_id)


def _addresses(session, net, fixed_ips, mac):
    """(ip, mac) of a new port: a network without a subnet gives none (as Neutron)."""
    if not net.subnets:
        if fixed_ips:
            raise exception.Invalid(reason='network %s has no subnet to take fixed_ips '
                                           'from' % net.id)
        return None, mac or ipam.random_mac(session, net)
    ip = _take_ip(session, net, fixed_ips)
    if mac and session.execute(sa.select(models.Port.id).where(
            models.Port.network_id == net.id, models.Port.mac == mac)).first():
        raise MacAddressInUse(reason='Unable to complete operation for network %s. The '
                                     'mac address %s is in use.' % (net.id, mac))
    return ip, mac or ipam.port_mac(session, net, ip)


def _secured(spec):
    return spec.get('port_security_enabled') is not False


def _add_port(session, context, spec, default_group):
    """One port of ``spec`` ({network_id, name?, fixed_ips?, mac_address?,
    description?, admin_state_up?, security_groups?, port_security_enabled?,
    allowed_address_pairs?}) in the caller's transaction."""
    validation.check({'name': spec.get('name') or None,
                      'description': spec.get('description', ''),
                      'mac_address': spec.get('mac_address')}, PORT)
    mac = spec['mac_address'].lower() if spec.get('mac_address') else None
    net = service.get_row(session, context, spec['network_id'])
    service.check_attachable(context, net)
    ip, mac = _addresses(session, net, spec.get('fixed_ips'), mac)
    network_quotas.check(session, context.project_id, 'port')
    secured = _secured(spec)
    pairs = port_security.pairs(spec.get('allowed_address_pairs'), mac)
    port_security.check(secured, spec.get('security_groups'), pairs)
    groups = security_groups.for_port(session, context, spec.get('security_groups'),
                                      default_group) if secured else []
    port = models.Port(id=str(uuid.uuid4()), instance_id=None,
                       name=spec.get('name') or '',
                       description=spec.get('description', ''), network_id=net.id,
                       project_id=context.project_id, mac=mac, ip=ip, boot_made=False,
                       admin_state_up=bool(spec.get('admin_state_up', True)),
                       port_security_enabled=secured, allowed_address_pairs=pairs)
    session.add(port)
    session.flush()
    security_groups.set_port_groups(session, port.id, groups)
    session.flush()
    return port.id


def create_ports(context, specs):
    """Make unbound ports, all of them or (one refused) none; their ids in order.

    A port's fixed IP is the one asked for, or its subnet's next free one; on a
    network without a subnet it has none."""
    policy.authorize(context, 'port:create', {'project_id': context.project_id})
    default_group = (security_groups.ensure_default(context.project_id)
                     if any(s.get('security_groups') is None and _secured(s)
                            for s in specs) else None)
    try:
        with db_api.transaction() as session:
            return [_add_port(session, context, spec, default_group) for spec in specs]
    except sa_exc.IntegrityError:
        raise ipam.IpAddressAlreadyAllocated(
            reason='The IP or MAC address asked for was taken meanwhile; try '
                   'again.') from None


def create_port(context, network_id, name='', fixed_ips=None, mac_address=None,
                description=''):
    """One port (create_ports); its view."""
    port_id, = create_ports(context, [{
        'network_id': network_id, 'name': name, 'fixed_ips': fixed_ips,
        'mac_address': mac_address, 'description': description}])
    return show_port(context, port_id)


def _readdress(session, port, fixed_ips):
    """Give an unbound port the fixed IP ``fixed_ips`` asks for (its MAC stays)."""
    if port.instance_id is not None or port.router_id is not None:
        raise exception.Conflict(reason='Port %s is in use: changing its fixed IP is '
                                        'not supported here.' % port.id)
    net = session.get(models.Network, port.network_id)
    wanted = list(fixed_ips)
    if wanted and not net.subnets:
        raise exception.Invalid(reason='network %s has no subnet to take fixed_ips '
                                       'from' % net.id)
    current = ipam.subnet_of_ip(net, port.ip)
    asked = wanted[0] if len(wanted) == 1 else {}
    if current is not None and asked.get('subnet_id') in (None, current.id) and \
            asked.get('ip_address') in (None, port.ip) and len(wanted) == 1:
        return  # what it has already
    port.ip = None
    session.flush()
    port.ip = _take_ip(session, net, wanted) if wanted else None


def update_port(context, port_id, name=None, description=None, admin_state_up=None,
                groups=None, secured=None, address_pairs=None, fixed_ips=None):
    """Change what is given (None: unchanged; '' clears a name or description).
    ``secured``: port_security_enabled; ``address_pairs``: allowed_address_pairs.

    A bound port stays up: taking a running guest's port down is not supported."""
    validation.check({'name': name or None, 'description': description}, PORT)
    with db_api.transaction() as session:
        port = _row(session, context, port_id)
        policy.authorize(context, 'port:update', {'project_id': port.project_id})
        if name is not None:
            port.name = name
        if description is not None:
            port.description = description
        if admin_state_up is not None:
            if not admin_state_up and port.instance_id is not None:
                raise exception.Conflict(
                    reason='Port %s is bound to server %s: taking it down is not '
                           'supported here.' % (port_id, port.instance_id))
            port.admin_state_up = bool(admin_state_up)
        _update_security(session, context, port, groups, secured, address_pairs)
        if fixed_ips is not None:
            _readdress(session, port, fixed_ips)
        session.flush()
    return show_port(context, port_id)


def _update_security(session, context, port, groups, secured, address_pairs):
    if address_pairs is not None:
        address_pairs = port_security.pairs(address_pairs, port.mac)
    held = session.execute(sa.select(models.PortSecurityGroup.security_group_id).where(
        models.PortSecurityGroup.port_id == port.id)).scalars().all()
    port.port_security_enabled = port_security.check_update(
        port, secured, groups, held, address_pairs)
    if address_pairs is not None:
        port.allowed_address_pairs = address_pairs
    if groups is not None:
        security_groups.set_port_groups(session, port.id, security_groups.for_port(
            session, context, groups, None))


def delete_port(context, port_id):
    with db_api.transaction() as session:
        port = _row(session, context, port_id)
        policy.authorize(context, 'port:delete', {'project_id': port.project_id})
        owner = ('network:router_interface' if port.router_id is not None
                 else port.device_owner)
        if owner:
            raise ipam.PortInUse(
                reason='Port %s has owner %s and therefore cannot be deleted directly '
                       'via the port API.' % (port_id, owner))
        if port.instance_id is not None:
            raise ipam.PortInUse(
                reason='Port %s is bound to server %s: delete the server first (the '
                       'port then stays, unbound); detaching a port from a running '
                       'server is not supported.' % (port_id, port.instance_id))
        ipam.disassociate_floating_ips(session, [port.id])
        session.delete(port)
