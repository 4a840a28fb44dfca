"""Volume snapshots with the real `openstack` CLI and real guests.

A guest writes a token to a volume it was given; the volume is snapshotted while
attached (``--force``, qemu-img reading the file under the running guest), a
volume is made from the snapshot, and a second guest, given that volume, prints
what it reads from it on its console: the token.
"""

import secrets

from tests.functional.api import test_volumes as volumes
from tests.functional import conftest as base

# A guest script: wait for a disk the guest did not boot with, then act on it.
_NEW_DISK = '''#!/bin/sh
booted=" $(ls /sys/block | tr '\\n' ' ') "
while :; do
    for d in $(ls /sys/block); do
        case "$booted" in *" $d "*) ;; *) new=$d ;; esac
    done
    [ -n "$new" ] && break
    sleep 1
done
'''
_WRITE = _NEW_DISK + '''printf '%s' | dd of=/dev/$new conv=fsync 2>/dev/null
sync
echo "PROVISIONER-GUEST: wrote=$new"
'''
_READ = _NEW_DISK + '''echo "PROVISIONER-GUEST: read=$(head -c %d /dev/$new)"
'''


def _boot(openstack, http, tmp_path, name, script):
    user_data = tmp_path / ('%s.sh' % name)
    user_data.write_text(script)
    server = openstack.json('server', 'create', '--flavor', 'tiny', '--image', 'guest',
                            '--network', 'net1', '--user-data', str(user_data),
                            name)['id']
    volumes._wait('%s to boot' % name, lambda: 'ready' in volumes._markers(http, server),
                  timeout=base.CONSOLE_TIMEOUT)
    return server


def _snapshot(http, snapshot_id):
    response = http.request('GET', '/volume/v3/%s/snapshots/%s'
                            % (http.project_id, snapshot_id))
    return response.json()['snapshot'] if response.status_code == 200 else None


def test_a_snapshot_of_a_written_volume_reaches_another_guest(api_cloud, openstack,
                                                             tmp_path):
    http = api_cloud.http
    token = 'SNAP-%s' % secrets.token_hex(6)
    servers, made = [], []
    try:
        writer = _boot(openstack, http, tmp_path, 'snap-writer', _WRITE % token)
        servers.append(writer)
        volume = openstack.json('volume', 'create', '--size', '1', 'snap-src')
        made.append(('volume', volume['id']))
        openstack.run('server', 'add', 'volume', writer, volume['id'])
        volumes._wait('the guest to write', lambda: volumes._markers(
            http, writer).get('wrote'), timeout=60)

        # In use: Cinder's rule asks for --force.
        refused = openstack.run('volume', 'snapshot', 'create', '--volume',
                                volume['id'], 'snap1', check=False)
        assert refused.returncode != 0 and 'available' in refused.stderr
        snap = openstack.json('volume', 'snapshot', 'create', '--volume', volume['id'],
                              '--force', 'snap1')
        made.insert(0, ('volume snapshot', snap['id']))
        volumes._wait('the snapshot', lambda: (_snapshot(http, snap['id']) or {}).get(
            'status') == 'available', timeout=120)
        listed = openstack.json('volume', 'snapshot', 'list')
        assert [s['ID'] for s in listed] == [snap['id']]
        snap_file = api_cloud.state_path / 'volumes' / ('snapshot-%s.qcow2' % snap['id'])
        assert snap_file.exists()

        copy = openstack.json('volume', 'create', '--snapshot', snap['id'], '--size',
                              '1', 'snap-copy')
        made.insert(0, ('volume', copy['id']))
        shown = volumes._wait_for_volume(http, copy['id'], 'available')
        assert shown['snapshot_id'] == snap['id']

        reader = _boot(openstack, http, tmp_path, 'snap-reader', _READ % len(token))
        servers.append(reader)
        openstack.run('server', 'add', 'volume', reader, copy['id'])
        volumes._wait('the second guest to read the token', lambda: volumes._markers(
            http, reader).get('read') == token, timeout=60)

        # A volume with snapshots stays; its snapshot goes, and its file with it.
        refused = openstack.run('volume', 'delete', volume['id'], check=False)
        assert refused.returncode != 0
        openstack.run('volume', 'snapshot', 'delete', snap['id'])
        volumes._wait('the snapshot to go', lambda: _snapshot(http, snap['id']) is None)
        assert not snap_file.exists()
        made.remove(('volume snapshot', snap['id']))
    finally:
        for server in servers:
            openstack.run('server', 'delete', '--wait', server, check=False)
        for kind, resource_id in made:
            openstack.run(*kind.split(), 'delete', resource_id, check=False)
