"""The policy-free XML objects: escaping and element placement."""

from lxml import etree

from provisioner.virt.libvirt import config

HOSTILE = '<x>&"\''


def _parse(obj):
    return etree.fromstring(obj.to_xml().encode())


def _guest():
    guest = config.Guest('qemu', '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
                         'instance-1b4e28ba-2fa1-11d2-883f-0016d3cca427', 96, 1)
    guest.title = HOSTILE
    guest.display_name = HOSTILE
    guest.devices.append(config.GuestDisk('/d/' + HOSTILE, 'vda', serial=HOSTILE))
    guest.devices.append(config.GuestSerialFile('/d/console.log'))
    return guest


def test_hostile_display_name_is_text_never_elements():
    dom = _parse(_guest())
    assert dom.findtext('title') == HOSTILE
    assert dom.findtext('metadata/{%s}instance/{%s}display-name'
                        % (config.INSTANCE_NS, config.INSTANCE_NS)) == HOSTILE
    assert dom.find('.//x') is None
    assert dom.find('devices/disk/source').get('file') == '/d/' + HOSTILE
    assert dom.findtext('devices/disk/serial') == HOSTILE
    assert '<x>' not in _guest().to_xml()


def test_tb_cache_sits_in_features_tcg():
    guest = _guest()
    guest.acpi = True
    guest.tb_cache_mib = 16
    cache = _parse(guest).find('features/tcg/tb-cache')
    assert cache.text == '16' and cache.get('unit') == 'MiB'


def test_no_features_element_without_features():
    assert _parse(_guest()).find('features') is None


def test_direct_kernel_boot_os():
    guest = _guest()
    guest.kernel, guest.initrd, guest.cmdline = '/k', '/i', 'console=ttyS0 a=<b>'
    os_el = _parse(guest).find('os')
    assert [el.tag for el in os_el] == ['type', 'kernel', 'initrd', 'cmdline']
    assert os_el.findtext('cmdline') == 'console=ttyS0 a=<b>'


def test_readonly_disk_and_interface():
    disk = etree.fromstring(config.GuestDisk('/cd', 'vdc', driver_format='raw',
                                             readonly=True).to_xml())
    assert disk.find('readonly') is not None
    assert disk.find('driver').get('type') == 'raw'
    iface = etree.fromstring(config.GuestInterface('52:54:00:00:00:01', 'n').to_xml())
    assert iface.get('type') == 'network'
    assert iface.find('source').get('network') == 'n'
    assert iface.find('model').get('type') == 'virtio'


def _network():
    network = config.Network('n' + HOSTILE, 'br0', '10.0.0.1', '255.255.255.0')
    network.dhcp_start, network.dhcp_end = '10.0.0.10', '10.0.0.20'
    network.dhcp_hosts = [config.NetworkDhcpHost('52:54:00:00:00:01', '10.0.0.11', 'h')]
    network.dnsmasq_options = ['no-ping']
    return network


def test_network_is_isolated_by_default():
    dom = _parse(_network())
    assert dom.find('forward') is None
    assert dom.findtext('name') == 'n' + HOSTILE
    host = dom.find('ip/dhcp/host')
    assert (host.get('mac'), host.get('ip'), host.get('name')) == (
        '52:54:00:00:00:01', '10.0.0.11', 'h')
    option = dom.find('{%s}options/{%s}option' % (config.DNSMASQ_NS, config.DNSMASQ_NS))
    assert option.get('value') == 'no-ping'


def test_network_forward_mode_when_configured():
    network = _network()
    network.forward_mode = 'nat'
    assert _parse(network).find('forward').get('mode') == 'nat'


def test_dhcp_host_round_trip():
    host = config.NetworkDhcpHost('52:54:00:00:00:02', '10.0.0.12', None)
    parsed = config.NetworkDhcpHost.parse_dom(etree.fromstring(host.to_xml()))
    assert (parsed.mac, parsed.ip, parsed.name) == ('52:54:00:00:00:02', '10.0.0.12', None)


def test_storage_pool_and_volume():
    pool = _parse(config.StoragePoolDir('p', '/srv/p'))
    assert pool.get('type') == 'dir' and pool.findtext('target/path') == '/srv/p'
    volume = _parse(config.StorageVolume('v.qcow2', 1024, backing_path='/img',
                                         backing_format='qcow2'))
    assert volume.findtext('capacity') == '1024'
    assert volume.find('target/format').get('type') == 'qcow2'
    assert volume.findtext('backingStore/path') == '/img'
    assert volume.find('backingStore/format').get('type') == 'qcow2'
    assert _parse(config.StorageVolume('v', 1)).find('backingStore') is None
