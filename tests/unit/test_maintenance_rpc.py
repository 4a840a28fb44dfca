"""The maintenance RPC namespace wired in-process (fake://): a worker's endpoint, an
engine's endpoint, their clients, and the version cap of [upgrade_levels]."""

import os
import uuid

import pytest

from provisioner.maintenance import audit
from provisioner.maintenance import host as host_side
from provisioner.maintenance import reconciler
from provisioner.maintenance import rpcapi
from provisioner import rpc
from provisioner import virt

from tests.unit.virt.conftest import test_uri  # noqa: F401 (fixture)
from tests import probes


@pytest.fixture
def served(conf, test_uri):  # noqa: F811
    rpc.register_transport_opts()  # transport_url, to override
    conf.set_override('transport_url', 'fake:///')
    driver = virt.get_driver()
    servers = [rpc.get_server(conf.worker.topic, conf.host,
                              [host_side.HostMaintenanceEndpoint(driver)]),
               rpc.get_server(conf.engine.topic, 'engine-1',
                              [audit.EngineMaintenanceEndpoint()])]
    for server in servers:
        server.start()
    yield driver
    for server in servers:
        server.stop()
        server.wait()
    rpc.cleanup()


def test_the_worker_lists_and_removes_through_the_namespace(served, conf):
    volume_id = str(uuid.uuid4())
    served.create_volume(volume_id, 1)
    workers = rpcapi.HostMaintenanceAPI(timeout=10)
    [entry] = workers.inventory(conf.host)
    assert (entry['kind'], entry['owner']) == ('volume', volume_id)
    assert workers.remove_resources(conf.host, [entry]) == [
        {'kind': 'volume', 'name': entry['name'], 'error': None}]
    assert not probes.volume_exists(served, volume_id)


def test_a_reconcile_round_goes_to_an_engine_and_back(served, conf):
    conf.set_override('reap_orphans', True, 'worker')
    conf.set_override('orphan_grace_period', 0, 'worker')
    volume_id = str(uuid.uuid4())
    served.create_volume(volume_id, 1)
    [finding] = reconciler.reconcile_once(conf.host, served)
    assert (finding.problem, finding.kind, finding.reason) == (
        'orphan', 'volume', 'volume unknown or its instance deleted')
    assert not probes.volume_exists(served, volume_id)


def test_a_client_capped_below_the_version_it_needs_refuses_to_send(served, conf):
    oslo_messaging = rpc.messaging()
    conf.set_override('maintenance', '0.9', 'upgrade_levels')
    with pytest.raises(oslo_messaging.RPCVersionCapError):
        rpcapi.HostMaintenanceAPI(timeout=10).inventory(conf.host)
    conf.set_override('maintenance', '1.0', 'upgrade_levels')
    assert rpcapi.HostMaintenanceAPI(timeout=10).inventory(conf.host) == []


def test_the_host_reads_its_instances_console_log(served, conf):
    instance_id = str(uuid.uuid4())
    workers = rpcapi.HostMaintenanceAPI(timeout=10)
    assert workers.console_output(conf.host, instance_id) == ''  # nothing printed yet
    path = served.console_log_path(instance_id)
    os.makedirs(os.path.dirname(path))
    with open(path, 'wb') as log:
        log.write(b'login: \xff<b>\n')
    assert workers.console_output(conf.host, instance_id) == 'login: \ufffd<b>\n'
    conf.set_override('maintenance', '1.0', 'upgrade_levels')  # an older worker's
    with pytest.raises(rpcapi.ConsoleUnavailable) as err:
        workers.console_output(conf.host, instance_id)
    assert str(err.value) == (
        'Console output of instance %s is not available yet: it is read by the '
        'worker of host %s with maintenance RPC 1.1, and [upgrade_levels] maintenance '
        'caps this service at 1.0; retry once the upgrade is done.'
        % (instance_id, conf.host))


def test_a_console_whose_worker_does_not_answer_says_so(served, conf):
    instance_id = str(uuid.uuid4())
    with pytest.raises(rpcapi.ConsoleUnavailable) as err:
        rpcapi.HostMaintenanceAPI(timeout=1).console_output('gone-host', instance_id)
    assert str(err.value) == (
        'Console output of instance %s is not available: the worker of host '
        'gone-host did not answer (MessagingTimeout); is provisioner-worker running '
        'there?' % instance_id)
