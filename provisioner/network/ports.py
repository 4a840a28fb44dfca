"""Ports a user makes before a boot, on behalf of one caller (Neutron's port API).

A port belongs to its project. One made here is unbound until a boot takes it
(``--nic port-id=``); it stays, unbound, when its server goes. Deleting a bound port
is refused: detaching it would need a hot-unplug from the running guest.
"""

import uuid

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import ipam
from provisioner.quota import networks as network_quotas
from provisioner.network import service
from provisioner import policy
from provisioner import schemas
from provisioner import validation

PORT = schemas.request('port', {
    'name': schemas.titled(schemas.NAME, 'port name'),
    'description': schemas.titled(schemas.DESCRIPTION, 'port description'),
    # Six hex octets, the first one's lowest bit clear (unicast).
    'mac_address': {'type': 'string',
                    'pattern': schemas.whole('[0-9a-fA-F][02468aceACE](:[0-9a-fA-F]{2}){5}'),
                    'errorMessage': 'mac_address {value!r} is not a unicast MAC address '
                                    '(six hex octets, e.g. fa:16:3e:00:00:01)'}})

_ONE_FIXED_IP = ('fixed_ips: give one {{"subnet_id", "ip_address"}}: a network has one '
                 'subnet')
FIXED_IPS = {'type': 'array', 'minItems': 1, 'maxItems': 1, 'items': {
    'type': 'object', 'errorMessage': _ONE_FIXED_IP}, 'errorMessage': _ONE_FIXED_IP}


class MacAddressInUse(exception.Conflict):
    neutron_type = 'MacAddressInUse'


def _fixed_ip(net, fixed_ips):
    """The one fixed IP asked for (None: the pool's next), on the network's subnet."""
    if not fixed_ips:
        return None
    validation.check(fixed_ips, FIXED_IPS)
    wanted = fixed_ips[0]
    if wanted.get('subnet_id') not in (None, net.subnet_id):
        raise exception.Invalid(reason='subnet %s is not the subnet of network %s'
                                       % (wanted['subnet_id'], net.id))
    return wanted.get('ip_address')


def _visible(context, port):
    return context.is_admin or port.project_id == context.project_id


def _row(session, context, port_id):
    port = session.get(models.Port, port_id)
    if port is None or not _visible(context, port):
        raise exception.NotFound(kind='Port', name=port_id)
    return port


def list_ports(context):
    policy.authorize(context, 'port:list')
    return ipam.list_ports(None if context.is_admin else context.project_id)


def show_port(context, port_id):
    policy.authorize(context, 'port:show')
    for port in list_ports(context):
        if port['id'] == port_id:
            return port
    raise exception.NotFound(kind='Port', name=port_id)


def create_port(context, network_id, name='', fixed_ips=None, mac_address=None,
                description=''):
    """Make an unbound port with a fixed IP (the one asked for, or the pool's next)."""
    validation.check({'name': name or None, 'description': description,
                      'mac_address': mac_address}, PORT)
    name = name or ''
    mac = mac_address.lower() if mac_address is not None else None
    project_id = context.project_id
    policy.authorize(context, 'port:create', {'project_id': project_id})
    try:
        with db_api.transaction() as session:
            net = service.get_row(session, context, network_id)
            net = ipam.subnet_of(session, net.id)
            ip = ipam.take_ip(session, net, _fixed_ip(net, fixed_ips))
            if mac and session.execute(sa.select(models.Port.id).where(
                    models.Port.network_id == net.id, models.Port.mac == mac)).first():
                raise MacAddressInUse(reason='Unable to complete operation for network '
                                             '%s. The mac address %s is in use.'
                                             % (net.id, mac))
            network_quotas.check(session, project_id, 'port')
            port = models.Port(id=str(uuid.uuid4()), instance_id=None, name=name,
                               description=description,
                               network_id=net.id, project_id=project_id,
                               mac=mac or ipam.mac_for(ip), ip=ip, boot_made=False)
            session.add(port)
            session.flush()
            return ipam.port_view_dict(port)
    except sa_exc.IntegrityError:
        raise ipam.IpAddressAlreadyAllocated(
            reason='The IP or MAC address asked for was taken meanwhile on network '
                   '%s; try again.' % network_id) from None


def update_port(context, port_id, name=None, description=None):
    """Rename a port or change its description (None: unchanged; '' clears)."""
    validation.check({'name': name or None, 'description': description}, PORT)
    with db_api.transaction() as session:
        port = _row(session, context, port_id)
        policy.authorize(context, 'port:update', {'project_id': port.project_id})
        if name is not None:
            port.name = name
        if description is not None:
            port.description = description
        session.flush()
    return show_port(context, port_id)


def delete_port(context, port_id):
    with db_api.transaction() as session:
        port = _row(session, context, port_id)
        policy.authorize(context, 'port:delete', {'project_id': port.project_id})
        if port.instance_id is not None:
            raise ipam.PortInUse(
                reason='Port %s is bound to server %s: delete the server first (the '
                       'port then stays, unbound); detaching a port from a running '
                       'server is not supported.' % (port_id, port.instance_id))
        session.delete(port)
