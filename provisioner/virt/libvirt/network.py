"""libvirt networks: ensure/delete a guest network's bridge (its DHCP is served from a
namespace: provisioner.virt.dhcp_namespace).

Every function is idempotent, so a re-run after a crash adopts what exists.
"""

import logging

import libvirt

from provisioner import exception
from provisioner.virt.libvirt import host as libvirt_host

LOG = logging.getLogger(__name__)


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
