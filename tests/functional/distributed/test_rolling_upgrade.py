"""A rolling upgrade: an engine capped one worker RPC version back, with a worker of
the previous release (tests/functional/distributed/previous_release_worker.py), on
real RabbitMQ, PostgreSQL and guests."""

import json
import time

from tests.functional.distributed.conftest import MAIN_ENGINE

OLD_WORKER = 'func-worker-old'
CAPPED_ENGINE = 'func-engine-capped'
ZONE = 'previous-release'
MODULE = 'tests.functional.distributed.previous_release_worker'


def _wait_for_host(dcloud, host, timeout=30):
    deadline = time.monotonic() + timeout
    while not dcloud.query('SELECT name FROM hosts WHERE name = ?', (host,)):
        assert time.monotonic() < deadline, '%s never reported' % host
        time.sleep(0.2)


def _start_old_worker(dcloud, extra_conf=''):
    dcloud.start('worker', OLD_WORKER, extra_conf=extra_conf, module=MODULE)


def _delete_and_check(dcloud, name):
    instance = dcloud.show(name)
    dcloud.cli('delete', instance['id'])
    assert dcloud.leftovers(instance) == []


def test_a_capped_engine_boots_and_rolls_back_on_a_previous_release_worker(dcloud):
    if MAIN_ENGINE in dcloud.processes:  # only the capped engine takes the boots
        dcloud.retire(MAIN_ENGINE)
    dcloud.start('engine', CAPPED_ENGINE, extra_conf='[upgrade_levels]\nworker = 2.0\n')
    # First without the cause of an undo: a failure after start-domain on this host.
    _start_old_worker(dcloud, '[fault_injection]\nfail_after_step = '
                              'start-domain@%s\n' % OLD_WORKER)
    booted = []
    try:
        _wait_for_host(dcloud, OLD_WORKER)
        dcloud.cli('host', 'set', OLD_WORKER, '--availability-zone', ZONE)

        booted.append('upgrade-1')
        failed = dcloud.boot('upgrade-1', '--volume-size', '1',
                             '--availability-zone', ZONE, check=False)
        assert failed.returncode != 0
        instance = dcloud.show('upgrade-1')
        assert instance['vm_state'] == 'error'
        assert ('start-domain: Injected fault at step start-domain on host %s'
                % OLD_WORKER) in instance['fault']
        # Every step on the old worker was undone (undo_step at 2.0).
        assert dcloud.leftovers(instance) == []
        assert 'cleanup failed' not in instance['fault']

        dcloud.stop_cleanly(OLD_WORKER)
        _start_old_worker(dcloud)
        booted.append('upgrade-2')
        dcloud.boot('upgrade-2', '--volume-size', '1', '--availability-zone', ZONE)
        instance = dcloud.show('upgrade-2')
        assert (instance['vm_state'], instance['host']) == ('active', OLD_WORKER)
        assert dcloud.wait_for_console(instance)['uuid'] == instance['id']
        for name in booted:
            _delete_and_check(dcloud, name)
        booted.clear()
    finally:
        for name in booted:
            dcloud.cli('delete', name, check=False)
        dcloud.cli('host', 'disable', OLD_WORKER, check=False)
        dcloud.retire(OLD_WORKER)
        dcloud.retire(CAPPED_ENGINE)
    hosts = json.loads(dcloud.cli('host', 'list', '--format', 'json').stdout)
    assert [h['enabled'] for h in hosts if h['name'] == OLD_WORKER] == [False]
