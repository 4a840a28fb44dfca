"""Stop, start and reboot as persisted flows, on test:/// and SQLite."""

import pytest
from taskflow import states as tf_states

from provisioner.compute import actions
from provisioner.compute import states
from provisioner.engine import runner
from tests.unit.flows.conftest import boot_request
from tests.unit.flows.conftest import run_until

from flows import constants as c


@pytest.fixture
def active(api):
    instance_id = boot_request(api)
    api.run_boot(instance_id)
    return instance_id


def _states(api, instance_id):
    info = api.show(instance_id)
    return info['vm_state'], info['power_state'], info['task_state']


def _events(action_id):
    action = actions.get_by_id(action_id)
    return [(e['event'], e['result'])
            for e in actions.show(action['instance_id'], action['request_id'])['events']]


def _run(api, instance_id, action, hard=False):
    instance_id, action_id = api.power_action(instance_id, action, hard=hard)
    return action_id, runner.run_action(instance_id, action_id)


def test_stop_then_start(api, hypervisor, active):
    action_id, state = _run(api, active, actions.STOP)
    assert state == tf_states.SUCCESS
    assert _states(api, active) == (states.STOPPED, states.SHUTDOWN, None)
    assert hypervisor.power_state(active) == 'shutdown'
    assert _events(action_id) == [(c.POWER_ACTION_GUARD, 'Success'),
                                  (c.POWER_OFF_DOMAIN, 'Success'),
                                  (c.RECORD_POWER_STATE, 'Success')]
    finished = actions.get_by_id(action_id)
    assert finished['finish_time'] is not None and finished['message'] is None

    action_id, state = _run(api, active, actions.START)
    assert state == tf_states.SUCCESS
    assert _states(api, active) == (states.ACTIVE, states.RUNNING, None)
    assert hypervisor.power_state(active) == 'running'
    assert [name for name, _ in _events(action_id)] == [
        c.POWER_ACTION_GUARD, c.POWER_ON_DOMAIN, c.RECORD_POWER_STATE]


@pytest.mark.parametrize('hard', [False, True])
def test_reboot(api, hypervisor, active, hard):
    action_id, state = _run(api, active, actions.REBOOT, hard=hard)
    assert state == tf_states.SUCCESS
    assert _states(api, active) == (states.ACTIVE, states.RUNNING, None)
    assert hypervisor.power_state(active) == 'running'
    assert (c.REBOOT_DOMAIN, 'Success') in _events(action_id)


def test_hard_reboot_starts_a_stopped_instance(api, hypervisor, active):
    _run(api, active, actions.STOP)
    _action_id, state = _run(api, active, actions.REBOOT, hard=True)
    assert state == tf_states.SUCCESS
    assert _states(api, active) == (states.ACTIVE, states.RUNNING, None)


def test_failed_stop_leaves_the_instance_active_and_says_why(api, hypervisor, conf,
                                                             active):
    conf.set_override('fail_after_step', [c.POWER_OFF_DOMAIN], 'fault_injection')
    action_id, state = _run(api, active, actions.STOP)
    assert state == tf_states.REVERTED
    assert _states(api, active) == (states.ACTIVE, states.RUNNING, None)
    assert hypervisor.power_state(active) == 'running'  # the revert restarted it
    action = actions.get_by_id(action_id)
    assert action['message'] == ('Error: %s: Injected fault at step %s'
                                 % (c.POWER_OFF_DOMAIN, c.POWER_OFF_DOMAIN))
    assert action['finish_time'] is not None
    assert (c.POWER_OFF_DOMAIN, 'Error') in _events(action_id)
    assert (c.POWER_OFF_DOMAIN + ' (revert)', 'Success') in _events(action_id)
    # The instance can be stopped once the fault is gone.
    conf.clear_override('fail_after_step', 'fault_injection')
    assert _run(api, active, actions.STOP)[1] == tf_states.SUCCESS


def test_failed_start_leaves_the_instance_stopped(api, hypervisor, conf, active):
    _run(api, active, actions.STOP)
    conf.set_override('fail_after_step', [c.POWER_ON_DOMAIN], 'fault_injection')
    _action_id, state = _run(api, active, actions.START)
    assert state == tf_states.REVERTED
    assert _states(api, active) == (states.STOPPED, states.SHUTDOWN, None)
    assert hypervisor.power_state(active) == 'shutdown'


def _interrupt_after(instance_id, action_id, step):
    """Run the persisted flow until ``step`` ends, then stop as a dying process would."""
    action = actions.get_by_id(action_id)
    flow_detail = runner.action_flow_detail(instance_id, action)
    run_until(runner._load_engine(flow_detail, instance_id,
                                  store={c.ACTION_ID: action_id, c.HOST: 'unit-host'}),
              step)


def test_stop_interrupted_after_its_host_step_resumes(api, hypervisor, active):
    instance_id, action_id = api.power_action(active, actions.STOP)
    _interrupt_after(instance_id, action_id, c.POWER_OFF_DOMAIN)
    assert _states(api, active) == (states.ACTIVE, states.RUNNING,
                                     states.POWERING_OFF)
    assert actions.unfinished() == [(instance_id, action_id)]

    assert runner.run_action(instance_id, action_id) == tf_states.SUCCESS
    assert _states(api, active) == (states.STOPPED, states.SHUTDOWN, None)
    # Only what had not run yet ran on resume.
    assert _events(action_id) == [(c.RECORD_POWER_STATE, 'Success')]
    assert actions.unfinished() == []


def test_a_finished_action_is_not_run_again(api, hypervisor, active):
    action_id, _state = _run(api, active, actions.STOP)
    hypervisor.power_on(active)  # whatever happened since is left alone
    assert runner.run_action(active, action_id) == tf_states.SUCCESS
    assert len(_events(action_id)) == 3
    assert hypervisor.power_state(active) == 'running'


def test_boot_and_delete_steps_are_their_actions_events(api, hypervisor):
    instance_id = boot_request(api)
    api.run_boot(instance_id)
    [create] = api.actions(instance_id)
    assert create['action'] == actions.CREATE and create['message'] is None
    assert create['finish_time'] is not None
    names = [e['event'] for e in api.action(instance_id, create['request_id'])['events']]
    assert names[0] == c.LIFECYCLE_GUARD and names[-1] == c.MARK_ACTIVE
    assert api.show(instance_id)['launched_at'] is not None

    api.delete(instance_id)
    delete = actions.latest(instance_id, actions.DELETE)
    assert delete['finish_time'] is not None and delete['message'] is None
    names = [e['event'] for e in actions.show(instance_id, delete['request_id'])['events']]
    assert names[0] == c.DESTROY_DOMAIN and names[-1] == c.MARK_DELETED


def test_a_failed_boot_finishes_its_action_with_the_fault(api, conf):
    conf.set_override('fail_after_step', [c.CREATE_VOLUMES], 'fault_injection')
    instance_id = boot_request(api)
    api.run_boot(instance_id)
    create = actions.latest(instance_id, actions.CREATE)
    assert create['message'] == ('Error: %s: Injected fault at step %s'
                                 % (c.CREATE_VOLUMES, c.CREATE_VOLUMES))
