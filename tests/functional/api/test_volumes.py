"""The volume service with the real `openstack` CLI against the all-in-one API.

One guest serves both tests: a volume is created, hot-plugged into the running
guest (which prints its new set of disks on its console), unplugged and deleted;
then provisioner-api is killed (-9) right after an attach plugged the disk in and
before the flow recorded it, and the restarted daemon finishes the attach; the
volume detaches cleanly afterwards, leaving nothing in the domain's XML.
"""

import time

import pytest

from tests.functional.api import conftest as api
from tests.functional import conftest as base


def _wait(what, check, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError('%s did not happen within %d s' % (what, timeout))
        time.sleep(0.25)


def _volume(http, volume_id):
    """The volume as GET shows it (plain HTTP: polling with the CLI costs ~2 s a call)."""
    response = http.request('GET', '/volume/v3/%s/volumes/%s'
                            % (http.project_id, volume_id))
    assert response.status_code in (200, 404), response.text
    return response.json()['volume'] if response.status_code == 200 else None


def _wait_for_volume(http, volume_id, status):
    return _wait('volume %s %s' % (volume_id, status),
                 lambda: (_volume(http, volume_id) or {}).get('status') == status
                 and _volume(http, volume_id))


def _markers(http, server_id):
    """The guest's console markers (os-getConsoleOutput); {} before it has one."""
    response = http.compute('POST', '/servers/%s/action' % server_id,
                            body={'os-getConsoleOutput': {}})
    if response.status_code != 200:
        return {}
    console = response.json()['output']
    found = api.markers(console)
    if 'PROVISIONER-GUEST: ready' in console:
        found['ready'] = True
    return found


def _disks(http, server_id):
    """The guest's latest `disks=` line (it prints one at boot and at each change)."""
    return _markers(http, server_id).get('disks', '').split()


def _domain_disks(server_id, connect=base._libvirt_connection):
    """Source files of the disks in the domain's live and persistent XML (on the
    hypervisor ``connect()`` opens: this machine's by default)."""
    import libvirt
    conn = connect()
    try:
        domain = conn.lookupByUUIDString(server_id)
        return {xml_source for flags in (0, libvirt.VIR_DOMAIN_XML_INACTIVE)
                for xml_source in _sources(domain.XMLDesc(flags))}
    finally:
        conn.close()


def _sources(xml):
    from lxml import etree
    return [s.get('file') for s in etree.fromstring(xml).iterfind(
        './devices/disk/source')]


def _volume_file(api_cloud, volume_id):
    return api_cloud.state_path / 'volumes' / ('volume-%s.qcow2' % volume_id)


@pytest.fixture(scope='module')
def server(api_cloud, openstack):
    """A running guest (polled over HTTP: `--wait` polls every 5 s)."""
    http = api_cloud.http
    created = openstack.json('server', 'create', '--flavor', 'tiny', '--image', 'guest',
                             '--network', 'net1', 'vol-vm')
    _wait('the guest to boot', lambda: 'ready' in _markers(http, created['id']),
          timeout=base.CONSOLE_TIMEOUT)
    yield created['id']
    http.compute('DELETE', '/servers/' + created['id'])
    _wait('the server to go', lambda: http.compute(
        'GET', '/servers/' + created['id']).status_code == 404)


def test_create_attach_detach_delete(api_cloud, openstack, server):
    http = api_cloud.http
    boot_disks = _disks(http, server)
    volume = openstack.json('volume', 'create', '--size', '1', 'vol1')
    assert (volume['status'], volume['size']) == ('available', 1)
    try:
        # The answer names the device at once (reserved, as Nova's), the one the
        # attachment then shows and the guest sees.
        added = openstack.json('server', 'add', 'volume', server, volume['id'])
        shown = _wait_for_volume(http, volume['id'], 'in-use')
        [attachment] = shown['attachments']
        device = attachment['device'].removeprefix('/dev/')
        assert attachment['server_id'] == server and device not in boot_disks
        assert added['Device'] == attachment['device']
        # The running guest sees the new virtio disk.
        _wait('the guest to see %s' % device, lambda: device in _disks(http, server))
        assert str(_volume_file(api_cloud, volume['id'])) in _domain_disks(server)
        attached = http.compute('GET', '/servers/' + server).json()['server'][
            'os-extended-volumes:volumes_attached']
        assert {'id': volume['id']} in attached

        # Attaching it again is refused and changes nothing.
        again = openstack.run('server', 'add', 'volume', server, volume['id'],
                              check=False)
        assert again.returncode != 0 and 'in-use' in again.stderr
        refused = openstack.run('volume', 'delete', volume['id'], check=False)
        assert refused.returncode != 0
        assert _volume(http, volume['id'])['status'] == 'in-use'

        openstack.run('server', 'remove', 'volume', server, volume['id'])
        _wait_for_volume(http, volume['id'], 'available')
        _wait('the guest to let %s go' % device,
              lambda: device not in _disks(http, server))
        assert str(_volume_file(api_cloud, volume['id'])) not in _domain_disks(server)
        not_attached = http.compute('DELETE', '/servers/%s/os-volume_attachments/%s'
                                    % (server, volume['id']))
        assert not_attached.status_code == 404
    finally:
        openstack.run('volume', 'delete', volume['id'], check=False)
    _wait('volume %s to go' % volume['id'], lambda: _volume(http, volume['id']) is None)
    assert not _volume_file(api_cloud, volume['id']).exists()


def test_kill_9_during_an_attach(api_cloud, openstack, server):
    http = api_cloud.http
    volume = http.request('POST', '/volume/v3/%s/volumes' % http.project_id,
                          body={'volume': {'size': 1, 'name': 'vol-kill'}}).json()['volume']
    path = str(_volume_file(api_cloud, volume['id']))
    try:
        # The daemon kills itself (SIGKILL) right after the disk was plugged in,
        # before the flow saved that it was.
        api_cloud.kill_api()
        api_cloud.env['OS_FAULT_INJECTION__CRASH_AFTER_STEP'] = 'plug-volume'
        try:
            api_cloud.start_api()
            openstack.run('server', 'add', 'volume', server, volume['id'],
                          check=False)
            _wait('provisioner-api to die', lambda: api_cloud.api.poll() is not None)
        finally:
            del api_cloud.env['OS_FAULT_INJECTION__CRASH_AFTER_STEP']
        assert api_cloud.kill_api() == -9
        assert path in _domain_disks(server)  # plugged in, not recorded
        [(status,)] = api_cloud.query('SELECT status FROM volumes WHERE id = ?',
                                      (volume['id'],))
        assert status == 'attaching'

        api_cloud.start_api()  # resumes the attach
        _wait_for_volume(http, volume['id'], 'in-use')
        assert path in _domain_disks(server)
        detach = http.compute('DELETE', '/servers/%s/os-volume_attachments/%s'
                              % (server, volume['id']))
        assert detach.status_code == 202, detach.text
        _wait_for_volume(http, volume['id'], 'available')
        assert path not in _domain_disks(server)
    finally:
        if api_cloud.api is None:
            api_cloud.start_api()
        http.request('DELETE', '/volume/v3/%s/volumes/%s'
                     % (http.project_id, volume['id']))


def test_a_server_boots_from_an_existing_volume_that_outlives_it(api_cloud, openstack,
                                                                 guest_disk):
    """`server create --volume`: the guest boots (BIOS, from the disk) from a volume
    made from an uploaded disk image; its root cannot be removed; deleting the server
    gives the volume back, its data kept."""
    http = api_cloud.http
    image = openstack.json('image', 'create', '--file', guest_disk, '--disk-format',
                           'qcow2', '--container-format', 'bare', 'bios-disk')
    volume = openstack.json('volume', 'create', '--image', image['id'], '--size', '1',
                            'root-vol')
    assert str(volume['bootable']).lower() == 'true'
    server = None
    try:
        server = openstack.json('server', 'create', '--flavor', 'tiny', '--volume',
                                volume['id'], '--network', 'net1', 'from-vol')['id']
        _wait('the guest to boot from its volume',
              lambda: 'ready' in _markers(http, server), timeout=base.CONSOLE_TIMEOUT)
        [attachment] = _wait_for_volume(http, volume['id'], 'in-use')['attachments']
        assert (attachment['server_id'], attachment['device']) == (server, '/dev/vda')
        assert str(_volume_file(api_cloud, volume['id'])) in _domain_disks(server)
        refused = openstack.run('server', 'remove', 'volume', server, volume['id'],
                                check=False)
        assert refused.returncode != 0 and 'root device' in refused.stderr
        openstack.run('server', 'delete', '--wait', server)
        server = None
        _wait_for_volume(http, volume['id'], 'available')
        assert _volume_file(api_cloud, volume['id']).exists()  # the data stays
    finally:
        if server is not None:
            openstack.run('server', 'delete', '--wait', server, check=False)
        openstack.run('volume', 'delete', volume['id'], check=False)
        _wait('volume %s to go' % volume['id'],
              lambda: _volume(http, volume['id']) is None)
        openstack.run('image', 'delete', image['id'])
    assert not _volume_file(api_cloud, volume['id']).exists()
