"""Each power step alone: execute and revert called directly, on test:///."""

import pytest
from taskflow.types import failure as tf_failure

from provisioner.compute import actions
from provisioner.compute import states
from provisioner import exception
from provisioner.engine.step_records import with_records
from tests.unit.flows.conftest import boot_request

from flows import constants as c
from flows.steps import power


@pytest.fixture
def active(api):
    instance_id = boot_request(api)
    api.run_boot(instance_id)
    return instance_id


def _failure(step):
    return tf_failure.Failure.from_exception(exception.InjectedFault(step=step))


def _state(api, instance_id):
    info = api.show(instance_id)
    return info['vm_state'], info['power_state'], info['task_state']


def test_guard_revert_clears_the_task_and_records_the_fault(api, active):
    instance_id, action_id = api.power_action(active, actions.STOP)
    guard = with_records(power.PowerActionGuard(c.POWER_ACTION_GUARD))
    guard.execute(instance_id, action_id)
    assert _state(api, active) == (states.ACTIVE, states.RUNNING, states.POWERING_OFF)
    failures = {c.POWER_OFF_DOMAIN: _failure(c.POWER_OFF_DOMAIN)}
    guard.revert(instance_id, action_id, result=None, flow_failures=failures)
    guard.revert(instance_id, action_id, result=None, flow_failures=failures)
    assert _state(api, active) == (states.ACTIVE, states.RUNNING, None)
    assert actions.get_by_id(action_id)['message'] == (
        'Error: power-off-domain: Injected fault at step power-off-domain')


def test_power_off_then_its_revert(active, hypervisor):
    step = power.PowerOffDomain(c.POWER_OFF_DOMAIN)
    assert step.execute(instance_id=active) is True
    assert step.execute(instance_id=active) is True  # already off: harmless
    assert hypervisor.power_state(active) == 'shutdown'
    step.revert(active, result=_failure(c.POWER_OFF_DOMAIN))
    step.revert(active, result=True)
    assert hypervisor.power_state(active) == 'running'


def test_power_off_waits_the_configured_timeout(active, hypervisor, conf, monkeypatch):
    conf.set_override('shutdown_timeout', 7, 'compute')
    seen = []
    monkeypatch.setattr(type(hypervisor), 'power_off',
                        lambda self, uuid, timeout: seen.append(timeout) or True)
    power.PowerOffDomain(c.POWER_OFF_DOMAIN).execute(instance_id=active)
    assert seen == [7]


def test_power_on_then_its_revert(active, hypervisor):
    hypervisor.power_off(active, 0)
    step = power.PowerOnDomain(c.POWER_ON_DOMAIN)
    step.execute(instance_id=active)
    step.execute(instance_id=active)
    assert hypervisor.power_state(active) == 'running'
    step.revert(active, result=None)
    step.revert(active, result=None)
    assert hypervisor.power_state(active) == 'shutdown'


@pytest.mark.parametrize('hard', [False, True])
def test_reboot_then_its_revert(active, hypervisor, monkeypatch, hard):
    calls = []
    original = type(hypervisor).reboot
    monkeypatch.setattr(type(hypervisor), 'reboot', lambda self, uuid, hard: (
        calls.append(hard), original(self, uuid, hard)))
    step = power.RebootDomain(c.REBOOT_DOMAIN)
    step.execute(instance_id=active, hard=hard)
    assert calls == [hard]
    assert hypervisor.power_state(active) == 'running'
    hypervisor.power_off(active, 0)  # say the reboot died half-way
    step.revert(active, result=_failure(c.REBOOT_DOMAIN))
    assert hypervisor.power_state(active) == 'running'


def test_record_power_state_concludes_the_action(api, active):
    instance_id, action_id = api.power_action(active, actions.STOP)
    step = with_records(power.RecordPowerState(c.RECORD_POWER_STATE))
    step.execute(instance_id, action_id, actions.STOP)
    step.execute(instance_id, action_id, actions.STOP)
    assert _state(api, active) == (states.STOPPED, states.SHUTDOWN, None)
    action = actions.get_by_id(action_id)
    assert action['finish_time'] is not None and action['message'] is None
