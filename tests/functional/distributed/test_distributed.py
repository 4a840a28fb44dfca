"""Engines and workers as real daemons on RabbitMQ, PostgreSQL and Redis, real guests."""

import datetime
import shutil
import signal
import subprocess
import threading
import time

import pytest

from provisioner.db import models

from tests.functional.distributed.conftest import MAIN_ENGINE
from tests.functional import test_interruption

BOOT_STEPS = test_interruption.BOOT_STEPS + ['mark-active']


def _assert_booted_once(dcloud, instance):
    """Active, running, and exactly one domain, one IP and one claim."""
    assert (instance['vm_state'], instance['power_state']) == ('active', 'running')
    guest = dcloud.wait_for_console(instance)
    assert guest['uuid'] == instance['id']
    assert [a['ip'] for a in instance['addresses']] == [guest['ip']]
    assert len(dcloud.query('SELECT ip FROM ports WHERE instance_id = ?',
                            (instance['id'],))) == 1
    assert len(dcloud.query('SELECT host_id FROM allocations WHERE instance_id = ?',
                            (instance['id'],))) == 1
    assert len(instance['volumes']) == 1
    assert guest['disks'].split() == ['vda', 'vdb', 'vdc']


def test_boots_run_through_engines_and_land_on_both_workers(dcloud, engine, dbooted):
    dcloud.start('engine', 'func-engine-second')
    names = ['dist-a', 'dist-b', 'dist-c', 'dist-d']
    dbooted.extend(names)
    results = {}
    # One at a time first: the scheduler spreads, so these two take both hosts.
    for name in names[:2]:
        results[name] = dcloud.boot(name, '--volume-size', 1, check=False)

    def boot(name):
        results[name] = dcloud.boot(name, '--volume-size', 1, check=False)

    threads = [threading.Thread(target=boot, args=(n,)) for n in names[2:]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for name in names:
        assert results[name].returncode == 0, results[name].stderr
        assert 'create-volumes' in results[name].stdout  # live step progress
        _assert_booted_once(dcloud, dcloud.show(name))
    hosts = {dcloud.show(name)['host'] for name in names}
    assert hosts == {'func-worker-a', 'func-worker-b'}
    dcloud.stop_cleanly('func-engine-second')


def _crash_engine_after(dcloud, name, step, claim_ttl=3):
    """Boot with an engine that kills itself (SIGKILL) right after step; then start
    the main engine, which takes the boot over once the dead engine's claim expires
    (claim_ttl seconds after its last heartbeat)."""
    if MAIN_ENGINE in dcloud.processes:  # the doomed engine must be the one to claim
        dcloud.retire(MAIN_ENGINE)
    dcloud.start('engine', 'func-engine-doomed',
                 # A slow first look at the board: it answers the CLI's create
                 # before it claims the boot and dies.
                 '[engine]\npoll_interval = 1\nclaim_ttl = %s\n'
                 '[fault_injection]\ncrash_after_step = %s\n' % (claim_ttl, step))
    # The CLI's own follow-up call may reach the doomed engine as it dies: it is
    # sent again and answered by the main engine, so let it finish in the background.
    cli = dcloud.popen('boot', name, '--flavor', 'tiny', '--image', 'guest',
                       '--network', 'net1', '--volume-size', 1, '--no-wait')
    assert dcloud.wait_exit('func-engine-doomed') == -signal.SIGKILL
    dcloud.ensure_engine()
    return cli


def _finished(cli):
    out, err = cli.communicate(timeout=120)
    assert cli.returncode == 0, err


@pytest.mark.parametrize('step', BOOT_STEPS)
def test_engine_killed_after_step_is_taken_over_to_active(dcloud, dbooted, step):
    name = 'takeover-%s' % step
    dbooted.append(name)
    _finished(_crash_engine_after(dcloud, name, step))
    _assert_booted_once(dcloud, dcloud.wait_for_state(name, ('active', 'error')))
    # The timeline shows the step the dead engine left running, run again after it.
    events = [(e['name'], e['result']) for e in dcloud.show(name)['events']]
    assert (step, 'Interrupted') in events
    assert events.index((step, 'Interrupted')) < len(events) - events[::-1].index(
        (step, 'Success')) - 1


@pytest.mark.parametrize('step', BOOT_STEPS[:-1])
def test_engine_killed_after_step_then_rollback_leaves_nothing(dcloud, dbooted, step):
    name = 'takeover-rb-%s' % step
    dbooted.append(name)
    # The dead engine's claim outlives it by 10 s: the rollback is requested before
    # the main engine can take the boot over (after the last steps a takeover can
    # finish the boot faster than the CLI starts).
    cli = _crash_engine_after(dcloud, name, step, claim_ttl=10)
    result = dcloud.cli('rollback', name)
    _finished(cli)
    assert 'rolled back' in result.stdout
    instance = dcloud.show(name)
    assert instance['vm_state'] == 'error'
    assert dcloud.leftovers(instance) == []


def test_sigterm_hands_a_running_boot_to_another_engine(dcloud, engine, dbooted):
    dbooted.append('handover')
    dcloud.start('engine', 'func-engine-leaving')
    dcloud.retire(engine)  # only the leaving engine claims the boot
    proc = dcloud.popen('boot', 'handover', '--flavor', 'tiny', '--image', 'guest',
                        '--network', 'net1', '--volume-size', 1)
    for line in proc.stdout:
        if 'claim-resources' in line:
            break
    dcloud.start('engine', engine)
    dcloud.stop_cleanly('func-engine-leaving')
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    _assert_booted_once(dcloud, dcloud.show('handover'))


def _stopped(proc):
    """Whether the process is stopped (SIGSTOP): state T in /proc/<pid>/stat."""
    with open('/proc/%d/stat' % proc.pid) as stat:
        return stat.read().rpartition(')')[2].split()[0] == 'T'


def _wait_until(predicate, timeout, what):
    """What predicate() returned once true, and when (time.monotonic())."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found, time.monotonic()
        time.sleep(0.05)
    raise AssertionError('%s did not happen within %d s' % (what, timeout))


def test_engine_stalled_while_taking_a_lease_is_taken_over(dcloud, dbooted):
    """The worst instant for a stall: the lease row written but not committed (its
    row locked), no claim renewed, no step run. Another engine holds the boot
    within claim_ttl + 2 s of the stop, its own start-up included."""
    name, claim_ttl, doomed = 'stalled', 3, 'func-engine-stalled'
    dbooted.append(name)
    if MAIN_ENGINE in dcloud.processes:  # the stalled engine must be the one to claim
        dcloud.retire(MAIN_ENGINE)
    conf = '[engine]\nclaim_ttl = %s\n' % claim_ttl
    # A slow first look at the board: it answers the CLI's create before it claims.
    dcloud.start('engine', doomed, conf + 'poll_interval = 1\n[fault_injection]\n'
                                          'stop_taking_lease = true\n')
    try:
        cli = dcloud.popen('boot', name, '--flavor', 'tiny', '--image', 'guest',
                           '--network', 'net1', '--no-wait')
        _, stopped_at = _wait_until(lambda: _stopped(dcloud.processes[doomed]), 60,
                                    'the engine stopping itself')
        dcloud.start('engine', MAIN_ENGINE, conf)
        (owner,), taken_at = _wait_until(
            lambda: dcloud.query('SELECT l.owner FROM instance_leases l JOIN instances i'
                                 ' ON i.id = l.instance_id WHERE i.name = ?'
                                 " AND l.owner LIKE ?", (name, MAIN_ENGINE + ':%')),
            30, 'a takeover of the stalled boot')
        assert taken_at - stopped_at <= claim_ttl + 2, taken_at - stopped_at
        instance = dcloud.wait_for_state(name, ('active', 'error'))
        assert (instance['vm_state'], instance['power_state']) == ('active', 'running')
        _finished(cli)
    finally:
        dcloud.stop(doomed, signal.SIGKILL)


def _wait_until_replayed(dcloud, instance, timeout=30):
    """The engine that takes a returned worker's first report replays what was
    deferred to its host: nothing of the instance is left, no step waits."""
    deadline = time.monotonic() + timeout
    while True:
        left = dcloud.leftovers(instance)
        waiting = dcloud.query('SELECT count(*) FROM deferred_host_steps')
        if (left, waiting) == ([], [(0,)]) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert (left, waiting) == ([], [(0,)])


def test_worker_killed_mid_boot_fails_the_boot_and_cleans_up_when_back(dcloud, engine,
                                                                       dbooted):
    dbooted.append('lost-worker')
    doomed, other = 'func-worker-a', 'func-worker-b'
    dcloud.cli('host', 'disable', other)  # the boot must land on the doomed worker
    dcloud.retire(doomed)
    dcloud.start('worker', doomed, '[fault_injection]\ncrash_after_step = define-domain\n')
    try:
        result = dcloud.boot('lost-worker', '--volume-size', 1, check=False)
        # It died right after defining the domain: start-domain gets no answer.
        assert dcloud.wait_exit(doomed) == -signal.SIGKILL
        assert result.returncode == 1, result.stderr
        instance = dcloud.show('lost-worker')
        assert instance['vm_state'] == 'error'
        assert any('did not answer step define-domain' in (event['message'] or '')
                   for event in instance['events'])
        assert dcloud.leftovers(instance) != []  # its host could not be cleaned yet
        dcloud.start('worker', doomed)  # an engine replays the deferred reverts
        _wait_until_replayed(dcloud, instance)
    finally:
        if doomed not in dcloud.processes:
            dcloud.start('worker', doomed)
        dcloud.cli('host', 'enable', other)


def test_deleting_an_instance_whose_worker_is_down_finishes_when_it_returns(
        dcloud, engine, dbooted):
    dcloud.boot('orphan', '--volume-size', 1)
    instance = dcloud.show('orphan')
    dcloud.stop(instance['host'], signal.SIGKILL)
    try:
        dcloud.cli('delete', 'orphan')  # the host's cleanup steps are deferred
        assert dcloud.leftovers(instance) != []
    finally:
        dcloud.start('worker', instance['host'])
    _wait_until_replayed(dcloud, instance)


def _wait_for_row(dcloud, name, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = dcloud.query('SELECT vm_state FROM instances WHERE name = ?', (name,))
        if rows:
            return rows[0][0]
        time.sleep(0.05)
    raise AssertionError('no instance %s after %d s' % (name, timeout))


def test_rabbitmq_restarted_mid_boot_the_boot_completes(dcloud, dbooted):
    rabbitmqctl = shutil.which('rabbitmqctl')
    if rabbitmqctl is None:
        pytest.skip('rabbitmqctl is not installed: the broker is not on this machine')
    dbooted.append('broker-restart')
    # An engine that looks at the board every 2 s: the broker goes down after the
    # boot was accepted and before its first host-side step reached a worker.
    if MAIN_ENGINE in dcloud.processes:
        dcloud.retire(MAIN_ENGINE)
    dcloud.start('engine', 'func-engine-patient', '[engine]\npoll_interval = 2\n')
    try:
        proc = dcloud.popen('boot', 'broker-restart', '--flavor', 'tiny', '--image',
                            'guest', '--network', 'net1', '--volume-size', 1)
        assert _wait_for_row(dcloud, 'broker-restart') == 'building'
        broker_stopped = models.utcnow()
        # stop_app/start_app restarts the broker inside its VM: every connection and
        # non-durable queue is gone, as after a restart; users and vhosts stay.
        subprocess.run([rabbitmqctl, 'stop_app'], check=True, capture_output=True,
                       timeout=120)
        try:
            time.sleep(2)
        finally:
            subprocess.run([rabbitmqctl, 'start_app'], check=True, capture_output=True,
                           timeout=120)
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        instance = dcloud.show('broker-restart')
        _assert_booted_once(dcloud, instance)
        # Its host-side steps ran across the restart: the domain started afterwards.
        started = [datetime.datetime.fromisoformat(e['finished_at'])
                   for e in instance['events']
                   if (e['name'], e['result']) == ('start-domain', 'Success')]
        assert started and started[-1] > broker_stopped
    finally:
        dcloud.retire('func-engine-patient')


def test_an_engine_started_before_redis_waits_for_it_with_a_clear_message(dcloud):
    log = dcloud.log_path('func-engine-early')
    since = log.stat().st_size if log.exists() else 0
    dcloud.start('engine', 'func-engine-early',
                 '[jobboard]\nurl = redis://127.0.0.1:1/0\n', wait=False)
    dcloud.wait_for_log('func-engine-early',
                        'The jobboard at redis://127.0.0.1:1/0 is not reachable', since)
    dcloud.stop_cleanly('func-engine-early')
    text = log.read_text()[since:]
    assert 'retrying in' in text and 'Traceback' not in text
