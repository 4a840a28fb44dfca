"""Designer decisions: disk order, boot mode, features, names."""

from lxml import etree
import pytest

from provisioner import exception
from provisioner.virt import spec as virt_spec
from provisioner.virt.libvirt import designer

UUID = '1b4e28ba-2fa1-11d2-883f-0016d3cca427'


def _spec(**kwargs):
    values = dict(uuid=UUID, display_name='web 1', vcpus=2, memory_mib=128,
                  console_log='/s/console.log', root_disk='/s/root.qcow2',
                  volumes=[('/s/v1', 'vol1'), ('/s/v2', 'vol2')],
                  config_drive='/s/disk.config',
                  nics=[('52:54:00:00:00:01', 'p-net-1')])
    values.update(kwargs)
    return virt_spec.GuestSpec(**values)


def _disks(guest):
    return [(d.target_dev, d.target_bus, d.source_path, d.readonly, d.driver_format)
            for d in guest.devices if hasattr(d, 'target_dev')]


def test_disk_order_root_volumes_then_config_drive(conf):
    guest = designer.build_guest(_spec(), 'qemu', conf)
    assert _disks(guest) == [
        ('vda', 'virtio', '/s/root.qcow2', False, 'qcow2'),
        ('vdb', 'virtio', '/s/v1', False, 'qcow2'),
        ('vdc', 'virtio', '/s/v2', False, 'qcow2'),
        ('vdd', 'virtio', '/s/disk.config', True, 'raw'),
    ]
    assert [d.serial for d in guest.devices[1:3]] == ['vol1', 'vol2']


def test_volumes_start_at_vda_without_root_disk(conf):
    guest = designer.build_guest(_spec(root_disk=None, kernel='/k'), 'qemu', conf)
    assert [d[0] for d in _disks(guest)] == ['vda', 'vdb', 'vdc']


def test_config_drive_bus_ide_is_a_cdrom(conf):
    conf.set_override('config_drive_bus', 'ide', 'libvirt')
    drive = designer.build_guest(_spec(), 'qemu', conf).devices[3]
    assert (drive.device, drive.target_bus, drive.target_dev) == ('cdrom', 'ide', 'hda')


def test_boot_from_root_disk(conf):
    guest = designer.build_guest(_spec(), 'kvm', conf)
    assert guest.virt_type == 'kvm'
    assert guest.boot_dev == 'hd' and guest.kernel is None


def test_direct_kernel_boot_defaults_cmdline_from_conf(conf):
    conf.set_override('kernel_cmdline', 'console=ttyS0 quiet', 'libvirt')
    guest = designer.build_guest(_spec(kernel='/k', ramdisk='/i'), 'qemu', conf)
    assert (guest.kernel, guest.initrd, guest.cmdline) == ('/k', '/i',
                                                           'console=ttyS0 quiet')
    assert guest.boot_dev is None


def test_image_cmdline_wins(conf):
    guest = designer.build_guest(_spec(kernel='/k', cmdline='root=/dev/vda'), 'qemu', conf)
    assert guest.cmdline == 'root=/dev/vda'


def test_tb_cache_only_for_qemu_and_when_set(conf):
    assert designer.build_guest(_spec(), 'qemu', conf).tb_cache_mib is None
    conf.set_override('tb_cache_mib', 16, 'libvirt')
    assert designer.build_guest(_spec(), 'qemu', conf).tb_cache_mib == 16
    assert designer.build_guest(_spec(), 'kvm', conf).tb_cache_mib is None


def test_names_acpi_console_and_nics(conf):
    guest = designer.build_guest(_spec(display_name='a\nb'), 'qemu', conf)
    assert guest.name == 'instance-' + UUID
    assert guest.title == 'a b' and guest.display_name == 'a\nb'
    assert guest.acpi
    xml = guest.to_xml()
    assert "<source network=\"p-net-1\"/>" in xml
    assert '<source path="/s/console.log" append="on"/>' in xml


def test_nothing_to_boot_is_invalid(conf):
    with pytest.raises(exception.Invalid):
        designer.build_guest(_spec(root_disk=None), 'qemu', conf)


def test_many_disks_get_kernel_style_names():
    assert designer.dev_name('virtio', 25) == 'vdz'
    assert designer.dev_name('virtio', 26) == 'vdaa'


def test_build_network_is_a_bare_isolated_bridge():
    network = designer.build_network('p-net-1', 'p-1', mtu=1450)
    xml = etree.fromstring(network.to_xml())
    assert xml.find('ip') is None and xml.find('forward') is None
    assert (xml.find('bridge').get('name'), xml.find('mtu').get('size')) == (
        'p-1', '1450')


def test_dhcp_hostname_is_a_dns_label():
    assert designer.dhcp_hostname('Web 1') == 'web-1'
    assert designer.dhcp_hostname('<x>&"\'') == 'x'
    assert designer.dhcp_hostname('ünï') == 'n'
    assert designer.dhcp_hostname('--') is None
    assert designer.dhcp_hostname(None) is None
    assert len(designer.dhcp_hostname('a' * 80)) == 63
