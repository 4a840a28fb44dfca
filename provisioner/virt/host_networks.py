"""A host's side of its guest networks: the libvirt network (bridge and, on the host
serving its DHCP, dnsmasq with every port's entry) and, on an overlay, the VXLAN device
that carries it to the other hosts. A mixin of the driver (its ``_conn``,
``network_name`` and ``bridge_name``); every call is idempotent.
"""

import ipaddress

from provisioner import conf as provisioner_conf
from provisioner.network import host_routes
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

    def check_host_routes(self, cidr, own_bridge=None):
        """Refuse a CIDR overlapping a route of this host, where libvirt would put
        its bridge; libvirt is not asked (not even connected to) first."""
        if self._makes_host_bridges():
            host_routes.check_free(ipaddress.IPv4Network(cidr), _conf().host,
                                   own_device=own_bridge)

    @staticmethod
    def overlay(net):
        """True when this host's L2 agent carries the network across hosts (a VXLAN
        segment and an underlay address here); else it is an isolated bridge."""
        return bool(_conf().l2.local_ip and net.get('network_type') == 'vxlan'
                    and net.get('segmentation_id'))

    def serves_dhcp(self, net):
        """Whether the network's DHCP server (and gateway address) is on this host."""
        return not self.overlay(net) or net.get('dhcp_host') in (None, _conf().host)

    def guest_mtu(self, net):
        """The MTU a guest's interface gets: the underlay's less VXLAN's overhead on
        an overlay (the guest's DHCP client may ignore the DHCP option), else None."""
        if not self.overlay(net):
            return None
        return _conf().l2.underlay_mtu - vxlan.OVERHEAD

    def ensure_network(self, net):
        """Define and start the network on this host, once its CIDR clashes with no
        route here; a network this call defined but could not start is undefined.
        On an overlay: its VXLAN device, flooding to ``net['peers']``."""
        name, bridge = self.network_name(net), self.bridge_name(net)
        serve = self.serves_dhcp(net)
        existing = libvirt_network.lookup(self._conn(), name)
        if serve and (existing is None or not existing.isActive()):
            self.check_host_routes(net['cidr'], own_bridge=bridge)  # a bridge address
        network_config = designer.build_network(name, bridge, net, serve=serve,
                                                mtu=self.guest_mtu(net))
        libvirt_network.ensure(self._conn(), network_config)
        if self.overlay(net) and self._makes_host_bridges():
            l2 = _conf().l2
            vxlan.ensure(bridge, net['segmentation_id'], l2.local_ip, l2.vxlan_port,
                         self.guest_mtu(net))
            vxlan.set_peers(bridge, net.get('peers') or [])

    def delete_network(self, net):
        libvirt_network.delete(self._conn(), self.network_name(net))
        if self._makes_host_bridges():
            vxlan.delete(self.bridge_name(net))

    def reserve_dhcp(self, net, mac, ip, hostname=None):
        if not net.get('enable_dhcp', True):
            return  # DHCP off: the guest gets no lease, so no host entry either
        if not self.serves_dhcp(net):
            return  # the DHCP host's server pins it (the engine's l2population)
        libvirt_network.add_dhcp_host(self._conn(), self.network_name(net),
                                      mac, ip, designer.dhcp_hostname(hostname))

    def sync_dhcp(self, net, entries):
        """Pin exactly ``entries`` ([{'mac', 'ip', 'hostname'}]) in the network's DHCP
        server here: every host's ports of the network."""
        wanted = {e['mac'].lower() for e in entries}
        for held in self.dhcp_hosts(net):
            if (held['mac'] or '').lower() not in wanted:
                self.release_dhcp(net, held['mac'])
        for entry in entries:
            self.reserve_dhcp(net, entry['mac'], entry['ip'], entry.get('hostname'))

    def release_dhcp(self, net, mac):
        libvirt_network.remove_dhcp_host(self._conn(), self.network_name(net), mac)

    def dhcp_hosts(self, net):
        """[{'mac', 'ip', 'name'}] of the network's DHCP reservations."""
        return [{'mac': h.mac, 'ip': h.ip, 'name': h.name}
                for h in libvirt_network.dhcp_hosts(self._conn(),
                                                    self.network_name(net))]
