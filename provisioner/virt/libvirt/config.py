"""Policy-free libvirt XML objects (after nova's virt/libvirt/config.py, much smaller).

Each object holds plain values and renders them with ``format_dom()``; every value goes
through lxml, so a display name like ``<x>&"'`` is escaped and can never add elements.
Which values to choose is the designer's job, not this module's.
"""

import dataclasses

from lxml import etree

from provisioner import exception

DNSMASQ_NS = 'http://libvirt.org/schemas/network/dnsmasq/1.0'
INSTANCE_NS = 'https://provisioner.invalid/xmlns/instance/1.0'
RBD_PREFIX = 'rbd:'  # a disk "path" rbd:<pool>/<image> is an RBD image


def _not_xml(tag, value):
    # NUL, most control characters and lone surrogates cannot appear in XML at all.
    return exception.Invalid(reason='<%s> cannot hold %r: not valid in XML' % (tag, value))


def _sub(parent, tag, text=None, **attrs):
    """Append a child element; skips attributes whose value is None."""
    child = etree.SubElement(parent, tag)
    for name, value in attrs.items():
        if value is not None:
            try:
                child.set(name, str(value))
            except ValueError:
                raise _not_xml(tag, value) from None
    if text is not None:
        try:
            child.text = str(text)
        except ValueError:
            raise _not_xml(tag, text) from None
    return child


class ConfigObject:
    root_name = None

    def format_dom(self):
        return etree.Element(self.root_name)

    def to_xml(self, pretty_print=True):
        return etree.tostring(self.format_dom(), encoding='unicode',
                              pretty_print=pretty_print)


def _pci_address(device, slot):
    """A device's address on PCI bus 0, when the designer chose its slot."""
    if slot is not None:
        _sub(device, 'address', type='pci', domain='0x0000', bus='0x00',
             slot='0x%02x' % slot, function='0x0')


class GuestDisk(ConfigObject):
    root_name = 'disk'

    def __init__(self, source_path, target_dev, target_bus='virtio',
                 driver_format='qcow2', device='disk', readonly=False, serial=None,
                 rbd=None, pci_slot=None):
        self.source_path = source_path
        self.pci_slot = pci_slot  # an explicit slot of PCI bus 0, or libvirt's choice
        self.rbd = rbd  # an RbdAccess when source_path is rbd:<pool>/<image>
        self.target_dev = target_dev
        self.target_bus = target_bus
        self.driver_format = driver_format
        self.device = device
        self.readonly = readonly
        self.serial = serial

    def format_dom(self):
        if self.source_path.startswith(RBD_PREFIX):
            disk = self._format_rbd()
        else:
            disk = etree.Element('disk', type='file', device=self.device)
            _sub(disk, 'driver', name='qemu', type=self.driver_format)
            _sub(disk, 'source', file=self.source_path)
        _sub(disk, 'target', dev=self.target_dev, bus=self.target_bus)
        if self.readonly:
            _sub(disk, 'readonly')
        if self.serial:
            _sub(disk, 'serial', self.serial)
        _pci_address(disk, self.pci_slot)
        return disk


    def _format_rbd(self):
        """A disk QEMU reads over librbd, its key from the libvirt secret (Nova's
        LibvirtConfigGuestDisk with source_protocol rbd)."""
        if self.rbd is None:
            raise exception.Invalid(reason='disk %s is in RBD but no Ceph access '
                                           'was given' % self.source_path)
        disk = etree.Element('disk', type='network', device=self.device)
        _sub(disk, 'driver', name='qemu', type='raw', cache='writeback',
             discard='unmap')
        auth = _sub(disk, 'auth', username=self.rbd.user)
        _sub(auth, 'secret', type='ceph', uuid=self.rbd.secret_uuid)
        source = _sub(disk, 'source', protocol='rbd',
                      name=self.source_path[len(RBD_PREFIX):])
        for host, port in self.rbd.hosts:
            _sub(source, 'host', name=host, port=str(port))
        return disk


@dataclasses.dataclass(frozen=True)
class RbdAccess:
    """How QEMU reaches Ceph: the monitors, the cephx user and the libvirt secret
    holding its key (never the key itself)."""

    hosts: tuple
    user: str
    secret_uuid: str


class CephSecret(ConfigObject):
    """A libvirt secret of usage type ceph; its value is set separately."""

    root_name = 'secret'

    def __init__(self, uuid, usage_name):
        self.uuid, self.usage_name = uuid, usage_name

    def format_dom(self):
        secret = etree.Element('secret', ephemeral='no', private='yes')
        _sub(secret, 'uuid', self.uuid)
        usage = _sub(secret, 'usage', type='ceph')
        _sub(usage, 'name', self.usage_name)
        return secret


class GuestInterface(ConfigObject):
    root_name = 'interface'

    def __init__(self, mac, network, mtu=None, filterref=None, model='virtio',
                 pci_slot=None):
        self.pci_slot = pci_slot
        self.mac = mac
        self.network = network
        self.model = model
        self.mtu = mtu
        self.filterref = filterref  # the port's nwfilter (its security groups)

    def format_dom(self):
        iface = etree.Element('interface', type='network')
        _sub(iface, 'mac', address=self.mac)
        _sub(iface, 'source', network=self.network)
        _sub(iface, 'model', type=self.model)
        if self.mtu:  # virtio tells the guest (host_mtu): an overlay's 1450
            _sub(iface, 'mtu', size=self.mtu)
        _pci_address(iface, self.pci_slot)
        if self.filterref:
            _sub(iface, 'filterref', filter=self.filterref)
        return iface


class GuestSerialFile(ConfigObject):
    """Serial port 0 written to a file: the console log."""

    root_name = 'serial'

    def __init__(self, path):
        self.path = path

    def format_dom(self):
        serial = etree.Element('serial', type='file')
        # append: a restart (stop/start, reboot) must not truncate what the guest
        # printed before; the log is the only view of the guest on these hosts.
        _sub(serial, 'source', path=self.path, append='on')
        _sub(serial, 'target', port=0)
        return serial


class Guest(ConfigObject):
    root_name = 'domain'

    def __init__(self, virt_type, uuid, name, memory_mib, vcpus):
        self.virt_type = virt_type
        self.uuid = uuid
        self.name = name
        self.memory_mib = memory_mib
        self.vcpus = vcpus
        self.title = None
        self.display_name = None      # exact user text, kept in <metadata>
        self.kernel = None
        self.initrd = None
        self.cmdline = None
        self.boot_dev = None
        self.acpi = False
        self.tb_cache_mib = None
        self.devices = []

    def _format_os(self, domain):
        os_el = _sub(domain, 'os')
        _sub(os_el, 'type', 'hvm')
        if self.kernel:
            _sub(os_el, 'kernel', self.kernel)
            if self.initrd:
                _sub(os_el, 'initrd', self.initrd)
            if self.cmdline:
                _sub(os_el, 'cmdline', self.cmdline)
        if self.boot_dev:
            _sub(os_el, 'boot', dev=self.boot_dev)

    def _format_features(self, domain):
        if not (self.acpi or self.tb_cache_mib):
            return
        features = _sub(domain, 'features')
        if self.acpi:
            _sub(features, 'acpi')
        if self.tb_cache_mib:
            tcg = _sub(features, 'tcg')
            _sub(tcg, 'tb-cache', self.tb_cache_mib, unit='MiB')

    def format_dom(self):
        domain = etree.Element('domain', type=self.virt_type)
        _sub(domain, 'name', self.name)
        _sub(domain, 'uuid', self.uuid)
        if self.title:
            _sub(domain, 'title', self.title)
        if self.display_name is not None:
            metadata = _sub(domain, 'metadata')
            instance = etree.SubElement(metadata, '{%s}instance' % INSTANCE_NS,
                                        nsmap={'provisioner': INSTANCE_NS})
            name = etree.SubElement(instance, '{%s}display-name' % INSTANCE_NS)
            try:
                name.text = self.display_name
            except ValueError:
                raise _not_xml('display-name', self.display_name) from None
        _sub(domain, 'memory', self.memory_mib, unit='MiB')
        _sub(domain, 'vcpu', self.vcpus)
        self._format_os(domain)
        self._format_features(domain)
        _sub(domain, 'clock', offset='utc')
        _sub(domain, 'on_poweroff', 'destroy')
        _sub(domain, 'on_reboot', 'restart')
        _sub(domain, 'on_crash', 'destroy')
        devices = _sub(domain, 'devices')
        for device in self.devices:
            devices.append(device.format_dom())
        return domain


class NetworkDhcpHost(ConfigObject):
    root_name = 'host'

    def __init__(self, mac, ip, name=None):
        self.mac = mac
        self.ip = ip
        self.name = name

    def format_dom(self):
        return etree.Element('host', **{k: v for k, v in
                                        (('mac', self.mac), ('name', self.name),
                                         ('ip', self.ip)) if v})

    @classmethod
    def parse_dom(cls, element):
        return cls(element.get('mac'), element.get('ip'), element.get('name'))


class Network(ConfigObject):
    """A bridge with dnsmasq DHCP; isolated (no <forward>) unless forward_mode is set."""

    root_name = 'network'

    def __init__(self, name, bridge, address, netmask):
        self.name = name
        self.bridge = bridge
        self.address = address
        self.netmask = netmask
        self.dhcp_start = None
        self.dhcp_end = None
        self.dhcp_hosts = []
        self.forward_mode = None
        self.dnsmasq_options = []
        self.mtu = None

    def format_dom(self):
        nsmap = {'dnsmasq': DNSMASQ_NS} if self.dnsmasq_options else None
        network = etree.Element('network', nsmap=nsmap)
        _sub(network, 'name', self.name)
        if self.forward_mode:
            _sub(network, 'forward', mode=self.forward_mode)
        _sub(network, 'bridge', name=self.bridge, stp='on', delay=0)
        if self.mtu:
            _sub(network, 'mtu', size=self.mtu)
        if self.address is None:  # a bare bridge: another host serves DHCP
            return network
        ip = _sub(network, 'ip', address=self.address, netmask=self.netmask)
        if self.dhcp_start or self.dhcp_hosts:
            dhcp = _sub(ip, 'dhcp')
            if self.dhcp_start:
                _sub(dhcp, 'range', start=self.dhcp_start, end=self.dhcp_end)
            for host in self.dhcp_hosts:
                dhcp.append(host.format_dom())
        if self.dnsmasq_options:
            options = etree.SubElement(network, '{%s}options' % DNSMASQ_NS)
            for value in self.dnsmasq_options:
                etree.SubElement(options, '{%s}option' % DNSMASQ_NS).set('value', value)
        return network


class StoragePoolDir(ConfigObject):
    root_name = 'pool'

    def __init__(self, name, path):
        self.name = name
        self.path = path

    def format_dom(self):
        pool = etree.Element('pool', type='dir')
        _sub(pool, 'name', self.name)
        target = _sub(pool, 'target')
        _sub(target, 'path', self.path)
        return pool


class StorageVolume(ConfigObject):
    """A qcow2 (by default) volume, optionally an overlay on a backing file."""

    root_name = 'volume'

    def __init__(self, name, capacity_bytes, volume_format='qcow2',
                 backing_path=None, backing_format=None):
        self.name = name
        self.capacity_bytes = capacity_bytes
        self.volume_format = volume_format
        self.backing_path = backing_path
        self.backing_format = backing_format

    def format_dom(self):
        volume = etree.Element('volume')
        _sub(volume, 'name', self.name)
        _sub(volume, 'capacity', self.capacity_bytes, unit='bytes')
        target = _sub(volume, 'target')
        _sub(target, 'format', type=self.volume_format)
        if self.volume_format == 'qcow2':
            # libvirt would otherwise write the old qcow2 v2 (compat 0.10) format.
            _sub(target, 'compat', '1.1')
        if self.backing_path:
            backing = _sub(volume, 'backingStore')
            _sub(backing, 'path', self.backing_path)
            _sub(backing, 'format', type=self.backing_format or 'raw')
        return volume
