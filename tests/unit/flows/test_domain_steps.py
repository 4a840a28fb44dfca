"""The domain steps alone, as the engine runs them in-process: execute and revert
called directly on test:///, with the resources a real boot prepared."""

import pytest
from taskflow import retry
from taskflow.types import failure as tf_failure

from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.engine import runner
from provisioner.engine.step_records import with_records
from tests.unit.flows.conftest import boot_request
from tests.unit.flows.conftest import run_until

from flows import constants as c
from flows.steps import domain

_RESOURCES = (c.ROOT_DISK, c.VOLUMES, c.CONFIG_DRIVE, c.PORTS, c.IMAGE_FILES)


@pytest.fixture
def prepared(api, conf):
    """An instance whose boot ran up to define-domain, and what that step gets."""
    conf.set_override('max_parallel_steps', 1, 'compute')  # steps in a known order
    instance_id = boot_request(api)
    with db_api.transaction() as session:
        flow_uuid = session.get(models.Instance, instance_id).flow_uuid
    engine = runner._load_engine(runner.boot_flow_detail(instance_id, flow_uuid), instance_id)
    run_until(engine, c.DEFINE_DOMAIN)
    return instance_id, {name: engine.storage.fetch(name) for name in _RESOURCES}


def _domains(hypervisor, instance_id):
    return [line for line in hypervisor.leftovers(instance_id) if line.startswith('domain')]


def test_define_then_its_revert(api, hypervisor, prepared):
    instance_id, resources = prepared
    step = with_records(domain.DefineDomain(c.DEFINE_DOMAIN))
    step.revert(instance_id=instance_id, result=None)
    step.revert(instance_id=instance_id, result=None)  # a resumed revert: nothing left
    assert _domains(hypervisor, instance_id) == []
    step.execute(instance_id=instance_id, **resources)
    step.execute(instance_id=instance_id, **resources)  # run again: the same domain
    assert len(_domains(hypervisor, instance_id)) == 1
    assert api.show(instance_id)['task_state'] == states.SPAWNING


def test_start_wait_then_revert_then_destroy(hypervisor, prepared):
    instance_id, _resources = prepared
    with pytest.raises(domain.DomainStopped):  # defined, not started
        domain.WaitForBoot(c.WAIT_FOR_BOOT).execute(instance_id=instance_id)
    start = domain.StartDomain(c.START_DOMAIN)
    start.execute(instance_id=instance_id)
    start.execute(instance_id=instance_id)  # starting a running domain: a no-op
    domain.WaitForBoot(c.WAIT_FOR_BOOT).execute(instance_id=instance_id)
    assert hypervisor.power_state(instance_id) == 'running'
    start.revert(instance_id=instance_id, result=None)
    start.revert(instance_id=instance_id, result=None)
    assert hypervisor.power_state(instance_id) != 'running'
    destroy = domain.DestroyDomain(c.DESTROY_DOMAIN)
    destroy.execute(instance_id=instance_id)
    destroy.execute(instance_id=instance_id)
    assert _domains(hypervisor, instance_id) == []
    files = domain.DeleteInstanceFiles(c.DELETE_INSTANCE_FILES)
    files.execute(instance_id=instance_id)
    files.execute(instance_id=instance_id)


def _poll_history(*errors):
    return retry.History([(index, {c.WAIT_FOR_BOOT: tf_failure.Failure.from_exception(
        exc)}) for index, exc in enumerate(errors)])


def test_power_state_poll_retries_only_not_running_yet_until_its_timeout(monkeypatch):
    """The wait-for-boot retry controller alone: it polls 'not running yet' within
    its timeout and hands anything else, or the timeout, to the reschedule."""
    slept = []
    monkeypatch.setattr(domain.time, 'sleep', slept.append)
    poll = domain.PowerStatePoll(c.WAIT_FOR_BOOT_RETRY, timeout=1.0, interval=0.5)
    waiting = domain.DomainNotRunningYet(instance='i', state='paused')
    stopped = domain.DomainStopped(instance='i', state='shutdown')
    assert poll.on_failure(_poll_history(waiting)) == retry.RETRY
    assert poll.on_failure(_poll_history(waiting, waiting)) == retry.REVERT  # timeout
    assert poll.on_failure(_poll_history(stopped)) == retry.REVERT
    poll.execute(_poll_history())
    assert slept == []  # the first check runs at once
    poll.execute(_poll_history(waiting))
    assert slept == [0.5]


def test_power_state_poll_knows_not_running_yet_as_release_2_1_named_it():
    """A worker of release 2.1, or a boot that release persisted, names the error by
    the class path it had there; the failure keeps that name across the wire."""
    failure = tf_failure.Failure.from_exception(
        domain.DomainNotRunningYet(instance='i', state='paused')).to_dict()
    failure['exc_type_names'][0] = 'flows.host.domain_steps.DomainNotRunningYet'
    history = retry.History([(0, {c.WAIT_FOR_BOOT: tf_failure.Failure.from_dict(
        failure)})])
    poll = domain.PowerStatePoll(c.WAIT_FOR_BOOT_RETRY, timeout=1.0, interval=0.5)
    assert poll.on_failure(history) == retry.RETRY
