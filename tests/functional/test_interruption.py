"""A failure or kill -9 at each step of a real boot: undone or resumed, never half-made."""

import signal
import time

import pytest

BOOT_STEPS = ['instance-lifecycle-guard', 'hold-quota', 'select-hosts', 'claim-resources',
              'fetch-image', 'create-root-disk', 'allocate-ports', 'reserve-dhcp',
              'create-volumes', 'build-config-drive', 'define-domain', 'start-domain',
              'wait-for-boot']


def _crash_boot(cloud, name, step):
    result = cloud.boot(name, '--volume-size', 1, check=False,
                        env={'OS_FAULT_INJECTION__CRASH_AFTER_STEP': step})
    assert result.returncode == -signal.SIGKILL, result.stderr
    instance = cloud.show(name)
    assert instance['vm_state'] == 'building'
    return instance


@pytest.mark.parametrize('step', BOOT_STEPS)
def test_failure_after_step_ends_in_error_with_nothing_left(cloud, booted, step):
    name = 'fail-%s' % step
    booted.append(name)
    result = cloud.boot(name, '--volume-size', 1, check=False,
                        env={'OS_FAULT_INJECTION__FAIL_AFTER_STEP': step})
    assert result.returncode == 1
    assert 'failed and was rolled back' in result.stderr
    instance = cloud.show(name)
    assert instance['vm_state'] == 'error'
    assert instance['fault'] == '%s: Injected fault at step %s' % (step, step)
    assert cloud.leftovers(instance) == []


@pytest.mark.parametrize('step', BOOT_STEPS)
def test_kill_after_step_then_rollback_leaves_nothing(cloud, booted, step):
    name = 'kill-rb-%s' % step
    booted.append(name)
    instance = _crash_boot(cloud, name, step)
    result = cloud.cli('rollback', name)
    assert 'rolled back' in result.stdout
    after = cloud.show(name)
    assert after['vm_state'] == 'error'
    assert cloud.leftovers(instance) == []


@pytest.mark.parametrize('step', BOOT_STEPS)
def test_kill_after_step_then_resume_boots_the_guest(cloud, booted, step):
    name = 'kill-rs-%s' % step
    booted.append(name)
    _crash_boot(cloud, name, step)
    cloud.cli('resume', name)
    instance = cloud.show(name)
    assert (instance['vm_state'], instance['power_state']) == ('active', 'running')
    guest = cloud.wait_for_console(instance)
    assert guest['ip'] == instance['addresses'][0]['ip']
    assert guest['uuid'] == instance['id']
    # Exactly one of each: the re-run step adopted what the killed run had made.
    assert len(instance['addresses']) == 1 and len(instance['volumes']) == 1
    assert guest['disks'].split() == ['vda', 'vdb', 'vdc']


def test_resume_refuses_a_boot_that_is_still_running_elsewhere(cloud, booted):
    booted.append('busy')
    cloud.boot('busy', '--no-wait')
    # The background process sets task_state only while it holds the instance.
    deadline = time.monotonic() + 60
    while cloud.show('busy')['task_state'] is None and \
            cloud.show('busy')['vm_state'] == 'building':
        assert time.monotonic() < deadline, 'the background boot never started'
        time.sleep(0.05)
    result = cloud.cli('resume', 'busy', check=False)
    # Either the background boot still holds the instance, or it already finished.
    assert result.returncode != 0
    assert ('being worked on by process' in result.stderr
            or 'only an interrupted boot' in result.stderr)


def test_ctrl_c_during_boot_says_how_to_continue_and_resume_works(cloud, booted):
    booted.append('ctrl-c')
    proc = cloud.popen('boot', 'ctrl-c', '--flavor', 'tiny', '--image', 'guest',
                       '--network', 'net1', '--volume-size', 1)
    for line in proc.stdout:  # interrupt once the preparation steps are under way
        if 'claim-resources' in line:
            proc.send_signal(signal.SIGINT)
            break
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert 'provisioner resume' in err and 'provisioner rollback' in err
    cloud.cli('resume', 'ctrl-c')
    instance = cloud.show('ctrl-c')
    assert instance['vm_state'] == 'active'
    assert cloud.wait_for_console(instance)['ip'] == instance['addresses'][0]['ip']
