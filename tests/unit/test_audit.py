"""Leftovers, audits and teardown, all-in-one on a test:/// host (the CLI's contract)."""

import datetime
import json
import uuid

import pytest

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import leftovers
from provisioner.maintenance import audit
from provisioner.maintenance import findings as found
from provisioner.maintenance import networks as maintenance_networks
from provisioner.maintenance import reconciler
from provisioner.maintenance import records
from provisioner import virt
from provisioner.virt import inventory as inv
from provisioner.virt import spec as virt_spec
from provisioner.virt.libvirt import storage

from tests.unit import fixtures
from tests.unit.test_cli import catalog, run  # noqa: F401 (fixtures)
from tests.unit.virt.conftest import test_uri  # noqa: F401 (fixture)
from tests import probes


def _boot(run):  # noqa: F811
    code, _, err = run('boot', 'vm1', '--flavor', 'tiny', '--image', 'guest',
                       '--network', 'net1', '--volume-size', 1)
    assert code == 0, err
    return json.loads(run('show', 'vm1', '--format', 'json')[1])


def _plant_domain(driver, instance_id, console_log=None):
    driver.define_domain(virt_spec.GuestSpec(
        uuid=instance_id, display_name='x', vcpus=1, memory_mib=96,
        root_disk='/var/lib/none/root.qcow2',
        console_log=console_log or driver.console_log_path(instance_id)))


def _audit(run, *flags):  # noqa: F811
    code, out, err = run('audit', '--format', 'json', *flags)
    return code, sorted((f['problem'], f['kind'], f['name'], f['action'])
                        for f in json.loads(out))


def test_audit_lists_exactly_what_was_removed_or_planted_and_fix_spares_others(
        run, catalog, tmp_path):  # noqa: F811
    shown = _boot(run)
    vm, mac = shown['id'], shown['addresses'][0]['mac']
    volume_id = shown['volumes'][0]['id']
    drv = virt.get_driver()
    net = {'id': json.loads(run('network', 'show', 'net1', '--format', 'json')[1])['id']}
    # Behind provisioner's back: a domain, a DHCP entry and a volume go ...
    drv.destroy_domain(vm)
    drv.release_dhcp(net, mac)
    drv.delete_volume(volume_id)
    # ... and a killed boot that the database forgot leaves a domain and a volume.
    ghost, ghost_volume = str(uuid.uuid4()), str(uuid.uuid4())
    _plant_domain(drv, ghost)
    drv.create_volume(ghost_volume, 1)
    # Another deployment on the same host: never listed, never touched.
    other = str(uuid.uuid4())
    _plant_domain(drv, other, str(tmp_path / 'other' / 'instances' / other / 'c.log'))
    storage.ensure_pool(drv.connection(), 'prov-other-volumes', str(tmp_path / 'ov'))

    code, listed = _audit(run)
    assert code == 1
    kept = 'kept (run with --fix)'
    assert listed == sorted([
        ('missing', 'domain', 'instance-%s' % vm, '-'),
        ('missing', 'dhcp_host', mac, '-'),
        ('missing', 'volume', 'volume-%s.qcow2' % volume_id, '-'),
        ('orphan', 'domain', 'instance-%s' % ghost, kept),
        ('orphan', 'instance_dir', ghost, kept),
        ('orphan', 'volume', 'volume-%s.qcow2' % ghost_volume, kept)])

    code, listed = _audit(run, '--fix', '--grace-period', '0')
    assert code == 1  # the missing ones remain
    assert [f for f in listed if f[0] == 'orphan'] == sorted([
        ('orphan', 'domain', 'instance-%s' % ghost, 'removed'),
        ('orphan', 'instance_dir', ghost, 'removed'),
        ('orphan', 'volume', 'volume-%s.qcow2' % ghost_volume, 'removed')])
    assert not probes.domain_exists(drv, ghost) and not probes.volume_exists(drv, ghost_volume)
    assert probes.domain_exists(drv, other)
    assert storage.lookup_pool(drv.connection(), 'prov-other-volumes') is not None
    assert [f[0] for f in _audit(run)[1]] == ['missing'] * 3


def test_an_orphan_younger_than_the_grace_period_is_kept(run, catalog):  # noqa: F811
    drv = virt.get_driver()
    ghost = str(uuid.uuid4())
    _plant_domain(drv, ghost)  # its instance directory is brand new
    code, listed = _audit(run, '--fix', '--grace-period', '3600')
    assert code == 1
    assert ('orphan', 'instance_dir', ghost,
            'kept (younger than the grace period)') in listed
    assert probes.domain_exists(drv, ghost)


def test_a_clean_host_audits_clean(run, catalog):  # noqa: F811
    _boot(run)
    code, out, _ = run('audit')
    assert code == 0 and 'No orphans and nothing missing.' in out


def test_a_failed_cleanup_is_recorded_shown_and_resolved_by_audit_fix(
        run, catalog, monkeypatch):  # noqa: F811
    from provisioner import exception
    from provisioner.virt import driver

    real_delete = driver.LibvirtDriver.delete_volume

    def pool_gone(self, vol_id):
        raise exception.HypervisorError(reason='pool gone')

    monkeypatch.setattr(driver.LibvirtDriver, 'delete_volume', pool_gone)
    monkeypatch.setenv('OS_FAULT_INJECTION__FAIL_AFTER_STEP', 'create-volumes')
    assert run('boot', 'vm1', '--flavor', 'tiny', '--image', 'guest',
               '--network', 'net1', '--volume-size', 1)[0] == 1
    shown = json.loads(run('show', 'vm1', '--format', 'json')[1])
    [left] = shown['leftovers']
    assert (left['kind'], left['host'], left['instance_id']) == \
        ('volume', shown['host'] or 'unit-host', shown['id'])
    assert left['name'].startswith('volume-') and 'pool gone' in left['error']
    assert 'cleanup failed: create-volumes' in shown['fault']

    monkeypatch.setattr(driver.LibvirtDriver, 'delete_volume', real_delete)
    monkeypatch.delenv('OS_FAULT_INJECTION__FAIL_AFTER_STEP')
    # A recorded leftover goes whatever the grace period says.
    code, listed = _audit(run, '--fix', '--grace-period', '3600')
    assert ('orphan', 'volume', left['name'], 'removed') in listed
    assert json.loads(run('show', 'vm1', '--format', 'json')[1])['leftovers'] == []


def test_a_failed_delete_step_is_recorded_and_a_later_delete_resolves_it(
        run, catalog, monkeypatch):  # noqa: F811
    from provisioner import exception
    from provisioner.virt import driver

    vm = _boot(run)['id']
    real_destroy = driver.LibvirtDriver.destroy_domain

    def refuse(self, instance_id):
        raise exception.HypervisorError(reason='libvirt refused')

    monkeypatch.setattr(driver.LibvirtDriver, 'destroy_domain', refuse)
    assert run('delete', 'vm1')[0] != 0
    shown = json.loads(run('show', 'vm1', '--format', 'json')[1])
    assert shown['fault'] == ('Left behind: domain instance-%s on host unit-host '
                              '(Hypervisor error: libvirt refused)' % vm)
    [left] = leftovers.list_open(instance_id=vm)
    assert (left['kind'], left['name']) == ('domain', 'instance-%s' % vm)
    assert 'libvirt refused' in left['error']
    monkeypatch.setattr(driver.LibvirtDriver, 'destroy_domain', real_destroy)
    assert run('delete', 'vm1')[0] == 0
    assert leftovers.list_open(instance_id=vm) == []


def test_a_volume_a_delete_could_not_remove_is_recorded_and_fixed_by_audit(
        run, catalog, monkeypatch):  # noqa: F811
    from provisioner import exception
    from provisioner.virt import driver

    shown = _boot(run)
    real_delete = driver.LibvirtDriver.delete_volume

    def pool_gone(self, vol_id):
        raise exception.HypervisorError(reason='pool gone')

    monkeypatch.setattr(driver.LibvirtDriver, 'delete_volume', pool_gone)
    code, out, err = run('delete', 'vm1')
    assert code == 0  # the rest of the delete goes on
    [left] = leftovers.list_open(instance_id=shown['id'])
    assert (left['kind'], left['name']) == (
        'volume', 'volume-%s.qcow2' % shown['volumes'][0]['id'])
    # Not silent: the instance is gone, so the delete itself says what stayed.
    assert ('Left behind: volume %s on host unit-host (Hypervisor error: pool gone); '
            'once the cause is fixed, "provisioner audit --fix" removes it.'
            % left['name']) in err
    monkeypatch.setattr(driver.LibvirtDriver, 'delete_volume', real_delete)
    code, listed = _audit(run, '--fix')
    assert (code, listed) == (0, [('orphan', 'volume', left['name'], 'removed')])
    assert leftovers.list_open() == []


def test_teardown_is_refused_while_instances_remain_then_leaves_nothing(
        run, catalog):  # noqa: F811
    _boot(run)
    code, _, err = run('host', 'teardown', 'unit-host')
    assert code == 4 and 'still has 1 instance(s): vm1' in err
    assert run('delete', 'vm1')[0] == 0
    code, out, err = run('host', 'teardown', 'unit-host')
    assert code == 0, err
    conn = virt.get_driver().connection()
    assert conn.listAllStoragePools() == [] and conn.listAllNetworks() == []
    assert 'torn down' in out


def test_compare_only_the_recorded_or_old_orphans_are_removable():
    recs = records.HostRecords('h1', {}, {}, set(), set(), [])
    young = inv.Resource('volume', 'volume-a.qcow2', 'a', age=5.0)
    recorded = inv.Resource('volume', 'volume-b.qcow2', 'b', age=5.0)
    unknown_age = inv.Resource('dhcp_host', '52:54:00:00:00:09', 'n1', network='n1')
    result = audit.compare([young, recorded, unknown_age], recs, grace_period=60,
                           open_leftovers=[{'kind': 'volume', 'name': 'volume-b.qcow2',
                                            'error': 'Hypervisor error: pool gone'}])
    assert [f.name for f in result if f.removable()] == ['volume-b.qcow2',
                                                         '52:54:00:00:00:09']
    assert [f.name for f in result if f.removable(reap=False)] == ['volume-b.qcow2']
    # The recorded cleanup error is what the operator must fix: the audit says it.
    assert [f.reason for f in result if f.recorded] == [
        'volume unknown or its instance deleted; a cleanup failed to remove it: '
        'Hypervisor error: pool gone']


def test_compare_an_instance_on_another_host_owns_nothing_here():
    recs = records.HostRecords('h1', {'i1': 'h2'}, {}, set(), set(), [])
    [finding] = audit.compare([inv.Resource('domain', 'instance-i1', 'i1')], recs, 0)
    assert finding.reason == 'instance is on host h2'


def test_compare_a_port_filter_belongs_to_a_port_of_an_instance_here():
    recs = records.HostRecords('h1', {'i1': 'h1'}, {}, set(), set(), [], {'p1'})
    found_ = audit.compare([inv.Resource(inv.PORT_FILTER, 'p1', 'p1'),
                            inv.Resource(inv.PORT_FILTER, 'p2', 'p2')], recs, 0)
    assert [(f.name, f.reason, f.removable()) for f in found_] == [
        ('p2', 'no port of an instance on this host has this id', True)]


def test_the_security_group_agent_converges_its_hosts_filters():
    from provisioner.worker import sg_agent

    class Driver:
        def __init__(self):
            self.calls = []

        def sync_port_filters(self, states, removed=()):
            self.calls.append((states, list(removed)))

    driver = Driver()
    endpoint = sg_agent.SecurityGroupAgentEndpoint(driver)
    assert (endpoint.target.namespace, endpoint.target.version) == ('sgagent', '1.0')
    endpoint.sync_port_filters({}, [{'port_id': 'p1'}], removed=['p2'])
    assert driver.calls == [([{'port_id': 'p1'}], ['p2'])]


class _EngineInProcess:
    """The engine's maintenance endpoint, called without a broker."""

    def __init__(self):
        self.endpoint = audit.EngineMaintenanceEndpoint()

    def reconcile_host(self, host, resources, grace_period):
        return json.loads(json.dumps(  # what crosses the wire
            self.endpoint.reconcile_host({}, host, resources, grace_period)))

    def record_removals(self, host, findings, outcomes):
        self.endpoint.record_removals({}, host, findings, outcomes)


@pytest.mark.usefixtures('test_uri')
@pytest.mark.parametrize('reap', [False, True])
def test_the_reconciler_logs_orphans_and_reaps_only_when_told(conf, reap):
    conf.set_override('reap_orphans', reap, 'worker')
    drv = virt.get_driver()
    ghost = str(uuid.uuid4())
    drv.create_volume(ghost, 1)
    result = reconciler.reconcile_once('unit-host', drv, _EngineInProcess())
    assert [(f.problem, f.kind) for f in result] == [('orphan', 'volume')]
    assert probes.volume_exists(drv, ghost) is not reap


def _hosts_up_and_away():
    """Host 'up' reports; host 'away' last reported long ago (its worker is down)."""
    fixtures.add_host('up')
    fixtures.add_host('away')
    with db_api.transaction() as session:
        session.query(models.Host).filter_by(name='away').update(
            {'updated_at': datetime.datetime(2000, 1, 1)})


@pytest.mark.usefixtures('test_uri')
def test_a_deleted_network_leaves_live_hosts_now_and_the_others_when_back(conf):
    _hosts_up_and_away()
    asked = []

    class Hosts:
        def delete_network(self, host, network_id):
            asked.append(host)

    assert maintenance_networks.remove_from_hosts('n1', Hosts()) == ['away']
    assert asked == ['up']
    assert [(lo['host'], lo['name']) for lo in leftovers.list_open()] == \
        [('away', 'n1')]
    # Back, the worker's audit finds the network and removes it as recorded.
    drv = virt.get_driver()
    drv.ensure_network({'id': 'n1', 'cidr': '10.9.0.0/24', 'gateway': '10.9.0.1'})
    result = reconciler.reconcile_once('away', drv, _EngineInProcess())
    assert [(f.kind, f.name, f.recorded) for f in result] == [('network', 'n1', True)]
    assert drv.connection().listAllNetworks() == []
    assert leftovers.list_open() == []


def test_findings_cross_the_wire_unchanged():
    finding = found.Finding('orphan', 'domain', 'instance-x', 'x', 'h', 'why',
                            {'kind': 'domain'}, past_grace=True)
    assert found.from_dicts([finding.to_dict()]) == [finding]


def _distributed(monkeypatch, hosts):
    """The CLI's deployment is distributed, its hosts reached through ``hosts``."""
    from provisioner import deployment
    from provisioner.engine import deployments
    monkeypatch.setattr(deployments, 'build', lambda dispatching=False: (
        deployment.Deployment(deployment.DISTRIBUTED, hosts=hosts)))


def test_distributed_audit_asks_each_live_hosts_worker_and_names_the_down_ones(
        run, monkeypatch):  # noqa: F811
    _hosts_up_and_away()
    asked = []

    class Workers:
        def inventory(self, host):
            asked.append(host)
            return [inv.Resource('volume', 'volume-x.qcow2', 'x').to_dict()]

        def remove_resources(self, host, entries):
            return [{'kind': e['kind'], 'name': e['name'], 'error': None}
                    for e in entries]

    _distributed(monkeypatch, Workers())
    code, out, err = run('audit', '--fix')
    assert code == 1 and 'Host away is down' in err
    assert asked == ['up'] and 'removed' in out


def test_a_distributed_teardown_of_an_unknown_or_silent_host_says_so(
        run, monkeypatch):  # noqa: F811
    from provisioner import rpc

    _hosts_up_and_away()

    class SilentWorkers:
        def teardown(self, host):
            raise rpc.messaging().MessagingTimeout('no reply')

    _distributed(monkeypatch, SilentWorkers())
    assert run('host', 'teardown', 'nope')[::2] == (3, 'Error: Host nope not found.\n')
    assert run('host', 'teardown', 'away')[::2] == (
        4, 'Error: host away: its worker did not answer (MessagingTimeout); a teardown '
           'runs on the host itself: start provisioner-worker there and try again.\n')
