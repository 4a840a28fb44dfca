"""Nova's device metadata: the ``devices`` of a guest's meta_data.json (config drive
and metadata service), each tagged device with the bus and address the guest sees
it at.

The addresses are the PCI slots the designer gives NICs and virtio disks
(designer.nic_pci_slot, disk_pci_slot), so they are known before the domain exists.
As Nova's: a NIC is listed only when tagged (``vf_trusted`` always false here), a
disk only when its block device mapping (or attachment) is; a disk's ``serial`` is
its volume's id, null for a local root disk.
"""

from provisioner.virt.libvirt import designer


def _located(entry, slot):
    address = designer.pci_address(slot)
    entry['bus'], entry['address'] = ('pci', address) if address else ('none', 'none')
    return entry


def nic(index, mac, tag):
    """The entry of the guest's ``index``-th NIC."""
    return _located({'type': 'nic', 'mac': mac, 'vf_trusted': False, 'tags': [tag]},
                    designer.nic_pci_slot(index))


def disk(target_dev, serial, tag):
    """The entry of the disk at ``target_dev`` ('vdb' or '/dev/vdb')."""
    return _located({'type': 'disk', 'serial': serial, 'tags': [tag]},
                    designer.disk_pci_slot(target_dev.rsplit('/', 1)[-1]))


def boot_devices(macs, nic_tags, disks):
    """The tagged devices a guest boots with: ``macs`` of its NICs in order with
    ``nic_tags`` (a tag or None each, as asked); ``disks``: (target dev, serial,
    tag or None) of its virtio disks."""
    devices = [nic(index, mac, tag) for index, (mac, tag)
               in enumerate(zip(macs, list(nic_tags) + [None] * len(macs))) if tag]
    devices += [disk(target, serial, tag) for target, serial, tag in disks if tag]
    return devices
