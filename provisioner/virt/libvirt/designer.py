"""The one place with policy: turns a GuestSpec or a network dict into XML objects."""

import re
import string

from lxml import etree

from provisioner import exception
from provisioner.virt.libvirt import config

# Device name prefix per bus, as guests' kernels will name them.
_DEV_PREFIX = {'virtio': 'vd', 'ide': 'hd', 'sata': 'sd', 'scsi': 'sd'}


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
    letters = string.ascii_lowercase
    suffix = ''
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        suffix = letters[rem] + suffix
    return _DEV_PREFIX[bus] + suffix


def _single_line(text):
    # libvirt rejects a <title> with newlines; the exact name stays in <metadata>.
    return ' '.join(text.split())


def _disks(spec, conf, rbd):
    disks = []
    if spec.root_disk:
        disks.append(config.GuestDisk(spec.root_disk, dev_name('virtio', 0), rbd=rbd))
    for path, serial in spec.volumes:
        disks.append(config.GuestDisk(path, dev_name('virtio', len(disks)),
                                      serial=serial, rbd=rbd))
    if spec.config_drive:
        bus = conf.libvirt.config_drive_bus
        # A virtio-blk CD-ROM does not exist; other buses get a real CD-ROM.
        device = 'disk' if bus == 'virtio' else 'cdrom'
        index = len(disks) if bus == 'virtio' else 0
        disks.append(config.GuestDisk(spec.config_drive, dev_name(bus, index),
                                      target_bus=bus, driver_format='raw',
                                      device=device, readonly=True))
    return disks


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
    for nic in spec.nics:  # (mac, network name[, mtu])
        guest.devices.append(config.GuestInterface(*nic))
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
