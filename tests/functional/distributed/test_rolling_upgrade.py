"""A rolling upgrade: an engine capped one worker RPC version back, with a host whose
worker still runs the previous release (previous_release_worker.py), on real
RabbitMQ, PostgreSQL and guests."""

import time

from tests.functional.distributed.conftest import MAIN_ENGINE

OLD_HOST, OTHER_HOST = 'func-worker-b', 'func-worker-a'
CAPPED_ENGINE = 'func-engine-capped'
MODULE = 'tests.functional.distributed.previous_release_worker'


def _run_previous_release(dcloud, extra_conf=''):
    """Replace OLD_HOST's worker by the previous release's."""
    dcloud.retire(OLD_HOST)
    dcloud.start('worker', OLD_HOST, extra_conf=extra_conf, module=MODULE)


def _wait_for_hosts(dcloud, timeout=30):
    """Until an engine has recorded both workers' reports (they report every
    [worker] report_interval; run alone, no engine heard them before this test's)."""
    deadline = time.monotonic() + timeout
    while len(dcloud.query('SELECT name FROM hosts WHERE name IN (?, ?)',
                           (OLD_HOST, OTHER_HOST))) < 2:
        assert time.monotonic() < deadline, 'the workers never reported'
        time.sleep(0.2)


def _delete_and_check(dcloud, name):
    instance = dcloud.show(name)
    dcloud.cli('delete', instance['id'])
    assert dcloud.leftovers(instance) == []


def test_a_capped_engine_boots_and_rolls_back_on_a_previous_release_worker(dcloud):
    if MAIN_ENGINE in dcloud.processes:  # only the capped engine takes the boots
        dcloud.retire(MAIN_ENGINE)
    dcloud.start('engine', CAPPED_ENGINE, extra_conf='[upgrade_levels]\nworker = 2.0\n')
    _wait_for_hosts(dcloud)
    dcloud.cli('host', 'disable', OTHER_HOST)  # the boots must land on the old one
    # First a boot that fails after start-domain there: its undos are sent at 2.0.
    _run_previous_release(dcloud, '[fault_injection]\nfail_after_step = '
                                  'start-domain@%s\n' % OLD_HOST)
    booted = []
    try:
        booted.append('upgrade-1')
        failed = dcloud.boot('upgrade-1', '--volume-size', '1', check=False)
        assert failed.returncode != 0
        instance = dcloud.show('upgrade-1')
        assert instance['vm_state'] == 'error'
        assert ('start-domain: Injected fault at step start-domain on host %s'
                % OLD_HOST) in instance['fault']
        # Every step on the old worker was undone, nothing failed to clean up.
        assert dcloud.leftovers(instance) == []
        assert 'cleanup failed' not in instance['fault']

        _run_previous_release(dcloud)
        booted.append('upgrade-2')
        dcloud.boot('upgrade-2', '--volume-size', '1')
        instance = dcloud.show('upgrade-2')
        assert (instance['vm_state'], instance['host']) == ('active', OLD_HOST)
        assert dcloud.wait_for_console(instance)['uuid'] == instance['id']
        for name in booted:
            _delete_and_check(dcloud, name)
        booted.clear()
    finally:
        for name in booted:
            dcloud.cli('delete', name, check=False)
        dcloud.retire(OLD_HOST)
        dcloud.start('worker', OLD_HOST)  # upgraded
        dcloud.cli('host', 'enable', OTHER_HOST)
        dcloud.retire(CAPPED_ENGINE)
