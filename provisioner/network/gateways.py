"""A router's external gateway (Neutron's external_gateway_info, with ext-gw-mode):
a port of the router on an external network, an address of its subnet.

As Neutron's l3_db: the network must exist (404) and be external (400); only an
admin sets ``enable_snat`` or chooses ``external_fixed_ips`` (policy
router:gateway:admin_attributes, Neutron's); the gateway port belongs to no project
(device_owner network:router_gateway, device_id the router) and takes the next free
address unless one is given; it cannot be the subnet's gateway address (400). A
gateway that floating IPs go through stays (409
RouterExternalGatewayInUseByFloatingIp). These are records: the NAT itself is the
routers' datapath, not this module's.
"""

import uuid

import sqlalchemy as sa

from provisioner.db import models
from provisioner import exception
from provisioner.network import ipam
from provisioner.network import service
from provisioner import policy

OWNER = 'network:router_gateway'


class GatewayInUseByFloatingIp(exception.Conflict):
    neutron_type = 'RouterExternalGatewayInUseByFloatingIp'
    msg_fmt = ('Gateway cannot be updated for router %(router_id)s, since a gateway '
               'to external network %(net_id)s is required by one or more floating '
               'IPs.')


def _bad(reason):
    return exception.Invalid(reason='Bad router request: %s.' % reason)


def port_of(session, router_id):
    return session.execute(sa.select(models.Port).where(
        models.Port.device_owner == OWNER, models.Port.device_id == router_id)).scalar()


def info(session, router):
    """Neutron's external_gateway_info of the router, or None."""
    if router.gw_network_id is None:
        return None
    port = port_of(session, router.id)
    net = session.get(models.Network, router.gw_network_id)
    return {'network_id': router.gw_network_id, 'enable_snat': router.enable_snat,
            'external_fixed_ips': [{'subnet_id': net.subnet_id, 'ip_address': port.ip}]
            if port is not None and port.ip else []}


def check(session, context, router_project, gateway):
    """The gateway asked for, checked: None (none), or (network row, enable_snat,
    the address asked for or None)."""
    if not gateway:
        return None
    if not isinstance(gateway, dict) or not gateway.get('network_id'):
        raise _bad('external_gateway_info must name a network_id')
    unknown = set(gateway) - {'network_id', 'enable_snat', 'external_fixed_ips'}
    if unknown:
        raise _bad('unknown attribute(s) of external_gateway_info: %s'
                   % ', '.join(sorted(unknown)))
    if {'enable_snat', 'external_fixed_ips'} & set(gateway):
        policy.authorize(context, 'router:gateway:admin_attributes',
                         {'project_id': router_project})
    net = service.get_row(session, context, gateway['network_id'])
    if not net.router_external:
        raise _bad('Network %s is not an external network' % net.id)
    snat = gateway.get('enable_snat', True)
    if not isinstance(snat, bool):
        raise _bad("'%s' is not a valid boolean value for enable_snat" % (snat,))
    return net, snat, _address(net, gateway.get('external_fixed_ips'))


def _address(net, fixed_ips):
    if not fixed_ips:
        return None
    if not isinstance(fixed_ips, list) or len(fixed_ips) != 1 \
            or not isinstance(fixed_ips[0], dict):
        raise _bad('external_fixed_ips: give one {"subnet_id", "ip_address"}')
    wanted = fixed_ips[0]
    if wanted.get('subnet_id') not in (None, net.subnet_id):
        raise _bad('subnet %s is not a subnet of external network %s'
                   % (wanted['subnet_id'], net.id))
    address = wanted.get('ip_address')
    if address is not None and address == net.gateway:
        raise _bad('External IP %s is the same as the gateway IP' % address)
    return address


def in_use(session, router_id):
    return session.execute(sa.select(models.FloatingIP.id).where(
        models.FloatingIP.router_id == router_id)).first() is not None


def apply(session, router, wanted):
    """Give the router the gateway ``wanted`` (check's answer; None: no gateway),
    making or removing its port; a gateway unchanged is left as it is."""
    current = port_of(session, router.id)
    if wanted is not None and current is not None \
            and current.network_id == wanted[0].id:
        router.enable_snat = wanted[1]
        if wanted[2] in (None, current.ip):
            return
    if current is not None:
        if in_use(session, router.id):
            raise GatewayInUseByFloatingIp(router_id=router.id,
                                           net_id=current.network_id)
        session.delete(current)
        session.flush()
    router.gw_network_id, router.enable_snat = None, True
    if wanted is None:
        return
    net, snat, address = wanted
    subnet = ipam.subnet_of(session, net.id)
    ip = ipam.take_ip(session, subnet, address)
    session.add(models.Port(id=str(uuid.uuid4()), network_id=net.id, ip=ip,
                            mac=ipam.mac_for(ip), project_id='', boot_made=False,
                            device_owner=OWNER, device_id=router.id))
    router.gw_network_id, router.enable_snat = net.id, snat
