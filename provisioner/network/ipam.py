"""IPAM: fixed IPs and MACs of ports, a boot's own or bound from the ones users made."""

import ipaddress
import uuid

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import naming
from provisioner.network import addressing
from provisioner.network import security_groups

_MAX_RACES = 20


def subnet_dict(subnet):
    """A subnet's addressing, as hosts and config drives need it (JSON-ready)."""
    found = {'id': subnet.id, 'cidr': subnet.cidr, 'gateway': subnet.gateway,
             'dhcp_start': subnet.dhcp_start, 'dhcp_end': subnet.dhcp_end,
             'enable_dhcp': subnet.enable_dhcp,
             'dns_nameservers': list(subnet.dns_nameservers or []),
             'host_routes': list(subnet.host_routes or [])}
    found['address'] = addressing.host_address(found)
    return found


def network_dict(net):
    """What a host needs to make the network and its DHCP (JSON-ready: a step payload):
    the network, the addressing of its first subnet at the top (None without one)
    and every subnet in ``subnets``."""
    subnets = [subnet_dict(s) for s in net.subnets]
    first = dict(subnets[0]) if subnets else {
        'cidr': None, 'gateway': None, 'dhcp_start': None, 'dhcp_end': None,
        'enable_dhcp': True, 'dns_nameservers': [], 'host_routes': []}
    first.pop('id', None)
    return dict(first, id=net.id, name=net.name, subnets=subnets,
                # The segment: a host's L2 agent makes its VXLAN device from it.
                network_type=net.network_type, segmentation_id=net.segmentation_id)


def subnet_of_ip(net, ip):
    """The subnet row of ``net`` whose range holds ``ip`` (None: none)."""
    if ip is None:
        return None
    address = ipaddress.ip_address(ip)
    return next((s for s in net.subnets if address in ipaddress.ip_network(s.cidr)),
                None)


def port_network(net, ip):
    """network_dict with the addressing at the top of the subnet ``ip`` is from (a
    port's: its config drive describes that subnet)."""
    found = network_dict(net)
    subnet = subnet_of_ip(net, ip)
    if subnet is not None:
        own = subnet_dict(subnet)
        own.pop('id')
        found.update(own)
    return found


def _port_dict(port, net):
    return {'id': port.id, 'network': port_network(net, port.ip), 'mac': port.mac,
            'ip': port.ip}


class PortInUse(exception.Conflict):
    neutron_type = 'PortInUse'


class IpAddressAlreadyAllocated(exception.Conflict):
    neutron_type = 'IpAddressAlreadyAllocated'


class MacAddressInUse(exception.Conflict):
    neutron_type = 'MacAddressInUse'


def mac_for(ip):
    """The port MAC for a fixed IP: fa:16:3e (OpenStack's prefix) + its last 3 octets.

    dnsmasq keeps a released address leased to its old MAC for the lease time and
    will not hand it to another MAC, even one pinned to it by a host entry: the new
    guest would get some other address. With the MAC derived from the IP, a reused IP
    comes with the same MAC, and dnsmasq simply renews the lease. Unique per network
    (any network is /8 or smaller).
    """
    return 'fa:16:3e:%02x:%02x:%02x' % tuple(ipaddress.IPv4Address(ip).packed[1:])


def _mac_taken(session, net, mac):
    return session.execute(sa.select(models.Port.id).where(
        models.Port.network_id == net.id, models.Port.mac == mac)).first() is not None


def random_mac(session, net):
    """A free MAC of the network, random with OpenStack's prefix."""
    for _attempt in range(20):
        mac = 'fa:16:3e:%s' % ':'.join('%02x' % b for b in uuid.uuid4().bytes[:3])
        if not _mac_taken(session, net, mac):
            return mac
    raise MacAddressInUse(reason='No free MAC address found on network %s.' % net.id)


def port_mac(session, net, ip):
    """mac_for(ip), unless a port of the network has it already (two of its subnets'
    addresses may end alike): then a random free one."""
    mac = mac_for(ip)
    return random_mac(session, net) if _mac_taken(session, net, mac) else mac


def _free_ip(session, net, subnets=None):
    """The first free address of the first subnet (of ``subnets``, default all the
    network's) with room in its pool."""
    used = set(session.execute(sa.select(models.Port.ip)
                               .where(models.Port.network_id == net.id)).scalars())
    for subnet in subnets or net.subnets:
        first = int(ipaddress.ip_address(subnet.dhcp_start))
        last = int(ipaddress.ip_address(subnet.dhcp_end))
        for value in range(first, last + 1):
            candidate = str(ipaddress.ip_address(value))
            if candidate not in used:
                return candidate
    raise exception.Conflict(
        reason='No free IP address left on network %s (%s).' % (net.name, ', '.join(
            '%s-%s' % (s.dhcp_start, s.dhcp_end) for s in subnets or net.subnets)))


def subnet_of(session, network_id):
    """The network row, which must have a subnet: a port needs addresses."""
    net = session.get(models.Network, network_id)
    if net is None:
        raise exception.NotFound(kind='Network', name=network_id)
    if not net.subnets:
        raise exception.Invalid(reason='network %s has no subnet: create one first '
                                       '(openstack subnet create --network %s ...)'
                                       % (net.name, net.name))
    return net


def network_subnet(net, subnet_id):
    """The subnet ``subnet_id`` of ``net``; Neutron's 400 for another network's."""
    for subnet in net.subnets:
        if subnet.id == subnet_id:
            return subnet
    raise exception.Invalid(reason='Failed to create port on network %s, because '
                                   'fixed_ips included invalid subnet %s.'
                                   % (net.id, subnet_id))


def take_ip(session, net, fixed_ip=None, subnet_id=None):
    """``fixed_ip`` if it is free (and fits its subnet, ``subnet_id`` when given),
    else the first free one of the subnet ``subnet_id`` or of the first subnet with
    room."""
    wanted = [network_subnet(net, subnet_id)] if subnet_id else None
    if fixed_ip is None:
        return _free_ip(session, net, wanted)
    if wanted:
        subnet = wanted[0]
    else:
        subnet = subnet_of_ip(net, fixed_ip) if _is_ipv4(fixed_ip) else None
        subnet = subnet or net.subnets[0]  # not in any: its refusal names the first
    ip = addressing.check_fixed_ip(subnet_dict(subnet), fixed_ip)
    if session.execute(sa.select(models.Port.id).where(
            models.Port.network_id == net.id, models.Port.ip == ip)).first():
        raise IpAddressAlreadyAllocated(
            reason='IP address %s already allocated in subnet %s.' % (ip, subnet.id))
    return ip


def _is_ipv4(value):
    try:
        ipaddress.IPv4Address(value)
    except (ValueError, TypeError):
        return False
    return True


def check_bindable(port, instance_id=None):
    """A port a boot may take: free (or the boot's own), with a fixed IP (a guest's
    NIC is served by its subnet's DHCP) and administratively up."""
    if port.instance_id not in (None, instance_id):
        raise PortInUse(reason='Port %s is still in use (bound to server %s).'
                               % (port.id, port.instance_id))
    if port.router_id is not None:
        raise PortInUse(reason='Port %s is an interface of router %s.'
                               % (port.id, port.router_id))
    if port.device_owner:
        raise PortInUse(reason='Port %s has owner %s.' % (port.id, port.device_owner))
    if port.ip is None:
        raise exception.Invalid(reason='port %s has no fixed IP (its network had no '
                                       'subnet when it was made): a server needs one'
                                       % port.id)
    if not port.admin_state_up:
        raise exception.Invalid(reason='port %s is administratively down '
                                       '(admin_state_up false)' % port.id)


def _bind(session, instance_id, port_id):
    """Bind a port a user made to the instance; a re-run finds it bound already."""
    port = session.get(models.Port, port_id)
    if port is None:
        raise exception.NotFound(kind='Port', name=port_id)
    check_bindable(port, instance_id)
    port.instance_id = instance_id
    return _port_dict(port, session.get(models.Network, port.network_id))


def _allocate_one(instance_id, project_id, nic, default_group=None):
    """A port for one requested NIC: the user's port bound, or one the boot makes
    (carrying ``default_group``, its project's default security group)."""
    for _attempt in range(_MAX_RACES):
        try:
            with db_api.transaction() as session:
                if nic.get('port_id'):
                    return _bind(session, instance_id, nic['port_id'])
                net = subnet_of(session, nic['network_id'])
                existing = session.execute(
                    sa.select(models.Port).where(models.Port.instance_id == instance_id,
                                                 models.Port.network_id == net.id)
                ).scalar()
                if existing is not None:  # a re-run adopts what the first run made
                    return _port_dict(existing, net)
                ip = take_ip(session, net, nic.get('fixed_ip'))
                port = models.Port(id=naming.port_id(instance_id, net.id),
                                   instance_id=instance_id, network_id=net.id,
                                   project_id=project_id,
                                   mac=port_mac(session, net, ip), ip=ip,
                                   boot_made=True)
                session.add(port)
                session.flush()
                groups = nic.get('security_groups') or (
                    [default_group] if default_group else [])
                security_groups.set_port_groups(session, port.id, groups)
                return _port_dict(port, net)
        except sa_exc.IntegrityError:
            continue  # another boot took that IP first: pick again
    raise exception.Conflict(reason='Could not allocate a port on network %s after '
                                    '%d attempts.' % (nic.get('network_id'), _MAX_RACES))


def allocate_ports(instance_id, nics, project_id=None):
    """One port per NIC: {'network_id', 'fixed_ip'?, 'security_groups'?} or
    {'port_id'} (a network id alone may be given as a string); a new port carries
    the groups named, else the project's default group."""
    nics = [nic if isinstance(nic, dict) else {'network_id': nic} for nic in nics]
    default_group = None
    if project_id and any(not (nic.get('port_id') or nic.get('security_groups'))
                          for nic in nics):
        default_group = security_groups.ensure_default(project_id)
    return [_allocate_one(instance_id, project_id, nic, default_group) for nic in nics]


def ports_for(instance_id):
    with db_api.transaction() as session:
        rows = session.execute(
            sa.select(models.Port, models.Network)
            .join(models.Network, models.Port.network_id == models.Network.id)
            .where(models.Port.instance_id == instance_id)
            .order_by(models.Port.created_at)).all()
        return [_port_dict(port, net) for port, net in rows]


def disassociate_floating_ips(session, port_ids):
    """Ports going: their floating IPs stay, associated with nothing (Neutron's)."""
    fip = models.FloatingIP
    session.execute(sa.update(fip).where(fip.port_id.in_(port_ids)).values(
        port_id=None, fixed_ip_address=None, router_id=None))


def release_ports(instance_id):
    """Delete the ports the instance's boot made; unbind those a user made first."""
    with db_api.transaction() as session:
        disassociate_floating_ips(session, sa.select(models.Port.id).where(
            models.Port.instance_id == instance_id, models.Port.boot_made.is_(True)))
        session.execute(sa.delete(models.Port).where(
            models.Port.instance_id == instance_id, models.Port.boot_made.is_(True)))
        session.execute(sa.update(models.Port)
                        .where(models.Port.instance_id == instance_id)
                        .values(instance_id=None))


def port_view_dict(port, host=None, security_groups=()):
    return {'id': port.id, 'name': port.name, 'description': port.description or '',
            'instance_id': port.instance_id, 'admin_state_up': port.admin_state_up,
            'router_id': port.router_id,
            'security_groups': list(security_groups),
            'network_id': port.network_id, 'mac': port.mac, 'ip': port.ip,
            'created_at': port.created_at, 'project_id': port.project_id,
            'host': host, 'boot_made': port.boot_made,
            'device_owner': port.device_owner, 'device_id': port.device_id,
            'port_security_enabled': port.port_security_enabled,
            'allowed_address_pairs': list(port.allowed_address_pairs or [])}


def list_ports(project_id=None):
    """Every port (or one project's), with the host of the instance it is bound to."""
    port, inst = models.Port, models.Instance
    query = (sa.select(port, inst.host)
             .outerjoin(inst, inst.id == port.instance_id).order_by(port.created_at))
    if project_id is not None:
        query = query.where(port.project_id == project_id)
    with db_api.transaction() as session:
        groups = {}
        for port_id, group_id in session.execute(
                sa.select(models.PortSecurityGroup.port_id,
                          models.PortSecurityGroup.security_group_id)):
            groups.setdefault(port_id, []).append(group_id)
        return [port_view_dict(p, host, sorted(groups.get(p.id, ())))
                for p, host in session.execute(query)]
