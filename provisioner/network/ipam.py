"""IPAM: fixed IPs and MACs for an instance's ports, one port per requested network."""

import ipaddress

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import naming

_MAX_RACES = 20


def network_dict(net):
    return {'id': net.id, 'name': net.name, 'cidr': net.cidr, 'gateway': net.gateway,
            'dhcp_start': net.dhcp_start, 'dhcp_end': net.dhcp_end}


def _port_dict(port, net):
    return {'id': port.id, 'network': network_dict(net), 'mac': port.mac, 'ip': port.ip}


def mac_for(ip):
    """The port MAC for a fixed IP: fa:16:3e (OpenStack's prefix) + its last 3 octets.

    dnsmasq keeps a released address leased to its old MAC for the lease time and
    will not hand it to another MAC, even one pinned to it by a host entry: the new
    guest would get some other address. With the MAC derived from the IP, a reused IP
    comes with the same MAC, and dnsmasq simply renews the lease. Unique per network
    (any network is /8 or smaller).
    """
    return 'fa:16:3e:%02x:%02x:%02x' % tuple(ipaddress.IPv4Address(ip).packed[1:])


def _free_ip(session, net):
    used = set(session.execute(sa.select(models.Port.ip)
                               .where(models.Port.network_id == net.id)).scalars())
    first = int(ipaddress.ip_address(net.dhcp_start))
    last = int(ipaddress.ip_address(net.dhcp_end))
    for value in range(first, last + 1):
        candidate = str(ipaddress.ip_address(value))
        if candidate not in used:
            return candidate
    raise exception.Conflict(
        reason='No free IP address left on network %s (range %s-%s).'
               % (net.name, net.dhcp_start, net.dhcp_end))


def _allocate_one(instance_id, network_id, port_id):
    for _attempt in range(_MAX_RACES):
        try:
            with db_api.transaction() as session:
                net = session.get(models.Network, network_id)
                if net is None:
                    raise exception.NotFound(kind='Network', name=network_id)
                existing = session.execute(
                    sa.select(models.Port).where(models.Port.instance_id == instance_id,
                                                 models.Port.network_id == network_id)
                ).scalar()
                if existing is not None:  # a re-run adopts what the first run made
                    return _port_dict(existing, net)
                ip = _free_ip(session, net)
                port = models.Port(id=port_id, instance_id=instance_id,
                                   network_id=network_id, mac=mac_for(ip), ip=ip)
                session.add(port)
                session.flush()
                return _port_dict(port, net)
        except sa_exc.IntegrityError:
            continue  # another boot took that IP first: pick again
    raise exception.Conflict(reason='Could not allocate a port on network %s after '
                                    '%d attempts.' % (network_id, _MAX_RACES))


def allocate_ports(instance_id, network_ids):
    return [_allocate_one(instance_id, net_id, naming.port_id(instance_id, net_id))
            for net_id in network_ids]


def ports_for(instance_id):
    with db_api.transaction() as session:
        rows = session.execute(
            sa.select(models.Port, models.Network)
            .join(models.Network, models.Port.network_id == models.Network.id)
            .where(models.Port.instance_id == instance_id)
            .order_by(models.Port.created_at)).all()
        return [_port_dict(port, net) for port, net in rows]


def release_ports(instance_id):
    with db_api.transaction() as session:
        session.execute(sa.delete(models.Port)
                        .where(models.Port.instance_id == instance_id))


def list_ports(project_id=None):
    """Every port (of one project's live instances) with its instance's project and host.
    """
    port, inst = models.Port, models.Instance
    query = (sa.select(port, inst.project_id, inst.host)
             .join(inst, inst.id == port.instance_id).order_by(port.created_at))
    if project_id is not None:
        query = query.where(inst.project_id == project_id)
    with db_api.transaction() as session:
        return [{'id': p.id, 'instance_id': p.instance_id, 'network_id': p.network_id,
                 'mac': p.mac, 'ip': p.ip, 'created_at': p.created_at,
                 'project_id': project, 'host': host}
                for p, project, host in session.execute(query)]
