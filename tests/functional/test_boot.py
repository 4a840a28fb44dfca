"""A real QEMU guest booted through the whole request flow by the real CLI."""

import json
import time


def test_boot_real_guest_sees_its_ip_uuid_user_data_and_volume(cloud, booted, tmp_path):
    user_data = tmp_path / 'user-data'
    user_data.write_text('hello from the functional test\nsecond line\n')
    booted.append('vm-real')
    result = cloud.boot('vm-real', '--volume-size', 1, '--user-data', user_data)

    instance = cloud.show('vm-real')
    assert (instance['vm_state'], instance['task_state'], instance['power_state']) == \
        ('active', None, 'running')
    assert instance['host'] == 'functional-host'
    [address] = instance['addresses']
    assert address['network'] == 'net1'
    assert 'IP address: %s' % address['ip'] in result.stdout
    assert instance['console_log'] in result.stdout
    assert len(instance['volumes']) == 1

    guest = cloud.wait_for_console(instance)
    assert guest['ip'] == address['ip']
    assert guest['uuid'] == instance['id']
    assert guest['hostname'] == 'vm-real'
    assert guest['user-data'] == 'hello from the functional test'
    # root disk, the volume, the config drive
    assert guest['disks'].split() == ['vda', 'vdb', 'vdc']
    assert guest['metadata'] == 'config-drive'


def test_user_data_that_is_a_script_runs_in_the_guest(cloud, booted, tmp_path):
    # As cloud-init runs it: what the tests of many hosts have their guests do.
    script = tmp_path / 'user-data'
    script.write_text('#!/bin/sh\necho "PROVISIONER-GUEST: script-saw=$(hostname) '
                      '$(cat /sys/class/net/eth0/address)"\nexit 3\n')
    booted.append('vm-script')
    cloud.boot('vm-script', '--user-data', script)
    instance = cloud.show('vm-script')
    guest = cloud.wait_for_console(instance, 'PROVISIONER-GUEST: user-data-script=exit')
    assert guest['user-data'] == '#!/bin/sh'
    assert guest['script-saw'] == 'vm-script %s' % instance['addresses'][0]['mac']
    assert guest['user-data-script'] == 'exit 3'


def test_show_lists_every_step_in_order_with_task_states(cloud, booted):
    booted.append('vm-steps')
    cloud.boot('vm-steps')
    events = cloud.show('vm-steps')['events']
    names = [e['name'] for e in events]
    assert names[0] == 'instance-lifecycle-guard' and names[-1] == 'mark-active'
    for step in ('select-hosts', 'claim-resources', 'fetch-image', 'create-root-disk',
                 'allocate-ports', 'reserve-dhcp', 'create-volumes', 'build-config-drive',
                 'define-domain', 'start-domain', 'wait-for-boot'):
        assert step in names
    assert all(e['result'] == 'Success' and e['host'] == 'functional-host'
               for e in events)
    table = cloud.cli('show', 'vm-steps').stdout
    assert 'Steps:' in table and 'define-domain' in table


def test_delete_leaves_nothing_behind(cloud):
    cloud.boot('vm-delete', '--volume-size', 1)
    instance = cloud.show('vm-delete')
    result = cloud.cli('delete', 'vm-delete')
    assert 'deleted' in result.stdout
    assert cloud.leftovers(instance) == []
    listed = json.loads(cloud.cli('list', '--format', 'json').stdout)
    assert 'vm-delete' not in [i['name'] for i in listed]
    # A second delete is a clear "not found", not a traceback.
    again = cloud.cli('delete', 'vm-delete', check=False)
    assert again.returncode != 0 and 'not found' in again.stderr


def _wait_for_step(cloud, name, step, timeout=120):
    """The instance once its boot recorded ``step`` (its process holds the lock)."""
    deadline = time.monotonic() + timeout
    while True:
        instance = cloud.show(name)
        if step in [event['name'] for event in instance['events']]:
            return instance
        assert time.monotonic() < deadline, 'the boot never recorded %s' % step
        time.sleep(0.2)


def test_delete_right_after_a_background_boot_waits_for_it(cloud):
    # The background boot pauses after a step, holding the instance's lock: still
    # under way when the delete comes, however slow or fast this machine is. (A
    # step's event is recorded once the step ended: claim-resources' shows that
    # the boot runs, the pause comes after it.)
    cloud.boot('vm-nowait', '--no-wait',
               env={'OS_FAULT_INJECTION__PAUSE_AFTER_STEP': 'create-root-disk',
                    'OS_FAULT_INJECTION__PAUSE_SECONDS': '15'})
    instance = _wait_for_step(cloud, 'vm-nowait', 'claim-resources')
    assert instance['vm_state'] == 'building'
    deleted = cloud.cli('delete', 'vm-nowait')
    assert 'Waiting for the boot running in process' in deleted.stderr
    assert cloud.leftovers(instance) == []


def test_a_delete_that_wins_the_race_leaves_the_late_background_boot_nothing_to_do(
        cloud):
    # The background boot dies in its first step (kill -9), or finds the instance
    # deleted if it comes later: either way nothing boots it before the delete,
    # which then runs the background half again, late, by hand.
    cloud.boot('vm-late', '--no-wait', env={
        'OS_FAULT_INJECTION__CRASH_AFTER_STEP': 'instance-lifecycle-guard'})
    instance = cloud.show('vm-late')
    cloud.cli('delete', 'vm-late')  # waits for the lock if the boot holds it
    late = cloud.cli('_run-boot', instance['id'])  # the background half, late
    assert 'was deleted before its boot ran: nothing to do' in late.stdout
    assert cloud.leftovers(instance) == []
    assert cloud.query('SELECT vm_state FROM instances WHERE id = ?',
                       (instance['id'],)) == [('deleted',)]
    assert cloud.query('SELECT count(*) FROM logbooks WHERE uuid = ?',
                       (instance['id'],)) == [(0,)]


def test_concurrent_boots_from_separate_processes_all_run_with_distinct_ips(cloud):
    names = ['par-%d' % i for i in range(4)]
    procs = [cloud.popen('boot', name, '--flavor', 'tiny', '--image', 'guest',
                         '--network', 'net1', '--volume-size', 1) for name in names]
    results = [(proc.communicate(timeout=300), proc.returncode) for proc in procs]
    try:
        assert [code for _, code in results] == [0] * len(names), results
        instances = [cloud.show(name) for name in names]
        ips = [i['addresses'][0]['ip'] for i in instances]
        assert len(set(ips)) == len(names)
        for instance, ip in zip(instances, ips):
            assert cloud.wait_for_console(instance)['ip'] == ip
    finally:
        instances = [json.loads(r.stdout) for r in
                     (cloud.cli('show', n, '--format', 'json', check=False)
                      for n in names) if r.returncode == 0]
        for instance in instances:
            cloud.cli('delete', instance['id'])
        for instance in instances:
            assert cloud.leftovers(instance) == []


def test_background_boot_finishes_and_show_follows_it(cloud, booted):
    booted.append('vm-bg')
    result = cloud.boot('vm-bg', '--no-wait')
    assert 'started in the background' in result.stdout
    deadline = time.monotonic() + 120
    while cloud.show('vm-bg')['vm_state'] == 'building':
        assert time.monotonic() < deadline, 'background boot never finished'
        time.sleep(0.5)
    instance = cloud.show('vm-bg')
    assert (instance['vm_state'], instance['power_state']) == ('active', 'running')
    assert cloud.wait_for_console(instance)['ip'] == instance['addresses'][0]['ip']
