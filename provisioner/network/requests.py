"""A boot's requested NICs: a network (maybe with a fixed IP) or a port made first.

Checked when the boot is recorded, so a bad request creates nothing; AllocatePorts
takes the addresses later (a fixed IP taken meanwhile fails that step, and the boot
rolls back).
"""

import sqlalchemy as sa

from provisioner.db import models
from provisioner import exception
from provisioner.network import ipam
from provisioner.quota import networks as network_quotas
from provisioner.network import service


class FixedIpAlreadyInUse(exception.Invalid):
    """Nova's 400 for a boot asking for a fixed IP another port holds (the port API
    answers Neutron's 409 IpAddressAlreadyAllocated)."""

    msg_fmt = 'Fixed IP address %(address)s is already in use on network %(network)s.'


def _port(session, context, port_id):
    port = session.get(models.Port, port_id)
    if port is None or not (context.is_admin or port.project_id == context.project_id):
        raise exception.NotFound(kind='Port', name=port_id)
    ipam.check_bindable(port)
    return {'network_id': port.network_id, 'port_id': port.id}


def _network(session, context, ref, fixed_ip=None):
    net = session.get(models.Network, ref) or session.execute(
        sa.select(models.Network).where(models.Network.name == ref)).scalar()
    if net is None or not service.visible(context, net):
        raise exception.NotFound(kind='Network', name=ref)
    service.check_attachable(context, net)
    net = ipam.subnet_of(session, net.id)
    network_quotas.check(session, context.project_id, 'port')  # the boot makes this port
    nic = {'network_id': net.id}
    if fixed_ip is not None:
        try:
            nic['fixed_ip'] = ipam.take_ip(session, net, fixed_ip)
        except ipam.IpAddressAlreadyAllocated:
            raise FixedIpAlreadyInUse(address=fixed_ip, network=net.name) from None
    return nic


def resolve(session, context, requested):
    """{'network_id', 'port_id'?, 'fixed_ip'?} for a network name or id, or for a
    {'network', 'fixed_ip'} / {'port'} request (schemas.BOOT checked its shape)."""
    if isinstance(requested, str):
        return _network(session, context, requested)
    if requested.get('port'):
        return _port(session, context, requested['port'])
    return _network(session, context, requested['network'], requested.get('fixed_ip'))
