import datetime
import threading

import pytest
import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.scheduler import claims
from provisioner.scheduler import filters
from provisioner.scheduler import manager
from tests.unit import fixtures


def _usage(name):
    with db_api.transaction() as session:
        host = session.execute(sa.select(models.Host).where(models.Host.name == name)
                               ).scalar_one()
        return host.vcpus_used, host.memory_mib_used, host.disk_gib_used


def test_select_hosts_spreads_by_free_ram():
    fixtures.add_host('small', memory_mib=1024)
    fixtures.add_host('big', memory_mib=8192)
    spec = filters.RequestSpec(vcpus=1, ram_mib=512, disk_gib=1)
    assert manager.select_hosts(spec) == ['big', 'small']


def test_no_valid_host_says_which_filter_removed_how_many():
    fixtures.add_host('a', memory_mib=256)
    fixtures.add_host('b', memory_mib=256)
    fixtures.add_host('c', vcpus=1, memory_mib=4096)
    spec = filters.RequestSpec(vcpus=2, ram_mib=512, disk_gib=1)
    with pytest.raises(exception.NoValidHost) as err:
        manager.select_hosts(spec)
    assert '3 host(s) considered' in str(err.value)
    assert 'RamFilter removed 2' in str(err.value)
    assert 'VcpuFilter removed 1' in str(err.value)


def test_claim_and_release_are_idempotent(admin_context):
    fixtures.add_host('h1')
    instance_id = fixtures.add_instance(admin_context)
    assert claims.claim(instance_id, 'h1', 2, 1024, 10)
    assert claims.claim(instance_id, 'h1', 2, 1024, 10)  # a re-run adopts its claim
    assert _usage('h1') == (2, 1024, 10)
    assert claims.release(instance_id)
    assert not claims.release(instance_id)
    assert _usage('h1') == (0, 0, 0)


def test_claim_fails_on_a_full_host(admin_context):
    fixtures.add_host('h1', vcpus=2)
    first = fixtures.add_instance(admin_context, name='a')
    second = fixtures.add_instance(admin_context, name='b')
    assert claims.claim(first, 'h1', 2, 128, 1)
    assert not claims.claim(second, 'h1', 1, 128, 1)
    assert _usage('h1') == (2, 128, 1)


def test_racing_claims_never_overcommit(admin_context):
    fixtures.add_host('h1', vcpus=5)
    ids = [fixtures.add_instance(admin_context, name='vm%d' % i) for i in range(20)]
    results = []
    barrier = threading.Barrier(len(ids))

    def race(instance_id):
        barrier.wait()
        results.append(claims.claim(instance_id, 'h1', 1, 64, 1))

    threads = [threading.Thread(target=race, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 5
    assert _usage('h1') == (5, 320, 5)


def _spec(**kwargs):
    return filters.RequestSpec(**dict({'vcpus': 1, 'ram_mib': 512, 'disk_gib': 1},
                                      **kwargs))


def test_negative_ram_multiplier_packs(conf):
    fixtures.add_host('small', memory_mib=1024)
    fixtures.add_host('big', memory_mib=8192)
    conf.set_override('ram_weight_multiplier', -1.0, 'scheduler')
    assert manager.select_hosts(_spec()) == ['small', 'big']


def test_vcpu_weigher_breaks_what_ram_does_not(conf):
    fixtures.add_host('few', vcpus=2)
    fixtures.add_host('many', vcpus=16)
    assert manager.select_hosts(_spec()) == ['many', 'few']
    conf.set_override('vcpu_weight_multiplier', -1.0, 'scheduler')
    assert manager.select_hosts(_spec()) == ['few', 'many']


def test_alternates_are_limited_by_max_attempts(conf):
    for i in range(5):
        fixtures.add_host('h%d' % i, memory_mib=1024 * (i + 1))
    conf.set_override('max_attempts', 2, 'scheduler')
    assert manager.select_hosts(_spec()) == ['h4', 'h3']


def test_silent_and_disabled_hosts_are_filtered_with_counts(admin_context):
    from provisioner.catalog import hosts
    fixtures.add_host('old')
    fixtures.add_host('off')
    hosts.update('off', enabled=False, disabled_reason='maintenance')
    with db_api.transaction() as session:
        session.execute(sa.update(models.Host).where(models.Host.name == 'old')
                        .values(updated_at=models.utcnow() - datetime.timedelta(hours=1)))
    with pytest.raises(exception.NoValidHost) as err:
        manager.select_hosts(_spec(alive_since=hosts.down_cutoff()))
    assert 'AliveFilter removed 1, EnabledFilter removed 1' in str(err.value)
    shown = {h['name']: h for h in hosts.list_all()}
    assert (shown['old']['alive'], shown['off']['alive']) == (False, True)
    assert shown['off']['disabled_reason'] == 'maintenance'
    hosts.update('off', enabled=True)
    assert manager.select_hosts(_spec(alive_since=hosts.down_cutoff())) == ['off']


def test_claims_and_operator_changes_do_not_refresh_liveness(admin_context):
    from provisioner.catalog import hosts
    fixtures.add_host('h1')
    stale = models.utcnow() - datetime.timedelta(hours=1)
    with db_api.transaction() as session:
        session.execute(sa.update(models.Host).values(updated_at=stale))
    instance_id = fixtures.add_instance(admin_context)
    assert claims.claim(instance_id, 'h1', 1, 64, 1)
    claims.release(instance_id)
    hosts.update('h1', cpu_allocation_ratio=2.0)
    assert hosts.show('h1')['updated_at'] == stale
    assert hosts.show('h1')['vcpus_capacity'] == 8.0


def test_new_hosts_get_the_configured_ratios_and_zone(conf):
    from provisioner.catalog import hosts
    conf.set_override('cpu_allocation_ratio', 8.0, 'scheduler')
    conf.set_override('default_availability_zone', 'az1', 'scheduler')
    hosts.report_capacity('n1', {'vcpus': 2, 'memory_mib': 1024, 'disk_gib': 10,
                                 'hypervisor_type': 'qemu', 'arch': 'x86_64'})
    shown = hosts.show('n1')
    assert (shown['vcpus_capacity'], shown['availability_zone']) == (16.0, 'az1')
    with pytest.raises(exception.Invalid):
        hosts.update('n1', ram_allocation_ratio=0)


def test_unknown_filter_in_config_is_a_clear_error(conf):
    conf.set_override('enabled_filters', ['RamFilter', 'NoSuchFilter'], 'scheduler')
    with pytest.raises(exception.ProvisionerError) as err:
        manager.select_hosts(_spec())
    assert 'Unknown filter(s) in [scheduler] enabled_filters: NoSuchFilter' in \
        str(err.value)


def test_a_forced_down_host_is_down_and_gets_nothing(admin_context):
    from provisioner.catalog import hosts
    fixtures.add_host('h1')
    hosts.update('h1', forced_down=True)
    assert hosts.show('h1')['alive'] is False
    with pytest.raises(exception.NoValidHost) as err:
        manager.select_hosts(_spec(alive_since=hosts.down_cutoff()))
    assert 'AliveFilter removed 1' in str(err.value)
    hosts.update('h1', forced_down=False)
    assert manager.select_hosts(_spec(alive_since=hosts.down_cutoff())) == ['h1']


def _grouped(admin_context, policy, per_host=None, members=()):
    """A group whose members (name, host) hold claims; (group, its next member)."""
    from provisioner.compute import server_groups
    group = server_groups.create(admin_context, 'g', policy, per_host)
    for name, host in members:
        instance_id = fixtures.add_instance(admin_context, name=name)
        with db_api.transaction() as session:
            session.add(models.ServerGroupMember(instance_id=instance_id,
                                                 group_id=group['id']))
        assert claims.claim(instance_id, host, 1, 128, 1)
    newcomer = fixtures.add_instance(admin_context, name='new')
    return (group['id'], policy, per_host), newcomer


def _group_spec(session, group, instance_id):
    return _spec(group_name='g', group_policy=group[1],
                 group_hosts=claims.full_hosts(session, group, instance_id))


@pytest.mark.parametrize('policy, first', [('soft-affinity', 'small'),
                                           ('soft-anti-affinity', 'big')])
def test_soft_policies_order_the_hosts_and_never_fail_a_claim(admin_context, policy,
                                                             first):
    fixtures.add_host('small', memory_mib=1024)
    fixtures.add_host('big', memory_mib=8192)
    group, newcomer = _grouped(admin_context, policy, members=[('m1', 'small')])
    with db_api.transaction() as session:
        spec = _group_spec(session, group, newcomer)
    assert manager.select_hosts(spec)[0] == first
    assert claims.claim(newcomer, 'small', 1, 128, 1, group=group)


def test_anti_affinity_max_server_per_host(admin_context):
    fixtures.add_host('h1')
    fixtures.add_host('h2', memory_mib=1024)
    group, newcomer = _grouped(admin_context, 'anti-affinity', 2,
                               members=[('m1', 'h1'), ('m2', 'h1'), ('m3', 'h2')])
    with db_api.transaction() as session:
        spec = _group_spec(session, group, newcomer)
    assert manager.select_hosts(spec) == ['h2']
    assert not claims.claim(newcomer, 'h1', 1, 128, 1, group=group)
    assert claims.claim(newcomer, 'h2', 1, 128, 1, group=group)
