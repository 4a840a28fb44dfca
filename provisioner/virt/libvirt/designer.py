"""The one place with policy: turns a GuestSpec or a network dict into XML objects."""

import re
import string

from lxml import etree

from provisioner import exception
from provisioner import naming
from provisioner.virt.libvirt import config

# Device name prefix per bus, as guests' kernels will name them.
_DEV_PREFIX = {'virtio': 'vd', 'ide': 'hd', 'sata': 'sd', 'scsi': 'sd'}


# The PCI slots (bus 0) of a guest's NICs and virtio disks, chosen here so that the
# address a guest sees each device at is known before its domain exists (Nova's
# device metadata, in the config drive): NIC i at slot 3 + i, virtio disk vdX at
# slot 16 + X's index; a device past those ranges gets libvirt's choice. Slots 0-2
# stay libvirt's (host bridge, ISA bridge, its own devices).
_NIC_SLOTS = range(0x03, 0x10)
_DISK_SLOTS = range(0x10, 0x20)


def nic_pci_slot(index):
    return _NIC_SLOTS[index] if index < len(_NIC_SLOTS) else None


def disk_pci_slot(target_dev):
    """The slot of a virtio disk by its target name (vda -> 16), else None."""
    if not target_dev.startswith(_DEV_PREFIX['virtio']):
        return None
    index = 0
    for letter in target_dev[len(_DEV_PREFIX['virtio']):]:
        index = index * 26 + string.ascii_lowercase.index(letter) + 1
    return _DISK_SLOTS[index - 1] if index - 1 < len(_DISK_SLOTS) else None


def pci_address(slot):
    """The PCI address (Nova's format) of a slot of bus 0, or None."""
    return None if slot is None else '0000:00:%02x.0' % slot


def domain_name(instance_uuid):
    return 'instance-%s' % instance_uuid


def dhcp_hostname(name):
    """A DNS label for dnsmasq from a display name ('Web 1' -> 'web-1'), or None.

    libvirt refuses names like '<x>' and passes spaces on to dnsmasq's hosts file.
    """
    label = re.sub(r'[^a-z0-9-]+', '-', (name or '').lower()).strip('-')[:63]
    return label.strip('-') or None


def dev_name(bus, index):
    # vda..vdz, then vdaa.. like the Linux kernel names them.
    return _DEV_PREFIX[bus] + naming.disk_letters(index)


def _single_line(text):
    # libvirt rejects a <title> with newlines; the exact name stays in <metadata>.
    return ' '.join(text.split())


def _disks(spec, conf, rbd):
    disks = []
    if spec.root_disk:
        disks.append(_virtio_disk(spec.root_disk, 0, rbd=rbd))
    for path, serial in spec.volumes:
        disks.append(_virtio_disk(path, len(disks), serial=serial, rbd=rbd))
    if spec.config_drive:
        bus = conf.libvirt.config_drive_bus
        # A virtio-blk CD-ROM does not exist; other buses get a real CD-ROM.
        device = 'disk' if bus == 'virtio' else 'cdrom'
        index = len(disks) if bus == 'virtio' else 0
        target = dev_name(bus, index)
        disks.append(config.GuestDisk(spec.config_drive, target,
                                      target_bus=bus, driver_format='raw',
                                      device=device, readonly=True,
                                      pci_slot=disk_pci_slot(target)))
    return disks


def _virtio_disk(path, index, **options):
    target = dev_name('virtio', index)
    return config.GuestDisk(path, target, pci_slot=disk_pci_slot(target), **options)


def build_guest(spec, virt_type, conf, rbd=None):
    """Return the config.Guest for ``spec`` on a host of ``virt_type`` (kvm|qemu);
    ``rbd`` (a config.RbdAccess) for disks in Ceph."""
    if not spec.kernel and not spec.root_disk:
        raise exception.Invalid(reason='instance %s has neither a kernel nor a root '
                                       'disk to boot from' % spec.uuid)
    guest = config.Guest(virt_type, spec.uuid, domain_name(spec.uuid),
                         spec.memory_mib, spec.vcpus)
    guest.title = _single_line(spec.display_name or '') or None
    guest.display_name = spec.display_name
    if spec.kernel:
        guest.kernel = spec.kernel
        guest.initrd = spec.ramdisk
        guest.cmdline = spec.cmdline or conf.libvirt.kernel_cmdline
    else:
        guest.boot_dev = 'hd'
    guest.acpi = True  # without ACPI a guest cannot power itself off
    if virt_type == 'qemu' and conf.libvirt.tb_cache_mib:
        guest.tb_cache_mib = conf.libvirt.tb_cache_mib
    guest.devices.extend(_disks(spec, conf, rbd))
    for index, nic in enumerate(spec.nics):  # (mac, network name[, mtu[, filter]])
        guest.devices.append(config.GuestInterface(*nic, pci_slot=nic_pci_slot(index)))
    guest.devices.append(config.GuestSerialFile(spec.console_log))
    return guest


def build_network(name, bridge, mtu=None):
    """The config.Network of a guest network: a bare bridge, isolated (no address,
    no <forward>); its DHCP is served from a namespace joined to the bridge
    (provisioner.virt.dhcp_namespace)."""
    network = config.Network(name, bridge, None, None)
    network.mtu = mtu
    return network


# What a rebuild takes from the new image's domain XML: the name, how it boots.
_BOOT_ELEMENTS = ('title', 'metadata', 'os')


def transplant_boot(current_xml, new_xml):
    """``current_xml`` with the title, metadata and <os> of ``new_xml``."""
    current, new = etree.fromstring(current_xml), etree.fromstring(new_xml)
    for tag in _BOOT_ELEMENTS:
        old, replacement = current.find(tag), new.find(tag)
        if old is not None:
            current.remove(old)
        if replacement is not None:
            current.insert(list(new).index(replacement), replacement)
    return etree.tostring(current, encoding='unicode')
