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
        time.sleep(0.5)


def _volume_status(openstack, volume_id):
    return openstack.json('volume', 'show', volume_id)['status']


def _wait_for_volume(openstack, volume_id, status):
    _wait('volume %s %s' % (volume_id, status),
          lambda: _volume_status(openstack, volume_id) == status)


def _disks(cloud, server_id):
    """The guest's latest `disks=` line (it prints one at boot and at each change);
    ``cloud`` has the ``openstack`` CLI."""
    console = cloud.openstack.run('console', 'log', 'show', server_id).stdout
    return api.markers(console).get('disks', '').split()


def _domain_disks(server_id):
    """Source files of the disks in the domain's live and persistent XML."""
    import libvirt
    conn = base._libvirt_connection()
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
    created = openstack.json('server', 'create', '--flavor', 'tiny', '--image', 'guest',
                             '--network', 'net1', '--wait', 'vol-vm')
    openstack.wait_for_console(created['id'])
    yield created['id']
    openstack.run('server', 'delete', '--wait', created['id'])


def test_create_attach_detach_delete(api_cloud, openstack, server):
    boot_disks = _disks(api_cloud, server)
    volume = openstack.json('volume', 'create', '--size', '1', 'vol1')
    assert (volume['status'], volume['size']) == ('available', 1)
    try:
        openstack.run('server', 'add', 'volume', server, volume['id'])
        _wait_for_volume(openstack, volume['id'], 'in-use')
        shown = openstack.json('volume', 'show', volume['id'])
        [attachment] = shown['attachments']
        device = attachment['device'].removeprefix('/dev/')
        assert attachment['server_id'] == server and device not in boot_disks
        # The running guest sees the new virtio disk.
        assert _wait('the guest to see %s' % device,
                     lambda: device in _disks(api_cloud, server))
        assert str(_volume_file(api_cloud, volume['id'])) in _domain_disks(server)
        attached = openstack.json('server', 'show', server)['volumes_attached']
        assert volume['id'] in str(attached)

        # Attaching it again is refused and changes nothing.
        again = openstack.run('server', 'add', 'volume', server, volume['id'],
                              check=False)
        assert again.returncode != 0 and 'in-use' in again.stderr
        refused = openstack.run('volume', 'delete', volume['id'], check=False)
        assert refused.returncode != 0
        assert _volume_status(openstack, volume['id']) == 'in-use'

        openstack.run('server', 'remove', 'volume', server, volume['id'])
        _wait_for_volume(openstack, volume['id'], 'available')
        assert _wait('the guest to let %s go' % device,
                     lambda: device not in _disks(api_cloud, server))
        assert str(_volume_file(api_cloud, volume['id'])) not in _domain_disks(server)
        not_attached = openstack.run('server', 'remove', 'volume', server,
                                     volume['id'], check=False)
        assert not_attached.returncode != 0
    finally:
        openstack.run('volume', 'delete', volume['id'], check=False)
    _wait('volume %s to go' % volume['id'], lambda: volume['id'] not in [
        v['ID'] for v in openstack.json('volume', 'list')])
    assert not _volume_file(api_cloud, volume['id']).exists()


def test_kill_9_during_an_attach(api_cloud, openstack, server):
    volume = openstack.json('volume', 'create', '--size', '1', 'vol-kill')
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
        _wait_for_volume(openstack, volume['id'], 'in-use')
        assert path in _domain_disks(server)
        openstack.run('server', 'remove', 'volume', server, volume['id'])
        _wait_for_volume(openstack, volume['id'], 'available')
        assert path not in _domain_disks(server)
    finally:
        if api_cloud.api is None:
            api_cloud.start_api()
        openstack.run('volume', 'delete', volume['id'], check=False)
