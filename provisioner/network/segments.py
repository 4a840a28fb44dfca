"""Network segments (Neutron's ML2 type drivers) and which hosts hold a network.

A network's segment is its type and segmentation id: ``vxlan`` and a VNI taken from
``[network] vni_ranges`` (or named by an admin), unique per type. Across hosts, a
network is one L2 segment on the hosts with a port on it and the host of its DHCP
server (``dhcp_host``, the first host a port of it binds on, kept while the network
has ports): those hosts' L2 agents hold its bridge and VXLAN device and flood to
each other (l2population). A host whose worker reports no underlay address keeps
the network as an isolated bridge of its own, with its own DHCP server, as before.
"""

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import naming
from provisioner.network import ipam

VXLAN = 'vxlan'
TYPES = (VXLAN,)
VNI_MAX = 2 ** 24 - 1


class NoNetworkAvailable(exception.ProvisionerError):
    """Neutron's 503 once every tenant segment is taken."""

    neutron_type = 'NoNetworkAvailable'
    http_status = 503
    msg_fmt = ('Unable to create the network. No tenant network is available for '
               'allocation.')


class SegmentationIdInUse(exception.Conflict):
    neutron_type = 'SegmentationIdInUse'


def vni_ranges():
    """[(min, max)] of [network] vni_ranges; a malformed range is the operator's."""
    ranges = []
    for text in CONF.network.vni_ranges:
        try:
            low, high = (int(part) for part in text.split(':'))
        except ValueError:
            raise exception.Invalid(reason='[network] vni_ranges: %r is not MIN:MAX'
                                           % text) from None
        if not 1 <= low <= high <= VNI_MAX:
            raise exception.Invalid(reason='[network] vni_ranges: %r is not within '
                                           '1:%d' % (text, VNI_MAX))
        ranges.append((low, high))
    return ranges


def check_requested(network_type, segmentation_id):
    """Refuse a segment an admin names that this service cannot make (400)."""
    if network_type not in TYPES:
        raise exception.Invalid(reason='Invalid input for operation: network_type '
                                       'value \'%s\' not supported.' % network_type)
    if segmentation_id is not None and not (
            isinstance(segmentation_id, int) and not isinstance(segmentation_id, bool)
            and 1 <= segmentation_id <= VNI_MAX):
        raise exception.Invalid(reason='Invalid input for operation: %s is not a '
                                       'valid VXLAN VNI, VNI must be in the range '
                                       '1 to %d.' % (segmentation_id, VNI_MAX))


def allocate(session, net, network_type=None, segmentation_id=None):
    """Give ``net`` its segment: the one asked for, else the lowest free VNI."""
    network_type = network_type or CONF.network.tenant_network_type
    check_requested(network_type, segmentation_id)
    used = set(session.execute(
        sa.select(models.Network.segmentation_id).where(
            models.Network.network_type == network_type,
            models.Network.id != net.id)).scalars())
    if segmentation_id is not None:
        if segmentation_id in used:
            raise SegmentationIdInUse(
                reason='Unable to create the network. The VXLAN %s is in use.'
                       % segmentation_id)
    else:
        segmentation_id = next((vni for low, high in vni_ranges()
                                for vni in range(low, high + 1) if vni not in used),
                               None)
        if segmentation_id is None:
            raise NoNetworkAvailable()
    net.network_type, net.segmentation_id = network_type, segmentation_id


def ensure_segment(session, net):
    """A network made before segments gets one now (its first bind)."""
    if net.network_type is None:
        allocate(session, net)
        try:
            session.flush()
        except sa_exc.IntegrityError:  # another bind took that VNI: the caller retries
            raise exception.Conflict(reason='Segment of network %s taken meanwhile; '
                                            'retry' % net.id) from None


def segment_dict(net):
    return {'network_type': net.network_type, 'segmentation_id': net.segmentation_id}


def underlay_ips(session):
    """{host name: underlay address} of the hosts with an L2 agent."""
    return dict(session.execute(sa.select(models.Host.name, models.Host.underlay_ip)
                                .where(models.Host.underlay_ip.is_not(None))).all())


def port_hosts(session, network_id, excluding_instance=None):
    """The hosts with a port of the network bound on them."""
    query = (sa.select(models.Instance.host).distinct()
             .join(models.Port, models.Port.instance_id == models.Instance.id)
             .where(models.Port.network_id == network_id,
                    models.Instance.host.is_not(None)))
    if excluding_instance is not None:
        query = query.where(models.Instance.id != excluding_instance)
    return set(session.execute(query).scalars())


def choose_dhcp_host(session, net, host, tunnels):
    """The network's DHCP host: kept, or ``host`` (an L2 agent's) if it has none."""
    if net.dhcp_host is None and host in tunnels:
        session.execute(sa.update(models.Network).where(
            models.Network.id == net.id, models.Network.dhcp_host.is_(None))
            .values(dhcp_host=host))
        session.refresh(net)
    return net.dhcp_host


def members(session, net, excluding_instance=None):
    """({host: underlay ip} holding the network across hosts, its DHCP host).

    No port left (but ``excluding_instance``'s): no member, and the network gives up
    its DHCP host (the next port's host takes it)."""
    tunnels = underlay_ips(session)
    hosts = port_hosts(session, net.id, excluding_instance)
    if not hosts:
        session.execute(sa.update(models.Network).where(models.Network.id == net.id)
                        .values(dhcp_host=None))
        return {}, None
    if net.dhcp_host is not None:
        hosts.add(net.dhcp_host)
    return {h: tunnels[h] for h in hosts if h in tunnels}, net.dhcp_host


def bind_view(session, net, host):
    """What ``host`` needs to plug the network: its segment, DHCP host and peers."""
    ensure_segment(session, net)
    tunnels = underlay_ips(session)
    dhcp_host = choose_dhcp_host(session, net, host, tunnels)
    found, _ = members(session, net)
    found.pop(host, None)
    return dict(segment_dict(net), dhcp_host=dhcp_host,
                peers=sorted(set(found.values()) - {tunnels.get(host)}))


def dhcp_entries(session, network_id, excluding_instance=None):
    """[{'mac', 'ip', 'hostname'}] the network's DHCP server pins (bound ports)."""
    query = (sa.select(models.Port.mac, models.Port.ip, models.Instance.name)
             .join(models.Instance, models.Port.instance_id == models.Instance.id)
             .where(models.Port.network_id == network_id, models.Port.ip.is_not(None))
             .order_by(models.Port.ip))
    if excluding_instance is not None:
        query = query.where(models.Instance.id != excluding_instance)
    return [{'mac': mac, 'ip': ip, 'hostname': name}
            for mac, ip, name in session.execute(query)]


def bind_ports(ports, host):
    """The ports (IPAM's dicts) with what ``host`` needs to plug their networks."""
    bound = []
    with db_api.transaction() as session:
        for port in ports:
            net = session.get(models.Network, port['network']['id'])
            if net is None:
                raise exception.NotFound(kind='Network', name=port['network']['id'])
            view = bind_view(session, net, host)
            bound.append(dict(port, network=dict(port['network'], **view)))
    return bound


def sync_plan(network_id, excluding_instance=None, leaving=()):
    """What each L2 agent host of the network must hold, or None (no network):
    {'network', 'members': {host: ip}, 'dhcp_host', 'entries', 'remove': [host]}.
    ``leaving``: hosts a port just left; those no longer members remove it."""
    with db_api.transaction() as session:
        net = session.get(models.Network, network_id)
        if net is None:
            return None
        before = net.dhcp_host
        found, dhcp_host = members(session, net, excluding_instance)
        tunnels = underlay_ips(session)
        gone = (set(leaving) | {before} if before else set(leaving)) - set(found)
        return {'network': dict(ipam.network_dict(net), dhcp_host=dhcp_host),
                'members': found, 'dhcp_host': dhcp_host,
                'entries': [dict(e, hostname=naming.hostname(e['hostname']))
                            for e in dhcp_entries(session, net.id, excluding_instance)],
                'remove': sorted(h for h in gone if h in tunnels)}
