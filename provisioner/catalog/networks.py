"""Networks: a CIDR with a gateway and a DHCP range, realised as a libvirt network."""

import ipaddress
import uuid

import sqlalchemy as sa

from provisioner.catalog import common
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import ipam
from provisioner import schemas
from provisioner import validation

KIND = 'Network'


def _check_overlap(cidr):
    for net in common.list_all(models.Network):
        if ipaddress.ip_network(net['cidr']).overlaps(cidr):
            raise exception.Conflict(reason='CIDR %s overlaps network %s (%s).'
                                            % (cidr, net['name'], net['cidr']))


def create(driver, name, cidr, gateway=None, dhcp_start=None, dhcp_end=None):
    """Record the network, then create and start it on this host; undo on failure.

    Without a driver (distributed) it is only recorded: each worker defines it on its
    host when a port first needs it there, after the same check of its host's routes.
    """
    schemas.validate(schemas.NETWORK_CREATE, {
        'name': name, 'cidr': cidr, 'gateway': gateway, 'dhcp_start': dhcp_start,
        'dhcp_end': dhcp_end})
    net = validation.ipv4_network(cidr)
    first, last = net.network_address + 1, net.broadcast_address - 1  # O(1), any size
    gateway = validation.address_in(net, gateway or first, 'gateway')
    start = validation.address_in(net, dhcp_start or first + 1, 'DHCP range start')
    end = validation.address_in(net, dhcp_end or last, 'DHCP range end')
    if start > end:
        raise exception.Invalid(reason='DHCP range start %s is after its end %s'
                                       % (start, end))
    if start <= gateway <= end:
        raise exception.Invalid(reason='the gateway %s lies inside the DHCP range '
                                       '%s-%s' % (gateway, start, end))
    _check_overlap(net)
    if driver is not None:  # this process makes the bridge: its host's routes count
        driver.check_host_routes(str(net))
    row = common.add_unique(models.Network(
        id=str(uuid.uuid4()), name=name, cidr=str(net), gateway=str(gateway),
        dhcp_start=str(start), dhcp_end=str(end)), KIND)
    if driver is None:
        return row
    try:
        driver.ensure_network(row)
    except Exception:
        common.delete(models.Network, row['id'], KIND)
        raise
    return row


def _in_use(session, network):
    count = session.execute(sa.select(sa.func.count()).select_from(models.Port)
                            .where(models.Port.network_id == network.id)).scalar()
    return '%d port(s)' % count if count else ''


def list_all():
    return common.list_all(models.Network)


def show(name_or_id):
    return common.show(models.Network, name_or_id, KIND)


def delete(driver, name_or_id):
    with db_api.transaction() as session:
        row = common.find(session, models.Network, name_or_id, KIND)
        users = _in_use(session, row)
        if users:
            raise exception.Conflict(reason='%s %s is in use by %s.'
                                            % (KIND, row.name, users))
        net = ipam.network_dict(row)
    if driver is not None:
        driver.delete_network(net)
    return common.delete(models.Network, net['id'], KIND)
