"""Scheduling in the whole boot flow: reschedule, server groups, quotas, zones."""

import pytest
import sqlalchemy as sa

from provisioner.catalog import hosts
from provisioner.quota import counters
from provisioner.compute import server_groups
from provisioner.compute import states
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from tests.unit import fixtures
from tests.unit.flows.conftest import boot_request
from tests.unit.flows.conftest import leftovers

from flows import constants as c


@pytest.fixture
def three_hosts(api):
    """h1, h2, h3 (most free RAM first); the local test:/// host is kept out of it."""
    hosts.report_capacity(CONF.host, {'vcpus': 1, 'memory_mib': 1, 'disk_gib': 1,
                                      'hypervisor_type': 'qemu', 'arch': 'x86_64'})
    hosts.update(CONF.host, enabled=False)
    for name, ram in (('h1', 8192), ('h2', 4096), ('h3', 2048)):
        fixtures.add_host(name, memory_mib=ram)
    return ['h1', 'h2', 'h3']


def _usage(name):
    with db_api.transaction() as session:
        host = session.execute(sa.select(models.Host).where(models.Host.name == name)
                               ).scalar_one()
        return host.vcpus_used, host.memory_mib_used, host.disk_gib_used


def _events(info):
    return [(e['name'], e['result'], e['host']) for e in info['events']]


def test_spawn_failure_on_the_first_host_reschedules_to_an_alternate(
        api, hypervisor, three_hosts, conf):
    conf.set_override('fail_after_step', ['start-domain@h1'], 'fault_injection')
    instance_id = boot_request(api)
    info = api.run_boot(instance_id)
    assert info['vm_state'] == states.ACTIVE, info['fault']
    assert info['host'] == 'h2'
    assert _usage('h1') == (0, 0, 0)
    assert _usage('h2') == (1, 128, 1)
    events = _events(info)
    [resched] = [e for e in info['events'] if e['name'] == c.RESCHEDULE]
    assert resched['host'] == 'h1'
    assert 'attempt 2 of 3; host h1 failed: start-domain: Injected fault' in \
        resched['message']
    names = [e[0] for e in events]
    # Everything done on h1 was undone before the claim on h2.
    second_claim = len(names) - 1 - names[::-1].index(c.CLAIM_RESOURCES)
    for undone in (c.START_DOMAIN, c.DEFINE_DOMAIN, c.CLAIM_RESOURCES,
                   c.ALLOCATE_PORTS, c.CREATE_VOLUMES):
        assert names.index(undone + ' (revert)') < second_claim
    assert names.count(c.CLAIM_RESOURCES) == 2 and names[-1] == c.MARK_ACTIVE
    api.delete(instance_id)
    assert leftovers(hypervisor, api, instance_id) == []


def test_failing_on_every_host_ends_in_error_after_max_attempts(
        api, hypervisor, three_hosts, conf):
    conf.set_override('fail_after_step', ['define-domain@*'], 'fault_injection')
    conf.set_override('max_attempts', 2, 'scheduler')
    instance_id = boot_request(api)
    info = api.run_boot(instance_id)
    assert info['vm_state'] == states.ERROR
    # Each host's step and error, not only the last one's.
    assert info['fault'] == ('Boot failed on each host tried: h1: define-domain: '
                             'Injected fault at step define-domain on host h1; h2: '
                             'define-domain: Injected fault at step define-domain on '
                             'host h2')
    assert [e['host'] for e in info['events'] if e['name'] == c.RESCHEDULE] == ['h1']
    assert [_usage(h) for h in three_hosts] == [(0, 0, 0)] * 3
    assert leftovers(hypervisor, api, instance_id) == []


def test_a_boot_whose_only_host_fails_names_the_step_and_its_error(
        api, hypervisor, conf):
    """Not 'No valid host ... RetryFilter removed 1' alone: what failed on the host."""
    conf.set_override('fail_after_step', ['create-volumes@*'], 'fault_injection')
    instance_id = boot_request(api)
    info = api.run_boot(instance_id)
    assert info['vm_state'] == states.ERROR
    assert info['fault'] == (
        'claim-resources: No valid host was found: unit-host: create-volumes: Injected '
        'fault at step create-volumes on host unit-host; 1 host(s) considered for 1 '
        'vCPU, 128 MiB RAM, 1 GiB disk; RetryFilter removed 1')
    assert leftovers(hypervisor, api, instance_id) == []


def test_a_hypervisor_error_on_the_only_host_is_the_fault(
        api, hypervisor, conf, monkeypatch):
    """A pool conflict in create-volumes, as libvirt reports it, reaches the fault."""
    def conflict(self, vol_id, size_gib):
        raise exception.HypervisorError(
            reason='creating volume %s failed: pool provisioner-volumes: target path '
                   'is in use by another pool' % vol_id)

    monkeypatch.setattr(type(hypervisor), 'create_volume', conflict)
    instance_id = boot_request(api)
    info = api.run_boot(instance_id)
    assert info['vm_state'] == states.ERROR
    assert info['fault'].startswith(
        'claim-resources: No valid host was found: unit-host: create-volumes: '
        'Hypervisor error: creating volume ')
    assert 'target path is in use by another pool; 1 host(s) considered' in \
        info['fault']
    assert info['fault'].endswith('RetryFilter removed 1')
    assert leftovers(hypervisor, api, instance_id) == []


def test_a_domain_that_stops_while_booting_is_rescheduled(
        api, hypervisor, three_hosts, monkeypatch):
    """PowerStatePoll gives up with REVERT, so the reschedule controller decides."""
    from flows.steps import domain
    original = domain.WaitForBoot.execute

    def stopped_on_h1(self, instance_id):
        from provisioner.compute import instances
        if instances.host_of(instance_id) == 'h1':
            raise domain.DomainStopped(instance=instance_id, state='crashed')
        return original(self, instance_id=instance_id)

    monkeypatch.setattr(domain.WaitForBoot, 'execute', stopped_on_h1)
    info = api.run_boot(boot_request(api))
    assert info['vm_state'] == states.ACTIVE, info['fault']
    assert info['host'] == 'h2'
    assert _usage('h1') == (0, 0, 0)


def test_bad_requests_are_not_rescheduled(api, hypervisor, three_hosts, conf):
    conf.set_override('fail_after_step', ['create-root-disk'], 'fault_injection')
    info = api.run_boot(boot_request(api))
    assert info['vm_state'] == states.ERROR
    assert c.RESCHEDULE not in [e['name'] for e in info['events']]


def test_anti_affinity_puts_one_member_per_host_and_refuses_a_fourth(
        api, hypervisor, three_hosts):
    counters.set_limits(api.context.project_id, instances=-1)
    server_groups.create(api.context, 'apart', 'anti-affinity')
    placed = []
    for i in range(3):
        instance_id = api.create_instance('m%d' % i, 'tiny', 'guest', ['net1'],
                                          server_group='apart')
        info = api.run_boot(instance_id)
        assert info['vm_state'] == states.ACTIVE, info['fault']
        placed.append(info['host'])
    assert sorted(placed) == three_hosts
    fourth = api.run_boot(api.create_instance('m3', 'tiny', 'guest', ['net1'],
                                              server_group='apart'))
    assert fourth['vm_state'] == states.ERROR
    assert 'in anti-affinity group apart' in fourth['fault']
    assert 'ServerGroupAntiAffinityFilter removed 3' in fourth['fault']
    assert server_groups.show(api.context, 'apart')['members'] == ['m0', 'm1', 'm2',
                                                                   'm3']


def test_affinity_keeps_members_together(api, hypervisor, three_hosts):
    server_groups.create(api.context, 'together', 'affinity')
    first = api.run_boot(api.create_instance('a0', 'tiny', 'guest', ['net1'],
                                             server_group='together'))
    hosts.update(first['host'], ram_allocation_ratio=1.0)
    second = api.run_boot(api.create_instance('a1', 'tiny', 'guest', ['net1'],
                                              server_group='together'))
    assert first['host'] == second['host'] == 'h1'


def test_racing_anti_affinity_claims_take_distinct_hosts(admin_context):
    from provisioner.scheduler import claims
    import threading
    for name in ('x1', 'x2'):
        fixtures.add_host(name)
    group = server_groups.create(admin_context, 'g', 'anti-affinity')
    ids = [fixtures.add_instance(admin_context, name='r%d' % i) for i in range(6)]
    with db_api.transaction() as session:
        for instance_id in ids:
            server_groups.add_member(session, admin_context, 'g', instance_id)
    barrier = threading.Barrier(len(ids))
    won = []

    def race(instance_id, host):
        barrier.wait()
        if claims.claim(instance_id, host, 1, 64, 1, group=(group['id'],
                                                            'anti-affinity', None)):
            won.append(host)

    threads = [threading.Thread(target=race, args=(i, 'x%d' % (n % 2 + 1)))
               for n, i in enumerate(ids)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(won) == ['x1', 'x2']


def test_availability_zone_limits_the_hosts(api, hypervisor, three_hosts):
    hosts.update('h3', availability_zone='edge')
    info = api.run_boot(api.create_instance('z', 'tiny', 'guest', ['net1'],
                                            availability_zone='edge'))
    assert info['host'] == 'h3'
    with pytest.raises(exception.Invalid) as err:
        api.create_instance('z2', 'tiny', 'guest', ['net1'], availability_zone='nowhere')
    assert 'no host is in availability zone nowhere' in str(err.value)


def test_over_quota_is_refused_before_anything_exists(api, hypervisor, three_hosts):
    counters.set_limits(api.context.project_id, instances=1, vcpus=-1)
    api.run_boot(boot_request(api, name='one'))
    with pytest.raises(counters.OverQuota) as err:
        boot_request(api, name='two')
    assert str(err.value) == ('Quota exceeded for instances in project admin: the '
                              'request needs 1, 1 of 1 are in use.')
    with db_api.transaction() as session:
        assert session.query(models.Instance).count() == 1
    api.delete('one')
    assert {q['resource']: q['in_use'] for q in counters.show(api.context.project_id)} \
        == {'instances': 0, 'vcpus': 0, 'ram_mib': 0, 'volumes_gib': 0}
    boot_request(api, name='two')  # the deleted instance's quota came back


def test_rolled_back_boot_gives_its_quota_back(api, hypervisor, three_hosts, conf):
    conf.set_override('fail_after_step', ['create-volumes'], 'fault_injection')
    instance_id = boot_request(api, volumes=(3,))
    usage = {q['resource']: q['in_use'] for q in counters.show(api.context.project_id)}
    assert usage == {'instances': 1, 'vcpus': 1, 'ram_mib': 128, 'volumes_gib': 3}
    assert api.run_boot(instance_id)['vm_state'] == states.ERROR
    assert all(q['in_use'] == 0 for q in counters.show(api.context.project_id))
    api.delete(instance_id)  # releasing again changes nothing
    assert all(q['in_use'] == 0 for q in counters.show(api.context.project_id))


def test_image_properties_and_minimums(api, hypervisor, three_hosts, catalog):
    from provisioner.catalog import images
    images.create('arm', kernel=str(catalog['kernel']), arch='aarch64')
    info = api.run_boot(api.create_instance('arm1', 'tiny', 'arm', ['net1']))
    assert info['vm_state'] == states.ERROR
    assert 'ImagePropertiesFilter removed 3' in info['fault']
    images.create('big', kernel=str(catalog['kernel']), min_ram_mib=256)
    with pytest.raises(exception.Invalid) as err:
        api.create_instance('big1', 'tiny', 'big', ['net1'])
    assert "Flavor's memory is too small for requested image: image big needs at " \
        "least 256 MiB RAM; flavor tiny has 128" in str(err.value)
    images.create('wide', kernel=str(catalog['kernel']), min_disk_gib=5)
    with pytest.raises(exception.Invalid) as err:
        api.create_instance('wide1', 'tiny', 'wide', ['net1'])
    assert "Flavor's disk is too small for requested image" in str(err.value)
