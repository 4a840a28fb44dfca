"""LibvirtDriver on a private test:/// hypervisor: every call twice, nothing left."""

import os
import struct
import uuid

import libvirt
import pytest

from provisioner import exception
from provisioner.virt import spec as virt_spec
from provisioner.virt.libvirt import storage
from tests import probes

MAC = '52:54:00:00:00:01'


@pytest.fixture
def instance_uuid():
    return str(uuid.uuid4())


def _spec(driver, instance_uuid, **kwargs):
    values = dict(uuid=instance_uuid, display_name='<x>&"\'', vcpus=1, memory_mib=96,
                  console_log=driver.console_log_path(instance_uuid),
                  root_disk='/var/lib/none/root.qcow2')
    values.update(kwargs)
    return virt_spec.GuestSpec(**values)


def test_network_ensure_and_delete_twice(driver, net):
    driver.ensure_network(net)
    driver.ensure_network(net)
    conn = driver.host.get_connection()
    network = conn.networkLookupByName('provisioner-net-n1')
    assert network.isActive() and network.autostart()
    assert network.bridgeName() == 'provisioner-n1'
    assert '<forward' not in network.XMLDesc(0)
    driver.delete_network(net)
    driver.delete_network(net)
    assert [n.name() for n in conn.listAllNetworks()] == []


def test_bridge_names_fit_linux_and_stay_unique(driver, conf):
    conf.set_override('resource_prefix', 'a-very-long-deployment-prefix', 'libvirt')
    first = driver.bridge_name({'id': '8c1e7a52-0b51-4c8e-9f36-1d0b3a1e9a11'})
    second = driver.bridge_name({'id': '8c1e7a52-0b51-4c8e-9f36-1d0b3a1e9a12'})
    assert len(first) <= 15 and len(second) <= 15 and first != second
    assert first.startswith('a-ver')


def test_ids_that_could_walk_paths_are_refused(driver):
    with pytest.raises(exception.Invalid):
        driver.create_volume('../etc', 1)
    with pytest.raises(exception.Invalid):
        driver.console_log_path('not-a-uuid')


def test_dhcp_reservations_are_idempotent(driver, net):
    driver.ensure_network(net)
    driver.reserve_dhcp(net, MAC, '10.9.0.11', 'vm1')
    driver.reserve_dhcp(net, MAC.upper(), '10.9.0.11', 'vm1')
    assert driver.dhcp_hosts(net) == [{'mac': MAC, 'ip': '10.9.0.11', 'name': 'vm1'}]
    driver.reserve_dhcp(net, MAC, '10.9.0.12', 'vm1')  # same MAC, new IP: replaced
    assert driver.dhcp_hosts(net) == [{'mac': MAC, 'ip': '10.9.0.12', 'name': 'vm1'}]
    driver.reserve_dhcp(net, '52:54:00:00:00:02', '10.9.0.12', 'vm2')  # IP moved on
    assert driver.dhcp_hosts(net) == [
        {'mac': '52:54:00:00:00:02', 'ip': '10.9.0.12', 'name': 'vm2'}]
    driver.release_dhcp(net, '52:54:00:00:00:02')
    driver.release_dhcp(net, '52:54:00:00:00:02')
    assert driver.dhcp_hosts(net) == []
    driver.delete_network(net)
    driver.release_dhcp(net, MAC)  # network gone: nothing to release
    assert driver.dhcp_hosts(net) == []


def test_dhcp_reservation_needs_the_network(driver, net):
    with pytest.raises(exception.HypervisorError, match='does not exist'):
        driver.reserve_dhcp(net, MAC, '10.9.0.11', 'vm1')


def test_blank_root_disk_twice_and_delete_twice(driver, instance_uuid):
    path = driver.create_root_disk(instance_uuid, None, None, 1)
    assert driver.create_root_disk(instance_uuid, None, None, 1) == path
    assert path.endswith('/disks/instance-%s-root.qcow2' % instance_uuid)
    driver.delete_root_disk(instance_uuid)
    driver.delete_root_disk(instance_uuid)
    assert driver.leftovers(instance_uuid) == []


def test_no_root_disk_without_base_or_size(driver, instance_uuid):
    assert driver.create_root_disk(instance_uuid, None, None, 0) is None
    driver.delete_root_disk(instance_uuid)  # no pool yet: nothing to delete


def test_overlay_is_at_least_the_base_size(driver, instance_uuid, tmp_path):
    base = tmp_path / 'base.qcow2'
    base.write_bytes(b'QFI\xfb' + b'\0' * 20 + struct.pack('>Q', 3 * 1024 ** 3))
    path = driver.create_root_disk(instance_uuid, str(base), 'qcow2', 1)
    conn = driver.host.get_connection()
    assert conn.storageVolLookupByPath(path).info()[1] == 3 * 1024 ** 3


def test_volumes_twice(driver):
    path = driver.create_volume('vol-1', 2)
    assert driver.create_volume('vol-1', 2) == path
    assert probes.volume_exists(driver, 'vol-1')
    driver.delete_volume('vol-1')
    driver.delete_volume('vol-1')
    assert not probes.volume_exists(driver, 'vol-1')


def test_pool_of_another_host_is_left_to_it(driver, conf, tmp_path):
    # Two hosts of one deployment (one prefix) on one libvirtd: the second one
    # takes pools named after its state_path, and keeps them.
    conn = driver.host.get_connection()
    other = tmp_path / 'other-host'
    other.mkdir()
    storage.ensure_pool(conn, 'provisioner-volumes', str(other))
    path = driver.create_volume('vol-1', 1)
    instances_pool, volumes_pool = driver.pool_names()
    assert volumes_pool.startswith('provisioner-') and volumes_pool.endswith(
        '-volumes') and volumes_pool != 'provisioner-volumes'
    assert instances_pool == 'provisioner-instances'  # nobody else's: the plain name
    assert storage.pool_path(storage.lookup_pool(conn, volumes_pool)) == \
        os.path.dirname(path)
    storage.delete_pool(conn, 'provisioner-volumes')  # the other host went
    assert driver.pool_names()[1] == volumes_pool
    assert probes.volume_exists(driver, 'vol-1')


def test_pool_pointing_elsewhere_is_reported(driver, conf, tmp_path):
    conn = driver.host.get_connection()
    for name in ('provisioner-volumes', None):  # another host's; then "ours"
        other = tmp_path / ('elsewhere-%s' % name)
        other.mkdir()
        storage.ensure_pool(conn, name or driver.pool_names()[1], str(other))
    with pytest.raises(exception.HypervisorError, match='pool-undefine'):
        driver.create_volume('vol-1', 1)


def test_config_drive_twice(driver, instance_uuid):
    path = driver.create_config_drive(instance_uuid, {'uuid': instance_uuid}, {}, None)
    assert driver.create_config_drive(instance_uuid, {'uuid': instance_uuid}, {},
                                      b'x') == path
    assert driver.leftovers(instance_uuid) == ['config drive %s' % path]
    driver.delete_config_drive(instance_uuid)
    driver.delete_config_drive(instance_uuid)
    assert driver.leftovers(instance_uuid) == []


def test_domain_lifecycle_twice(driver, instance_uuid):
    assert driver.power_state(instance_uuid) == 'nostate'
    driver.define_domain(_spec(driver, instance_uuid))
    driver.define_domain(_spec(driver, instance_uuid, vcpus=2))  # redefined in place
    assert probes.domain_exists(driver, instance_uuid)
    assert driver.power_state(instance_uuid) == 'shutdown'
    driver.start_domain(instance_uuid)
    driver.start_domain(instance_uuid)
    assert driver.power_state(instance_uuid) == 'running'
    conn = driver.host.get_connection()
    domain = conn.lookupByName('instance-' + instance_uuid)
    assert domain.maxVcpus() == 2
    assert domain.metadata(libvirt.VIR_DOMAIN_METADATA_TITLE, None) == '<x>&"\''
    driver.destroy_domain(instance_uuid)
    driver.destroy_domain(instance_uuid)
    assert not probes.domain_exists(driver, instance_uuid)
    assert driver.power_state(instance_uuid) == 'nostate'


def test_start_of_undefined_domain_is_a_clear_error(driver, instance_uuid):
    with pytest.raises(exception.HypervisorError, match='not defined'):
        driver.start_domain(instance_uuid)


def test_leftovers_lists_everything_then_nothing(driver, net, instance_uuid):
    driver.ensure_network(net)
    driver.reserve_dhcp(net, MAC, '10.9.0.11', 'vm1')
    root = driver.create_root_disk(instance_uuid, None, None, 1)
    volume = driver.create_volume('vol-1', 1)
    drive = driver.create_config_drive(instance_uuid, {}, {}, None)
    driver.define_domain(_spec(driver, instance_uuid, root_disk=root,
                               volumes=[(volume, 'vol-1')], config_drive=drive,
                               nics=[(MAC, driver.network_name(net))]))
    driver.start_domain(instance_uuid)
    found = driver.leftovers(instance_uuid, ['vol-1'], [(net, MAC)])
    assert len(found) == 5, found
    assert found[0] == 'domain instance-%s (running)' % instance_uuid

    driver.destroy_domain(instance_uuid)
    driver.delete_root_disk(instance_uuid)
    driver.delete_volume('vol-1')
    driver.delete_config_drive(instance_uuid)
    driver.release_dhcp(net, MAC)
    assert driver.leftovers(instance_uuid, ['vol-1'], [(net, MAC)]) == []


def test_capacity(driver):
    assert driver.capacity()['hypervisor_type'] == 'qemu'


def test_a_dhcp_host_name_taken_on_the_network_is_left_out(driver, net):
    """libvirt refuses a second entry of one name; servers' names may repeat."""
    driver.ensure_network(net)
    driver.reserve_dhcp(net, MAC, '10.9.0.11', 'web')
    driver.reserve_dhcp(net, '52:54:00:00:00:02', '10.9.0.12', 'web')
    driver.reserve_dhcp(net, '52:54:00:00:00:02', '10.9.0.12', 'web')
    assert driver.dhcp_hosts(net) == [
        {'mac': MAC, 'ip': '10.9.0.11', 'name': 'web'},
        {'mac': '52:54:00:00:00:02', 'ip': '10.9.0.12', 'name': None}]


def test_dhcp_hostname_from_a_display_name(driver, net):
    driver.ensure_network(net)
    driver.reserve_dhcp(net, MAC, '10.9.0.11', '<Web> & "1"')
    driver.reserve_dhcp(net, MAC, '10.9.0.11', '<Web> & "1"')
    assert driver.dhcp_hosts(net) == [{'mac': MAC, 'ip': '10.9.0.11', 'name': 'web-1'}]


def test_first_closed_directory_finds_what_qemu_cannot_enter(tmp_path):
    import os
    import tempfile
    from provisioner.virt import driver as virt_driver
    nobody = 65534
    closed = tmp_path / 'closed'
    (closed / 'state').mkdir(parents=True)
    closed.chmod(0o700)
    found = virt_driver.first_closed_directory(str(closed / 'state'), nobody, {nobody})
    assert found is not None and str(closed).startswith(found)
    opened = tempfile.mkdtemp(dir='/var/tmp')
    try:
        os.chmod(opened, 0o755)
        os.mkdir(os.path.join(opened, 'state'))
        assert virt_driver.first_closed_directory(
            os.path.join(opened, 'state'), nobody, {nobody}) is None
    finally:
        os.rmdir(os.path.join(opened, 'state'))
        os.rmdir(opened)


def test_boot_on_a_closed_state_path_is_refused(conf, tmp_path, monkeypatch):
    from provisioner import exception
    from provisioner.virt import driver as virt_driver
    conf.set_override('state_path', str(tmp_path / 'state'))
    conf.set_override('connection_uri', 'qemu:///system', 'libvirt')
    monkeypatch.setattr(virt_driver, 'first_closed_directory',
                        lambda path, uid, gids: '/closed')
    monkeypatch.setattr(virt_driver.pwd, 'getpwnam',
                        lambda name: type('U', (), {'pw_uid': 1, 'pw_gid': 1})())
    with pytest.raises(exception.Invalid) as err:
        virt_driver.LibvirtDriver().check_state_path()
    assert 'cannot enter /closed' in str(err.value) and 'chmod o+x /closed' in str(err.value)


def test_pool_refresh_waits_out_another_process_volume_job(monkeypatch):
    from provisioner.virt.libvirt import storage

    class BusyPool:
        calls = 0

        def name(self):
            return 'p'

        def refresh(self, flags):
            self.calls += 1
            if self.calls < 3:
                raise libvirt.libvirtError("internal error: pool 'p' has asynchronous "
                                           "jobs running.")

    pool = BusyPool()
    storage._refresh(pool)
    assert pool.calls == 3


def test_pool_refresh_gives_up_on_other_errors():
    from provisioner import exception
    from provisioner.virt.libvirt import storage

    class BrokenPool:
        def name(self):
            return 'p'

        def refresh(self, flags):
            raise libvirt.libvirtError('internal error: something else')

    with pytest.raises(exception.ProvisionerError):
        storage._refresh(BrokenPool())
