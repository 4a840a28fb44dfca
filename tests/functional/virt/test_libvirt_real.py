"""LibvirtDriver against the real qemu:///system: network, disks, drive, a running guest.

Everything lives under a private resource_prefix and a state_path below /var/lib
(libvirt-qemu can traverse it), and is removed at the end. The guest boots the test
guest image's kernel (tools/build-guest-image; $PROVISIONER_TEST_GUEST_IMAGE or
build/guest-image) and the test reads what it saw from the console log.
"""

import hashlib
import json
import ipaddress
import os
import pathlib
import secrets
import shutil
import subprocess
import time
import uuid

import pytest

from provisioner.conf import CONF
from provisioner.virt import dhcp_namespace
from provisioner.virt import driver as virt_driver
from provisioner.virt import spec as virt_spec
from provisioner.virt.libvirt import designer
from provisioner.virt.libvirt import host as libvirt_host
from provisioner.virt.libvirt import storage
from tests import netutil
from tests.functional import conftest

libvirt = pytest.importorskip('libvirt')

MAC = '52:54:00:%02x:%02x:%02x' % tuple(secrets.token_bytes(3))
BOOT_TIMEOUT = 90


@pytest.fixture
def real_driver():
    try:
        libvirt.open('qemu:///system').close()
    except libvirt.libvirtError as exc:
        pytest.skip('libvirtd is not reachable at qemu:///system: %s' % exc)
    root = pathlib.Path('/var/lib') / ('provisioner-test-%s' % secrets.token_hex(4))
    root.mkdir(mode=0o755)
    CONF([], project='provisioner', default_config_files=[])
    CONF.set_override('state_path', str(root))
    CONF.set_override('connection_uri', 'qemu:///system', 'libvirt')
    CONF.set_override('resource_prefix', 'pt%s' % secrets.token_hex(3), 'libvirt')
    drv = virt_driver.LibvirtDriver()
    try:
        yield drv
    finally:
        conn = drv.host.get_connection()
        prefix = CONF.libvirt.resource_prefix
        for domain in conftest.domains_mentioning(conn, str(root)):
            drv.destroy_domain(domain.UUIDString())
        for network_id in dhcp_namespace.network_ids(drv.resource_prefix()):
            drv.delete_network({'id': network_id})
        for network in conn.listAllNetworks():
            if network.name().startswith(prefix + '-'):
                if network.isActive():
                    network.destroy()
                network.undefine()
        for name in drv.pool_names():
            storage.delete_pool(conn, name)
        drv.host.close()
        shutil.rmtree(root, ignore_errors=True)
        CONF.reset()


def _net():
    cidr = ipaddress.ip_network(netutil.free_cidr(253))
    hosts = list(cidr.hosts())
    return {'id': secrets.token_hex(4), 'name': 'functional', 'cidr': str(cidr),
            'gateway': str(hosts[0]), 'dhcp_start': str(hosts[99]),
            'dhcp_end': str(hosts[199])}


def _base_image(drv):
    source = pathlib.Path(CONF.state_path) / 'source.qcow2'
    subprocess.run(['qemu-img', 'create', '-q', '-f', 'qcow2', str(source), '64M'],
                   check=True)
    sha256 = hashlib.sha256(source.read_bytes()).hexdigest()
    return drv.fetch_image('functional-image', str(source), sha256)


def _guest_kernel(drv):
    """Kernel and initramfs copied next to the state (libvirt-qemu must read them)."""
    target = pathlib.Path(CONF.state_path) / 'kernel'
    target.mkdir(mode=0o755)
    copies = []
    for path in conftest.build_guest_image()[:2]:
        shutil.copy(path, target / path.name)
        os.chmod(target / path.name, 0o644)
        copies.append(str(target / path.name))
    return copies


def _wait_for_console(path, marker, timeout=BOOT_TIMEOUT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path):
            text = pathlib.Path(path).read_text(errors='replace')
            if marker in text:
                return text
        time.sleep(0.5)
    pytest.fail('no %r on the console within %d s:\n%s'
                % (marker, timeout, pathlib.Path(path).read_text(errors='replace')
                   if os.path.exists(path) else '(no console log)'))


def test_boot_a_guest_and_leave_nothing_behind(real_driver):
    drv = real_driver
    net = _net()
    instance_uuid = str(uuid.uuid4())
    ip = str(ipaddress.ip_address(net['dhcp_start']) + 5)

    drv.ensure_network(net)
    drv.ensure_network(net)
    drv.reserve_dhcp(net, MAC, ip, 'functional-vm')
    drv.reserve_dhcp(net, MAC, ip, 'functional-vm')
    assert drv.dhcp_hosts(net) == [{'mac': MAC, 'ip': ip, 'name': 'functional-vm'}]
    # The reservation reached the dnsmasq running in the network's DHCP namespace;
    # the bridge carries no address on the host.
    assert _dnsmasq_in(drv, net) and _addresses(drv.bridge_name(net)) == []

    root = drv.create_root_disk(instance_uuid, _base_image(drv), 'qcow2', 1)
    volume = drv.create_volume('functional-vol', 1)
    drive = drv.create_config_drive(
        instance_uuid, {'uuid': instance_uuid, 'hostname': 'functional-vm'},
        {'links': []}, b'hello from user data\n')
    kernel, ramdisk = _guest_kernel(drv)
    spec = virt_spec.GuestSpec(
        uuid=instance_uuid, display_name='functional <vm> & "friends"', vcpus=1,
        memory_mib=128, console_log=drv.console_log_path(instance_uuid),
        root_disk=root, kernel=kernel, ramdisk=ramdisk,
        volumes=[(volume, 'functional-vol')], config_drive=drive,
        nics=[(MAC, drv.network_name(net))])
    drv.define_domain(spec)
    drv.define_domain(spec)
    drv.start_domain(instance_uuid)
    drv.start_domain(instance_uuid)
    assert drv.power_state(instance_uuid) == 'running'
    assert len(drv.leftovers(instance_uuid, ['functional-vol'], [(net, MAC)])) == 5

    console = _wait_for_console(spec.console_log, 'PROVISIONER-GUEST: ready')
    assert 'PROVISIONER-GUEST: ip=%s' % ip in console
    assert 'PROVISIONER-GUEST: uuid=%s' % instance_uuid in console
    assert 'PROVISIONER-GUEST: user-data=hello from user data' in console
    assert 'PROVISIONER-GUEST: disks=vda vdb vdc' in console
    assert drv.power_state(instance_uuid) == 'running'

    drv.destroy_domain(instance_uuid)
    drv.destroy_domain(instance_uuid)
    drv.delete_root_disk(instance_uuid)
    drv.delete_volume('functional-vol')
    drv.delete_config_drive(instance_uuid)
    drv.release_dhcp(net, MAC)
    drv.release_dhcp(net, MAC)
    assert drv.leftovers(instance_uuid, ['functional-vol'], [(net, MAC)]) == []
    assert drv.power_state(instance_uuid) == 'nostate'
    drv.delete_network(net)
    drv.delete_network(net)
    assert not _dnsmasq_in(drv, net)
    assert drv.dhcp_namespace(net) not in os.listdir(dhcp_namespace.NETNS_DIR)


def _addresses(device, netns=None):
    argv = (['ip', '-n', netns] if netns else ['ip']) + ['-j', 'addr', 'show', 'dev',
                                                          device]
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    return sorted('%s/%s' % (a['local'], a['prefixlen'])
                  for link in json.loads(out) for a in link['addr_info']
                  if a['family'] == 'inet')


def _dnsmasq_in(drv, net):
    """Whether the network's dnsmasq runs, in its DHCP namespace."""
    paths = dhcp_namespace.files(drv.resource_prefix(), net['id'])
    pid = dhcp_namespace.running(paths)
    if pid is None:
        return False
    namespace = os.path.join(dhcp_namespace.NETNS_DIR, drv.dhcp_namespace(net))
    return os.stat('/proc/%d/ns/net' % pid).st_ino == os.stat(namespace).st_ino


def _guest(drv, net, mac, ip, base, kernel):
    instance_uuid = str(uuid.uuid4())
    drv.reserve_dhcp(net, mac, ip, 'vm')
    spec = virt_spec.GuestSpec(
        uuid=instance_uuid, display_name='vm', vcpus=1, memory_mib=128,
        console_log=drv.console_log_path(instance_uuid),
        root_disk=drv.create_root_disk(instance_uuid, base, 'qcow2', 1),
        kernel=kernel[0], ramdisk=kernel[1], volumes=[], config_drive=None,
        # A loaded machine's TCG may fail the kernel's timer check (a panic): skip it.
        cmdline='console=ttyS0 no_timer_check', nics=[(mac, drv.network_name(net))])
    drv.define_domain(spec)
    drv.start_domain(instance_uuid)
    return spec.console_log


def test_two_networks_of_one_cidr_and_a_network_of_two_subnets(real_driver):
    """Each network's DHCP in its own namespace: two networks share a CIDR (even an
    address), and one network's dnsmasq serves both of its subnets."""
    drv = real_driver
    first, second = _net(), _net()
    shared = dict(first, id=secrets.token_hex(4))  # the same CIDR as ``first``
    two = dict(first, subnets=[first, second])
    drv.ensure_network(two)
    drv.ensure_network(shared)
    netns = drv.dhcp_namespace(two)
    addresses = _addresses(dhcp_namespace.veth_names(netns)[1], netns)
    assert addresses == sorted(['%s/24' % first['gateway'], '%s/24' % second['gateway'],
                                '169.254.169.254/32'])
    base, kernel = _base_image(drv), _guest_kernel(drv)
    ip_first = str(ipaddress.ip_address(first['dhcp_start']) + 1)
    ip_second = str(ipaddress.ip_address(second['dhcp_start']) + 1)
    macs = ['52:54:00:%02x:%02x:%02x' % tuple(secrets.token_bytes(3)) for _ in range(3)]
    consoles = [_guest(drv, two, macs[0], ip_first, base, kernel),
                _guest(drv, two, macs[1], ip_second, base, kernel),
                _guest(drv, shared, macs[2], ip_first, base, kernel)]
    for console, ip in zip(consoles, (ip_first, ip_second, ip_first)):
        # Three guests at once under TCG: more time than one boot's.
        assert 'PROVISIONER-GUEST: ip=%s' % ip in _wait_for_console(
            console, 'PROVISIONER-GUEST: ready', timeout=3 * BOOT_TIMEOUT)
    assert not any(_addresses(drv.bridge_name(n)) for n in (two, shared))


def test_virt_type_auto_is_probed_once_per_host(real_driver, monkeypatch):
    monkeypatch.setattr(libvirt_host, '_probed_virt_types', {})
    first = real_driver.host.virt_type()
    assert first in ('kvm', 'qemu')
    cache_file = os.path.join(CONF.state_path, 'virt_type.json')
    assert os.path.exists(cache_file)
    # A new process finds the answer in the file instead of probing again.
    monkeypatch.setattr(libvirt_host, '_probed_virt_types', {})
    monkeypatch.setattr(libvirt_host, 'run_kvm_probe',
                        lambda *args: pytest.fail('probed twice'))
    assert real_driver.host.virt_type() == first


def _validate(tmp_path, name, xml, schema):
    if not shutil.which('virt-xml-validate') or not shutil.which('xmllint'):
        pytest.skip('virt-xml-validate (libvirt-clients) or xmllint (libxml2-utils) '
                    'is not installed')
    path = tmp_path / name
    path.write_text(xml)
    result = subprocess.run(['virt-xml-validate', str(path), schema],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr + xml


def test_generated_xml_validates_against_libvirt_schemas(tmp_path):
    CONF([], project='provisioner', default_config_files=[])
    CONF.set_override('tb_cache_mib', 16, 'libvirt')
    try:
        for kernel in (None, '/k/vmlinuz'):
            spec = virt_spec.GuestSpec(
                uuid=str(uuid.uuid4()), display_name='a\n<b> & "c"', vcpus=1,
                memory_mib=96, console_log='/s/console.log', root_disk='/s/root.qcow2',
                kernel=kernel, ramdisk=kernel and '/k/initrd', cmdline=None,
                volumes=[('/s/v1.qcow2', 'vol-1')], config_drive='/s/disk.config',
                nics=[(MAC, 'p-net-1')])
            _validate(tmp_path, 'domain.xml',
                      designer.build_guest(spec, 'qemu', CONF).to_xml(), 'domain')
        network = designer.build_network('p-net-1', 'p-1', mtu=1450)
        _validate(tmp_path, 'network.xml', network.to_xml(), 'network')
    finally:
        CONF.reset()
