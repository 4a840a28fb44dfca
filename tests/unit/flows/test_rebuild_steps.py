"""Each rebuild step alone: execute and revert called directly, on test:///."""

import os

from provisioner.compute import actions
from provisioner.compute import instances
from provisioner.compute import states
from provisioner.engine.step_records import with_records
from tests.unit.flows.test_power_steps import _failure, _state
from tests.unit.flows.test_power_steps import active  # noqa: F401 - fixture

from flows import constants as c
from flows import rebuild as rebuild_flow
from flows.steps import rebuild


def test_the_guard_revert_restores_the_row_and_records_the_fault(
        api, active):  # noqa: F811
    instance_id, action_id = api.rebuild(active, 'guest', name='again',
                                         properties={'k': 'v'}, user_data=b'new')
    assert instances.current_request(active).name == 'again'
    guard = with_records(rebuild.RebuildGuard(c.REBUILD_GUARD))
    guard.execute(instance_id, action_id)
    failures = {c.SWAP_ROOT_DISK: _failure(c.SWAP_ROOT_DISK)}
    guard.revert(instance_id, action_id, result=None, flow_failures=failures)
    guard.revert(instance_id, action_id, result=None, flow_failures=failures)
    request = instances.current_request(active)
    assert (request.name, dict(request.properties)) == ('vm1', {})
    assert instances.user_data(active) == b'hello'
    assert _state(api, active) == (states.ACTIVE, states.RUNNING, None)
    assert actions.get_by_id(action_id)['message'] == (
        'Error: swap-root-disk: Injected fault at step swap-root-disk')


def test_power_off_reverts_to_running_only_for_a_server_that_ran(
        api, active, hypervisor):  # noqa: F811
    api.rebuild(active, 'guest')
    step = with_records(rebuild.PowerOffForRebuild(c.POWER_OFF_FOR_REBUILD))
    step.execute(instance_id=active)
    assert hypervisor.power_state(active) == 'shutdown'
    step.revert(instance_id=active, result=_failure(c.POWER_OFF_FOR_REBUILD))
    assert hypervisor.power_state(active) == 'running'
    instances.update(active, task_state=None, vm_state=states.STOPPED)
    hypervisor.power_off(active, 0)
    api.rebuild(active, 'guest')
    step.execute(instance_id=active)
    step.revert(instance_id=active, result=True)
    assert hypervisor.power_state(active) == 'shutdown'


def test_the_config_drive_is_rewritten_and_its_revert_puts_the_old_one_back(
        api, active, hypervisor):  # noqa: F811
    path = hypervisor.config_drive_path(active)
    with open(path, 'rb') as f:
        old = f.read()
    api.rebuild(active, 'guest', name='again', user_data=b'second')
    step = with_records(rebuild.RebuildConfigDrive(c.REBUILD_CONFIG_DRIVE))
    step.execute(instance_id=active)
    step.execute(instance_id=active)  # a re-run keeps the first drive aside
    with open(path, 'rb') as f:
        new = f.read()
    assert new != old and b'second' in new and b'again' in new
    step.revert(instance_id=active, result=None)
    with open(path, 'rb') as f:
        assert f.read() == old
    assert not os.path.exists(path + '.previous')


def test_redefine_takes_the_new_boot_and_its_revert_the_old_definition(
        api, active, hypervisor, tmp_path):  # noqa: F811
    (tmp_path / 'vmlinuz2').write_bytes(b'other kernel')
    before = hypervisor._guest(active).xml(live=False)
    api.rebuild(active, 'guest', name='again')
    files = {'kernel': str(tmp_path / 'vmlinuz2'), 'cmdline': 'quiet'}
    step = with_records(rebuild.RedefineDomain(c.REDEFINE_DOMAIN))
    result = step.execute(instance_id=active, rebuild_image_files=files)
    after = hypervisor._guest(active).xml(live=False)
    assert 'vmlinuz2' in after and 'again' in after
    assert after.count('<disk') == before.count('<disk')  # its devices stay
    step.revert(instance_id=active, rebuild_image_files=files, result=result)
    assert hypervisor._guest(active).xml(live=False) == before


def test_the_flow_of_a_stopped_server_starts_nothing():
    running = [atom for atom, _ in rebuild_flow.rebuild_flow(False).iter_nodes()]
    stopped = [atom for atom, _ in rebuild_flow.rebuild_flow(True).iter_nodes()]
    assert len(running) == len(stopped) + 2
    assert c.START_REBUILT_DOMAIN not in [atom.name for atom in stopped]
