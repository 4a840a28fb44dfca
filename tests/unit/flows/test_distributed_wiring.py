"""Conductor, RPC executor and worker wired together in-process (fake:// transport).

The real pieces talk through oslo.messaging's in-memory driver: the conductor runs a
boot job, host-side steps travel to the worker endpoint and back, failures keep their
type and message, and the job ends as the flow ended.
"""

import base64
import json
import threading
import types
import time
import uuid

import pytest
import sqlalchemy as sa
from taskflow.types import failure as tf_failure

from provisioner.catalog import hosts
from provisioner.compute import api as compute_api
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.engine import conductor
from provisioner.engine import jobs
from provisioner.engine import reports
from provisioner.identity import service as identity
from provisioner.maintenance import audit
from provisioner import rpc
from provisioner.worker import endpoint
from provisioner.worker import rpcapi as worker_rpcapi
from provisioner.worker import service
from tests.unit import fixtures
from tests.unit.flows.conftest import boot_request

from flows.steps import registry


class FakeJob:
    def __init__(self, name, details):
        self.name, self.details, self.uuid = name, details, str(uuid.uuid4())
        self.owner = None

    def extend_expiry(self, ttl):
        pass


class FakeBoard:
    """The jobboard's contract, in memory: post, claim, consume, trash, abandon."""

    def __init__(self):
        self.jobs, self.trashed, self.consumed = [], [], []

    def post(self, name, details):
        job = FakeJob(name, details)
        self.jobs.append(job)
        return job

    def iterjobs(self, only_unclaimed=False, ensure_fresh=False):
        return [j for j in self.jobs if not (only_unclaimed and j.owner)]

    def claim(self, job, who, expiry=None):
        job.owner = who

    def consume(self, job, who):
        self.jobs.remove(job)
        self.consumed.append(job.name)

    def trash(self, job, who):
        self.jobs.remove(job)
        self.trashed.append(job.name)

    def abandon(self, job, who):
        job.owner = None


def _wait_for(condition, timeout=10):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, 'timed out'
        time.sleep(0.02)


@pytest.fixture
def cluster(conf, catalog, admin_context):
    """A worker for this host and an engine's report endpoint, served over fake://;
    an engine-side compute API. The host exists once the worker's report arrived."""
    rpc.register_transport_opts()  # transport_url, to override
    conf.set_override('transport_url', 'fake:///')
    conf.set_override('heartbeat_timeout', 5, 'worker')
    # Served as provisioner-engine serves them: the worker's audit at start asks too.
    engine = rpc.get_server(conf.engine.topic, 'engine-1',
                            [reports.WorkerReportsEndpoint(),
                             audit.EngineMaintenanceEndpoint()])
    engine.start()
    worker = service.WorkerService()
    worker.start()
    waiter = threading.Thread(target=worker.wait)
    waiter.start()
    _wait_for(lambda: any(h['name'] == conf.host for h in hosts.list_all()))
    yield compute_api.ComputeAPI(admin_context, fixtures.deployment())
    worker.stop()
    waiter.join()
    engine.stop()
    engine.wait()
    rpc.cleanup()


def _run_job(board, instance_id):
    job = board.post(jobs.job_name(jobs.BOOT, instance_id),
                     {'action': jobs.BOOT, 'instance_id': instance_id})
    engine = conductor.Conductor(board)
    board.claim(job, engine.name)
    engine._work(conductor._Run(job))


def test_a_boot_job_runs_host_steps_on_the_worker_and_is_consumed(cluster):
    board = FakeBoard()
    instance_id = boot_request(cluster)
    _run_job(board, instance_id)
    info = cluster.show(instance_id)
    assert (info['vm_state'], info['power_state']) == ('active', 'running')
    assert board.consumed == ['boot-%s' % instance_id] and board.jobs == []


def test_a_failure_on_the_worker_keeps_its_type_and_the_job_is_trashed(cluster, conf):
    conf.set_override('fail_after_step', ['create-volumes'], 'fault_injection')
    board = FakeBoard()
    instance_id = boot_request(cluster)
    _run_job(board, instance_id)
    info = cluster.show(instance_id)
    assert info['vm_state'] == 'error'
    # InjectedFault is a ProvisionerError: recognised by type name across the wire.
    assert info['fault'] == 'create-volumes: Injected fault at step create-volumes'
    assert board.trashed == ['boot-%s' % instance_id]


def test_the_worker_runs_only_provisioner_host_steps():
    # Only registered names (and release 2.1's host step paths) are run: not a class
    # path of this release, not an engine half, not a helper, not a name made up.
    for step in ('os.system', 'flows.tasks.scheduler_tasks.ClaimResources',
                 'flows.tasks.domain_tasks.DestroyDomain', 'flows.host.base.driver',
                 'flows.host.nope.Missing', 'flows.steps.domain.DestroyDomainOnHost',
                 'flows.steps.base.driver', 'domain.nope', 'scheduling.claim', '',
                 None, ['domain.destroy']):
        reply = endpoint.run_step('h', step, 'x', {'instance_id': 'i'})
        failure = worker_rpcapi.decode_result(reply)
        assert isinstance(failure, tf_failure.Failure)
        assert failure.check(registry.UnknownStep), step


def test_a_step_that_arrives_after_its_sender_gave_up_is_not_run():
    reply = endpoint.HostStepsEndpoint('h').run_step(
        {}, 'domain.destroy', 'destroy-domain',
        {'instance_id': str(uuid.uuid4())}, deadline=time.time() - 1)
    assert worker_rpcapi.decode_result(reply).check(endpoint.StaleRequest)


def test_only_the_config_drive_step_carries_user_data_and_no_message_a_secret(
        cluster, conf, monkeypatch):
    """What reaches a worker, run and undo alike (a boot, then one rolled back): the
    user data in build-config-drive's payload only; never a password, its hash, a
    token or the deployment's connection URLs."""
    sent = []  # (step name, its payload as sent)
    run, undo = endpoint.run_step, endpoint.undo_step

    def recording_run(host, step, name, payload):
        sent.append((name, json.dumps(payload)))
        return run(host, step, name, payload)

    def recording_undo(step, name, payload, result):
        sent.append((name, json.dumps(payload)))
        return undo(step, name, payload, result)

    monkeypatch.setattr(endpoint, 'run_step', recording_run)
    monkeypatch.setattr(endpoint, 'undo_step', recording_undo)
    user_data = b'#cloud-config\nsecret-sauce: 42\n'
    board = FakeBoard()
    _run_job(board, boot_request(cluster, user_data=user_data))
    conf.set_override('fail_after_step', ['define-domain'], 'fault_injection')
    _run_job(board, boot_request(cluster, name='vm2', user_data=user_data))

    names = {name for name, _ in sent}
    assert {'build-config-drive', 'define-domain', 'reserve-dhcp'} <= names
    assert len(names) < len(sent)  # undos were sent too
    encoded = base64.b64encode(user_data).decode()
    assert {name for name, payload in sent if encoded in payload} == \
        {'build-config-drive'}
    with db_api.transaction() as session:
        hashes = session.execute(sa.select(models.User.password_hash)).scalars().all()
    secrets = [s for s in ['admin-secret', conf.transport_url, conf.database.connection,
                           identity.authenticate('admin', 'admin-secret', 'admin')]
               + hashes if s]
    assert [(name, s) for name, payload in sent for s in secrets if s in payload] == []


def test_a_cleanup_the_worker_could_not_do_reaches_the_fault_and_the_leftovers(
        cluster, conf, monkeypatch):
    """Distributed, an undo's failed cleanup crosses the wire as its result; the
    engine records it (kind, name, host, error) and names it in the fault."""
    from provisioner import exception
    from provisioner.virt import driver

    def pool_gone(self, volume_id):
        raise exception.HypervisorError(reason='pool gone')

    monkeypatch.setattr(driver.LibvirtDriver, 'delete_volume', pool_gone)
    conf.set_override('fail_after_step', ['create-volumes'], 'fault_injection')
    instance_id = boot_request(cluster)
    _run_job(FakeBoard(), instance_id)
    info = cluster.show(instance_id)
    assert info['vm_state'] == 'error'
    assert 'cleanup failed: create-volumes: delete volume' in info['fault']
    [left] = info['leftovers']
    assert (left['kind'], left['host'], left['instance_id']) == (
        'volume', conf.host, instance_id)
    assert left['name'].startswith('volume-') and 'pool gone' in left['error']


def test_a_job_that_failed_unexpectedly_is_left_alone_for_a_while(conf, monkeypatch):
    board = FakeBoard()
    job = board.post(jobs.job_name(jobs.BOOT, str(uuid.uuid4())),
                     {'action': jobs.BOOT, 'instance_id': str(uuid.uuid4())})
    attempts = []

    def broken(*args, **kwargs):
        attempts.append(args)
        raise RuntimeError('the database is on fire')

    monkeypatch.setattr(conductor.leases, 'acquire', broken)
    clock = [1000.0]
    monkeypatch.setattr(conductor, 'time', types.SimpleNamespace(monotonic=lambda: clock[0]))
    engine = conductor.Conductor(board)

    def poll():
        engine._claim_jobs()
        _wait_for(lambda: not engine._running)

    poll()
    assert len(attempts) == 1 and job.owner is None  # handed back
    poll()
    assert len(attempts) == 1  # not claimed again at once
    clock[0] += conductor.RETRY_DELAY_FIRST + 0.1
    poll()
    assert len(attempts) == 2  # after the first delay it is tried again...
    clock[0] += conductor.RETRY_DELAY_FIRST + 0.1
    poll()
    assert len(attempts) == 2  # ...and then waits twice as long
    clock[0] += conductor.RETRY_DELAY_FIRST
    poll()
    assert len(attempts) == 3
    engine._pool.shutdown()
