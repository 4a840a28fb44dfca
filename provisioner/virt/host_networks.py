"""A host's side of its guest networks: the libvirt network (a bare bridge, no
address on the host), on the host serving its DHCP a DHCP namespace with dnsmasq
(provisioner.virt.dhcp_namespace) and, on an overlay, the VXLAN device that carries
it to the other hosts. A mixin of the driver (its ``_conn``, ``network_name``,
``bridge_name`` and ``resource_prefix``); every call is idempotent.

The libvirt network stays (bridge-only): guests' interfaces name it, so domain XML,
migration and the inventory keep working as before, and libvirt autostarts the
bridge after a reboot.
"""

from provisioner import conf as provisioner_conf
from provisioner import exception
from provisioner.virt import dhcp_namespace
from provisioner.virt import metadata_proxy
from provisioner.virt import dnsmasq
from provisioner.virt.libvirt import designer
from provisioner.virt.libvirt import network as libvirt_network
from provisioner.virt import vxlan


def _conf():
    return provisioner_conf.CONF  # read at each call: tests swap the options


class HostNetworks:
    @staticmethod
    def _makes_host_bridges():
        """False on libvirt's test driver (test:///...), which makes no bridge."""
        return not _conf().libvirt.connection_uri.startswith('test:')

    @staticmethod
    def overlay(net):
        """True when this host's L2 agent carries the network across hosts (a VXLAN
        segment and an underlay address here); else it is an isolated bridge."""
        return bool(_conf().l2.local_ip and net.get('network_type') == 'vxlan'
                    and net.get('segmentation_id'))

    def serves_dhcp(self, net):
        """Whether the network's DHCP namespace is on this host."""
        return not self.overlay(net) or net.get('dhcp_host') in (None, _conf().host)

    def guest_mtu(self, net):
        """The MTU a guest's interface gets: the underlay's less VXLAN's overhead on
        an overlay (the guest's DHCP client may ignore the DHCP option), else None."""
        if not self.overlay(net):
            return None
        return _conf().l2.underlay_mtu - vxlan.OVERHEAD

    def dhcp_namespace(self, net):
        """The name of the network's DHCP namespace on this host."""
        return dhcp_namespace.namespace_name(self.resource_prefix(), net['id'])

    def ensure_network(self, net):
        """Define and start the network's bridge on this host; where its DHCP is
        served, its DHCP namespace (else none: the DHCP moved or never was here).
        On an overlay: its VXLAN device, flooding to ``net['peers']``."""
        bridge = self.bridge_name(net)
        network_config = designer.build_network(self.network_name(net), bridge,
                                                mtu=self.guest_mtu(net))
        libvirt_network.ensure(self._conn(), network_config)
        live = self._makes_host_bridges()
        if self.overlay(net) and live:
            l2 = _conf().l2
            vxlan.ensure(bridge, net['segmentation_id'], l2.local_ip, l2.vxlan_port,
                         self.guest_mtu(net))
            vxlan.set_peers(bridge, net.get('peers') or [])
        if self.serves_dhcp(net) and dnsmasq.served(net):
            netns = dhcp_namespace.ensure(self.resource_prefix(), net, bridge,
                                          self.guest_mtu(net), live=live)
            if live:
                self.ensure_metadata_proxy(net, netns)
        else:
            self._delete_dhcp(net)

    def _delete_dhcp(self, net):
        dhcp_namespace.delete(self.resource_prefix(), net['id'],
                              lambda netns: self.remove_metadata_proxy(net, netns),
                              live=self._makes_host_bridges())

    @staticmethod
    def ensure_metadata_proxy(net, netns):
        """The metadata proxy on 169.254.169.254:80 in the network's DHCP namespace
        ``netns`` (which exists), when [metadata] names the API and its secret."""
        metadata_proxy.ensure(netns, net['id'])

    @staticmethod
    def remove_metadata_proxy(net, netns):
        """Stop the metadata proxy of ``netns`` (which still exists: its listening
        socket would keep the namespace alive)."""
        metadata_proxy.remove(netns, net['id'])

    def delete_network(self, net):
        self._delete_dhcp(net)
        libvirt_network.delete(self._conn(), self.network_name(net))
        if self._makes_host_bridges():
            vxlan.delete(self.bridge_name(net))

    def restore_networks(self):
        """A worker's start: every DHCP namespace this host served, converged again
        as last given (gone after a reboot; its dnsmasq may have been killed)."""
        dhcp_namespace.restore(self.resource_prefix(), self._makes_host_bridges())

    def _change_entries(self, net, change):
        return dhcp_namespace.update_entries(self.resource_prefix(), net['id'],
                                             change, live=self._makes_host_bridges())

    def reserve_dhcp(self, net, mac, ip, hostname=None):
        if not net.get('enable_dhcp', True):
            return  # DHCP off: the guest gets no lease, so no host entry either
        if not self.serves_dhcp(net):
            return  # the DHCP host's server pins it (the engine's l2population)
        mac, name = mac.lower(), designer.dhcp_hostname(hostname)

        def add(entries):
            # IPAM owns the addresses: an entry of the MAC or the IP is stale.
            kept = [e for e in entries if e['mac'].lower() != mac and e['ip'] != ip]
            return kept + [{'mac': mac, 'ip': ip, 'hostname': name}]
        if not self._change_entries(net, add):
            raise exception.HypervisorError(
                reason='network %s does not exist on this host; create it before '
                       'reserving addresses on it' % self.network_name(net))

    def sync_dhcp(self, net, entries):
        """Pin exactly ``entries`` ([{'mac', 'ip', 'hostname'}]) in the network's DHCP
        server here: every host's ports of the network."""
        wanted = [dict(e, hostname=designer.dhcp_hostname(e.get('hostname')))
                  for e in entries]
        self._change_entries(net, lambda _held: wanted)

    def release_dhcp(self, net, mac):
        self._change_entries(net, lambda entries: [
            e for e in entries if e['mac'].lower() != mac.lower()])

    def dhcp_hosts(self, net):
        """[{'mac', 'ip', 'name'}] of the network's DHCP reservations."""
        return dhcp_namespace.held(self.resource_prefix(), net['id'])
