"""libvirt networks: ensure/delete an isolated network and its DHCP host entries.

Every function is idempotent, so a re-run after a crash adopts what exists.
"""

import logging

import libvirt
from lxml import etree

from provisioner import exception
from provisioner.virt.libvirt import config
from provisioner.virt.libvirt import host as libvirt_host

LOG = logging.getLogger(__name__)

_DHCP_HOST = libvirt.VIR_NETWORK_SECTION_IP_DHCP_HOST


def lookup(conn, name):
    """The virNetwork called ``name``, or None."""
    return libvirt_host.lookup_or_none(conn.networkLookupByName, name,
                                       libvirt.VIR_ERR_NO_NETWORK, 'network')


def ensure(conn, network_config):
    """Define, start and autostart the network; adopt it if it already exists.

    A network this call defined but could not start (libvirt refuses an address that
    clashes with a host interface only then) is undefined again: nothing stays behind.
    """
    name = network_config.name
    network = lookup(conn, name)
    defined_here = False
    if network is None:
        try:
            network = conn.networkDefineXML(network_config.to_xml())
            defined_here = True
        except libvirt.libvirtError:
            network = lookup(conn, name)  # another worker defined it meanwhile
            if network is None:
                with libvirt_host.translate_errors('defining network %s' % name):
                    raise
    try:
        with libvirt_host.translate_errors('starting network %s' % name):
            libvirt_host.start_and_autostart(network)
    except exception.ProvisionerError:
        if defined_here:
            LOG.warning('Network %s did not start; undefining it again. Its XML:\n%s',
                        name, network_config.to_xml())
            try:
                libvirt_host.stop_and_undefine(network)
            except libvirt.libvirtError as exc:
                LOG.warning('Could not undefine network %s: %s', name, exc)
        raise
    return network


def delete(conn, name):
    """Stop and undefine the network; an absent one is fine."""
    network = lookup(conn, name)
    if network is None:
        return
    try:
        libvirt_host.stop_and_undefine(network)
    except libvirt.libvirtError as exc:
        if libvirt_host.error_code(exc) == libvirt.VIR_ERR_NO_NETWORK:
            return
        with libvirt_host.translate_errors('deleting network %s' % name):
            raise


def _require(conn, name):
    network = lookup(conn, name)
    if network is None:
        raise exception.HypervisorError(
            reason='network %s does not exist; create it before reserving '
                   'addresses on it' % name)
    return network


def dhcp_hosts(conn, name):
    """The DHCP host entries of the network, as config.NetworkDhcpHost objects."""
    network = lookup(conn, name)
    if network is None:
        return []
    with libvirt_host.translate_errors('reading network %s' % name):
        xml = network.XMLDesc(0)
    return [config.NetworkDhcpHost.parse_dom(el)
            for el in etree.fromstring(xml.encode()).iterfind('ip/dhcp/host')]


def _update(network, command, entry, action):
    # CONFIG keeps the entry across restarts; LIVE reaches the running dnsmasq.
    flags = libvirt.VIR_NETWORK_UPDATE_AFFECT_CONFIG
    with libvirt_host.translate_errors('%s on network %s' % (action, network.name())):
        if network.isActive():
            flags |= libvirt.VIR_NETWORK_UPDATE_AFFECT_LIVE
        network.update(command, _DHCP_HOST, -1, entry.to_xml(pretty_print=False),
                       flags)


def add_dhcp_host(conn, name, mac, ip, hostname=None):
    """Make dnsmasq give ``ip`` to ``mac``, replacing what it held for either."""
    network = _require(conn, name)
    mac = mac.lower()
    entries = dhcp_hosts(conn, name)
    if hostname and any(e.name == hostname and (e.mac or '').lower() != mac
                        and e.ip != ip for e in entries):
        # libvirt takes a host name once per network, and server names may repeat
        # (Nova's): this entry goes without one; the guest still has its hostname
        # from the config drive.
        hostname = None
    wanted = config.NetworkDhcpHost(mac, ip, hostname)
    for entry in entries:
        same_mac = (entry.mac or '').lower() == mac
        if same_mac and entry.ip == ip and entry.name == hostname:
            return  # already there
        if same_mac or entry.ip == ip:
            # IPAM owns the addresses: an entry it no longer knows is stale.
            LOG.warning('Replacing stale DHCP entry mac=%s ip=%s on network %s',
                        entry.mac, entry.ip, name)
            _update(network, libvirt.VIR_NETWORK_UPDATE_COMMAND_DELETE, entry,
                    'removing DHCP entry for %s' % entry.mac)
    try:
        _update(network, libvirt.VIR_NETWORK_UPDATE_COMMAND_ADD_LAST, wanted,
                'adding DHCP entry %s -> %s' % (mac, ip))
    except exception.HypervisorError:
        # Another worker may have added the very same entry meanwhile.
        if not any((e.mac or '').lower() == mac and e.ip == ip and e.name == hostname
                   for e in dhcp_hosts(conn, name)):
            raise


def remove_dhcp_host(conn, name, mac):
    """Drop the DHCP entry of ``mac``; an absent entry or network is fine."""
    network = lookup(conn, name)
    if network is None:
        return
    for entry in dhcp_hosts(conn, name):
        if (entry.mac or '').lower() == mac.lower():
            _update(network, libvirt.VIR_NETWORK_UPDATE_COMMAND_DELETE, entry,
                    'removing DHCP entry for %s' % mac)
