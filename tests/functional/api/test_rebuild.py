"""`openstack server rebuild` of a real guest: it boots again from the new image with
its new name, on a new root disk, the old one gone; kill -9 of provisioner-api in
the middle of a rebuild resumes it on restart, leaving one disk."""

import time

import pytest


def _root_disks(api_cloud, server_id):
    """{file name: inode} of the server's files in the root disk pool."""
    return {path.name: path.stat().st_ino
            for path in (api_cloud.state_path / 'disks').iterdir()
            if server_id in path.name}


def _events(http, server_id, action):
    actions = http.compute('GET', '/servers/%s/os-instance-actions'
                           % server_id).json()['instanceActions']
    found = [a for a in actions if a['action'] == action]
    return http.compute('GET', '/servers/%s/os-instance-actions/%s' % (
        server_id, found[0]['request_id'])).json()['instanceAction'] if found else None


@pytest.fixture
def server(api_cloud, openstack):
    created = openstack.json('server', 'create', '--flavor', 'tiny', '--image', 'guest',
                             '--network', 'net1', '--wait', 'rb-first')
    yield created['id']
    openstack.run('server', 'delete', '--wait', created['id'], check=False)


@pytest.fixture
def disk_image(openstack, guest_disk):
    image = openstack.json('image', 'create', '--file', guest_disk, '--disk-format',
                           'qcow2', '--container-format', 'bare', 'rebuild-disk')
    yield image['id']
    openstack.run('image', 'delete', image['id'], check=False)


def test_rebuild_onto_another_image_boots_again_on_a_new_disk(api_cloud, openstack,
                                                              server, disk_image):
    first = openstack.wait_for_console(server)
    assert first['hostname'] == 'rb-first'
    before = _root_disks(api_cloud, server)
    openstack.run('server', 'rebuild', '--image', disk_image, '--name', 'rb-second',
                  '--property', 'role=rebuilt', '--wait', server)
    shown = openstack.json('server', 'show', server)
    assert (shown['status'], shown['name']) == ('ACTIVE', 'rb-second')
    assert shown['image'].startswith('rebuild-disk') or disk_image in shown['image']
    guest = openstack.wait_for_console(server, boots=2)
    assert guest['uuid'] == server
    assert guest['hostname'] == 'rb-second'
    after = _root_disks(api_cloud, server)
    # One root disk, a new file: the replaced one is gone.
    assert list(after) == ['instance-%s-root.qcow2' % server], after
    assert after != before
    rebuilt = _events(api_cloud.http, server, 'rebuild')
    assert rebuilt['message'] is None
    assert 'delete-replaced-files' in [e['event'] for e in rebuilt['events']]


def test_kill_9_in_a_rebuild_resumes_it_leaving_one_disk(api_cloud, openstack, server):
    openstack.wait_for_console(server)
    before = _root_disks(api_cloud, server)
    http = api_cloud.http
    try:
        # The daemon kills itself (SIGKILL) right after the new disk took the old
        # one's place, before the flow saved that it did.
        api_cloud.kill_api()
        api_cloud.env['OS_FAULT_INJECTION__CRASH_AFTER_STEP'] = 'swap-root-disk'
        try:
            api_cloud.start_api()
            image = openstack.json('image', 'show', 'guest')['id']
            openstack.run('server', 'rebuild', '--image', image, '--name', 'rb-killed',
                          server, check=False)
            deadline = time.monotonic() + 120
            while api_cloud.api.poll() is None:
                assert time.monotonic() < deadline, 'provisioner-api never died'
                time.sleep(0.2)
        finally:
            del api_cloud.env['OS_FAULT_INJECTION__CRASH_AFTER_STEP']
        assert api_cloud.kill_api() == -9
        [(task_state,)] = api_cloud.query('SELECT task_state FROM instances WHERE id = ?',
                                          (server,))
        assert task_state == 'rebuilding'
        api_cloud.start_api()  # resumes the rebuild
        shown = openstack.wait_for_status(server, 'ACTIVE', timeout=300)
        assert shown['name'] == 'rb-killed'
        guest = openstack.wait_for_console(server, boots=2)
        assert guest['hostname'] == 'rb-killed'
        after = _root_disks(api_cloud, server)
        assert list(after) == ['instance-%s-root.qcow2' % server], after
        assert after != before
        rebuilt = _events(http, server, 'rebuild')
        assert rebuilt['message'] is None
    finally:
        if api_cloud.api is None:
            api_cloud.start_api()


def test_a_failed_rebuild_leaves_the_server_as_it_was(api_cloud, openstack, server):
    openstack.wait_for_console(server)
    before = _root_disks(api_cloud, server)
    try:
        # The step after the domain took the new name and boot fails: every step
        # before it is undone.
        api_cloud.kill_api()
        api_cloud.env['OS_FAULT_INJECTION__FAIL_AFTER_STEP'] = 'redefine-domain'
        try:
            api_cloud.start_api()
            openstack.run('server', 'rebuild', '--image', 'guest', '--name', 'rb-failed',
                          '--property', 'role=failed', server)
            deadline = time.monotonic() + 300
            while _events(api_cloud.http, server, 'rebuild')['message'] is None:
                assert time.monotonic() < deadline, 'the rebuild never ended'
                time.sleep(1)
        finally:
            del api_cloud.env['OS_FAULT_INJECTION__FAIL_AFTER_STEP']
            api_cloud.kill_api()
            api_cloud.start_api()
        openstack.wait_for_status(server, 'ACTIVE')
        shown = api_cloud.http.compute('GET', '/servers/' + server).json()['server']
        assert (shown['name'], shown['metadata']) == ('rb-first', {})
        assert 'Injected fault at step redefine-domain' in _events(
            api_cloud.http, server, 'rebuild')['message']
        # The old disk, the very file, and no other.
        assert _root_disks(api_cloud, server) == before
        guest = openstack.wait_for_console(server, boots=2)
        assert guest['hostname'] == 'rb-first'
    finally:
        if api_cloud.api is None:
            api_cloud.start_api()
