"""What the inventory lists of a test:/// host, what it never lists, and removals."""

import os
import uuid

from provisioner.virt import deployment
from provisioner.virt import inventory as inv
from provisioner.virt import spec as virt_spec
from provisioner.virt.libvirt import storage

MAC = '52:54:00:00:00:07'


def _define(driver, instance_id, console_log=None):
    driver.define_domain(virt_spec.GuestSpec(
        uuid=instance_id, display_name='vm', vcpus=1, memory_mib=96,
        root_disk='/var/lib/none/root.qcow2',
        console_log=console_log or driver.console_log_path(instance_id)))


def _kinds(resources):
    return sorted((r.kind, r.name) for r in resources)


def test_every_kind_this_deployment_made_is_listed_and_removed(driver, net):
    instance_id, volume_id = str(uuid.uuid4()), str(uuid.uuid4())
    _define(driver, instance_id)
    driver.create_root_disk(instance_id, None, None, 1)
    driver.create_volume(volume_id, 1)
    driver.create_config_drive(instance_id, {'uuid': instance_id}, {})
    driver.ensure_network(net)
    driver.reserve_dhcp(net, MAC, '10.9.0.11', 'vm')
    found = inv.collect(driver)
    assert _kinds(found) == sorted([
        ('domain', 'instance-%s' % instance_id),
        ('root_disk', 'instance-%s-root.qcow2' % instance_id),
        ('volume', 'volume-%s.qcow2' % volume_id),
        ('instance_dir', instance_id),
        ('config_drive', '%s/disk.config' % instance_id),
        ('network', 'n1'), ('dhcp_host', MAC)])
    dhcp = next(r for r in found if r.kind == 'dhcp_host')
    assert (dhcp.network, dhcp.detail) == ('n1', '10.9.0.11')
    assert inv.Resource.from_dict(dhcp.to_dict()) == dhcp
    network = next(r for r in found if r.kind == 'network')
    for resource in found:
        if resource is not network:
            inv.remove(driver, resource)
    assert inv.collect(driver) == [network]
    inv.remove(driver, network)
    assert inv.collect(driver) == []


def test_another_deployments_domain_network_and_pool_are_never_listed(
        driver, conf, tmp_path):
    conn = driver.connection()
    other_state = tmp_path / 'other-state'
    other = str(uuid.uuid4())
    _define(driver, other, console_log=str(other_state / 'instances' / other / 'c.log'))
    storage.ensure_pool(conn, 'prov-other-volumes', str(other_state / 'volumes'))
    conf.set_override('resource_prefix', 'prov-other', 'libvirt')
    driver.ensure_network({'id': 'n9', 'cidr': '10.8.0.0/24', 'gateway': '10.8.0.1'})
    conf.set_override('resource_prefix', 'provisioner', 'libvirt')
    assert inv.collect(driver) == []


def test_a_domain_of_a_deployment_whose_state_path_lies_inside_ours_is_not_ours(
        driver, conf):
    nested = os.path.join(conf.state_path, 'test-cloud', 'state')
    other = str(uuid.uuid4())
    _define(driver, other, console_log=os.path.join(nested, 'instances', other,
                                                    'console.log'))
    assert inv.collect(driver) == []


def test_the_prefix_is_derived_from_state_path_unless_set(driver, conf, tmp_path):
    conf.clear_override('resource_prefix', 'libvirt')
    first = driver.resource_prefix()
    assert first.startswith('prov-') and len(first) == 13
    conf.set_override('state_path', str(tmp_path / 'elsewhere'))
    assert driver.resource_prefix() not in (first, 'provisioner')
    conf.set_override('resource_prefix', 'mine', 'libvirt')
    assert driver.resource_prefix() == 'mine'


def test_a_legacy_pool_serving_this_state_path_keeps_the_old_prefix(conf, test_uri):
    from provisioner.virt import driver as virt_driver
    drv = virt_driver.LibvirtDriver()
    conf.clear_override('resource_prefix', 'libvirt')
    storage.ensure_pool(drv.connection(), 'provisioner-instances',
                        os.path.join(conf.state_path, 'disks'))
    assert drv.resource_prefix() == deployment.LEGACY_PREFIX
    drv.host.close()


def test_teardown_removes_pools_networks_and_files_of_this_deployment(driver, net,
                                                                      conf):
    driver.create_volume(str(uuid.uuid4()), 1)
    driver.ensure_network(net)
    os.makedirs(os.path.join(conf.state_path, 'images'))
    with open(os.path.join(conf.state_path, 'virt_type.json'), 'w') as probe:
        probe.write('{}')
    removed = inv.teardown(driver)
    conn = driver.connection()
    assert [p.name() for p in conn.listAllStoragePools()] == []
    assert [n.name() for n in conn.listAllNetworks()] == []
    assert 'pool provisioner-volumes' in removed
    assert not any(os.path.exists(os.path.join(conf.state_path, d))
                   for d in inv.HOST_DIRECTORIES + inv.HOST_FILES)
    assert os.path.exists(os.path.join(conf.state_path, 'provisioner.sqlite'))


def test_every_host_of_a_distributed_deployment_derives_one_prefix(driver, conf,
                                                                   tmp_path):
    """Hosts with their own state_path share the prefix (one network name on every
    host); another broker, vhost or topic is another deployment; never credentials."""
    from provisioner.virt import deployment as dep
    assert dep.deployment_seed(conf, str(tmp_path / 'a')) == str(tmp_path / 'a')
    conf.set_override('transport_url', 'rabbit://guest:s3cret@127.0.0.1:5672/')
    host_a = dep.deployment_seed(conf, str(tmp_path / 'a'))
    assert host_a == dep.deployment_seed(conf, str(tmp_path / 'b'))
    assert 's3cret' not in host_a and 'guest' not in host_a
    conf.set_override('transport_url', 'rabbit://other:pw@127.0.0.1:5672/')
    assert dep.deployment_seed(conf, str(tmp_path / 'a')) == host_a
    conf.set_override('topic', 'another-deployment-worker', 'worker')
    assert dep.deployment_seed(conf, str(tmp_path / 'a')) != host_a
    conf.clear_override('resource_prefix', 'libvirt')
    first = driver.resource_prefix()
    conf.set_override('state_path', str(tmp_path / 'elsewhere'))
    assert driver.resource_prefix() == first
    conf.clear_override('transport_url')
    assert driver.resource_prefix() != first  # all-in-one: the state_path's own
