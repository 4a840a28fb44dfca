"""`openstack server image create` of a real guest: the image is made at once,
filled with a consistent copy of the running guest's disk while the guest runs on,
and boots a new server; a snapshot that fails deletes its image, bytes included,
and leaves the server running as it was."""

import time

import pytest

from tests.functional.api.test_rebuild import _events as _action
from tests.functional import conftest as base

TICKS = '#!/bin/sh\n(while true; do echo tick; sleep 1; done) &\n'


def _ticks(openstack, server):
    return openstack.run('console', 'log', 'show', server).stdout.count('tick')


def _ticking(openstack, server, timeout=60):
    """The guest's clock still runs: its console prints more ticks."""
    before = _ticks(openstack, server)
    deadline = time.monotonic() + timeout
    while _ticks(openstack, server) <= before + 1:
        assert time.monotonic() < deadline, 'the guest %s stopped ticking' % server
        time.sleep(1)


@pytest.fixture
def disk_image(openstack, guest_disk):
    image = openstack.json('image', 'create', '--file', guest_disk, '--disk-format',
                           'qcow2', '--container-format', 'bare', 'ci-disk')
    yield image['id']
    openstack.run('image', 'delete', image['id'], check=False)


@pytest.fixture
def server(openstack, disk_image, tmp_path):
    script = tmp_path / 'ticks.sh'
    script.write_text(TICKS)
    created = openstack.json('server', 'create', '--flavor', 'tiny', '--image',
                             disk_image, '--network', 'net1', '--user-data', script,
                             '--wait', 'ci-source')
    openstack.wait_for_console(created['id'], marker='tick')
    yield created['id']
    openstack.run('server', 'delete', '--wait', created['id'], check=False)


def test_snapshot_of_a_running_guest_boots_a_new_server(api_cloud, openstack, server,
                                                        disk_image):
    snapshot = openstack.json('server', 'image', 'create', '--name', 'ci-snap',
                              '--property', 'purpose=functional', '--wait', server)
    try:
        image = openstack.json('image', 'show', snapshot['id'])
        assert (image['status'], image['disk_format'], image['visibility']) == (
            'active', 'qcow2', 'private')
        assert image['size'] > 0 and image['checksum']
        properties = image['properties']
        assert properties['image_type'] == 'snapshot'
        assert properties['instance_uuid'] == server
        assert properties['base_image_ref'] == disk_image
        assert properties['purpose'] == 'functional'
        shown = openstack.json('server', 'show', server)
        assert (shown['status'], shown['OS-EXT-STS:task_state']) == ('ACTIVE', None)
        _ticking(openstack, server)  # the pause is over: the guest runs on
        made = _action(api_cloud.http, server, 'createImage')
        assert made['message'] is None
        assert [e['event'] for e in made['events']] == [
            'image-snapshot-guard', 'capture-root-disk', 'upload-snapshot',
            'delete-capture', 'record-image-snapshot']
        assert not list((api_cloud.state_path / 'instances' / server).glob(
            'snapshot-*'))
        copy = openstack.json('server', 'create', '--flavor', 'tiny', '--image',
                              snapshot['id'], '--network', 'net1', '--wait', 'ci-copy')
        try:
            guest = openstack.wait_for_console(copy['id'],
                                               timeout=base.CONSOLE_TIMEOUT * 3)
            assert (guest['uuid'], guest['hostname']) == (copy['id'], 'ci-copy')
        finally:
            openstack.run('server', 'delete', '--wait', copy['id'])
    finally:
        openstack.run('image', 'delete', snapshot['id'])
    assert not (api_cloud.state_path / 'image-store' / snapshot['id']).exists()


def test_a_failed_snapshot_deletes_its_image_and_the_guest_runs_on(api_cloud, openstack,
                                                                   server):
    http = api_cloud.http
    try:
        # The upload stored the image's bytes, then the step fails: all undone.
        with api_cloud.fault_injected('fail_after_step', 'upload-snapshot'):
            response = http.compute('POST', '/servers/%s/action' % server,
                                    body={'createImage': {'name': 'ci-failed'}},
                                    headers={'OpenStack-API-Version': 'compute 2.45'})
            assert response.status_code == 202, response.text
            image_id = response.json()['image_id']
            deadline = time.monotonic() + 300
            while _action(http, server, 'createImage')['message'] is None:
                assert time.monotonic() < deadline, 'the snapshot never ended'
                time.sleep(1)
        assert 'Injected fault at step upload-snapshot' in _action(
            http, server, 'createImage')['message']
        assert http.request('GET', '/image/v2/images/' + image_id).status_code == 404
        assert not (api_cloud.state_path / 'image-store' / image_id).exists()
        assert not list((api_cloud.state_path / 'instances' / server).glob(
            'snapshot-*'))
        shown = openstack.json('server', 'show', server)
        assert (shown['status'], shown['OS-EXT-STS:task_state']) == ('ACTIVE', None)
        assert shown['OS-EXT-STS:power_state'] in (1, 'Running')
        _ticking(openstack, server)
    finally:
        if api_cloud.api is None:
            api_cloud.start_api()
