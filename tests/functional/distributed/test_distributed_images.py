"""Images uploaded once through the image API and booted on every host (issue 10).

The distributed deployment's workers (tests/deployment.py ``serve_images``) share
no files with the API: each downloads an image over HTTP from the image API as the
service user, into its own image cache, verified by its sha256.
"""

import shutil

from tests.functional.distributed import test_distributed_api as distributed_api

# The API in distributed mode, two engines and the client machine's settings.
dapi = distributed_api.dapi


def _domain_xml(cloud, host, server_id):
    conn = cloud.hypervisor(host)
    try:
        return conn.lookupByName('instance-%s' % server_id).XMLDesc(0)
    finally:
        conn.close()


def _upload_disk(openstack, guest_disk, tmp_path, name):
    """The BIOS guest disk uploaded through the image API, then gone from the client:
    no host can read it, they download what the API stored."""
    upload = tmp_path / ('%s.qcow2' % name)  # the uploader's file
    shutil.copy(guest_disk, upload)
    image = openstack.json('image', 'create', '--file', upload, '--disk-format',
                           'qcow2', '--container-format', 'bare', name)
    upload.unlink()
    assert image['status'] == 'active'
    return image


def test_an_uploaded_disk_boots_on_each_host_downloaded_over_http(dapi, guest_disk,
                                                                   tmp_path):
    cloud, openstack = dapi.cloud, dapi.openstack
    image = _upload_disk(openstack, guest_disk, tmp_path, 'dapi-disk')
    since = {host: cloud.log_path(host).stat().st_size
             for host in distributed_api.WORKERS}
    # Anti-affinity puts the two boots on the two hosts.
    group = openstack.json('server', 'group', 'create', '--policy', 'anti-affinity',
                           'dapi-spread')
    servers = []
    try:
        for name in ('dapi-disk-1', 'dapi-disk-2'):
            servers.append(openstack.json(
                'server', 'create', '--flavor', 'tiny', '--image', image['id'],
                '--network', 'net1', '--hint', 'group=%s' % group['id'], '--wait',
                name))
        hosts = {distributed_api._host_of(cloud, s['id']): s for s in servers}
        assert set(hosts) == distributed_api.WORKERS
        for host, server in hosts.items():
            assert server['status'] == 'ACTIVE'
            guest = openstack.wait_for_console(server['id'])
            assert guest['uuid'] == server['id']
            # Booted from the disk.
            assert '<kernel>' not in _domain_xml(cloud, host, server['id'])
            with open(cloud.log_path(host), 'rb') as log:
                log.seek(since[host])
                lines = log.read().decode(errors='replace')
            assert 'Downloading the disk of image %s from http://' % image['id'] \
                in lines, lines[-3000:]
        for server in servers:
            instance = cloud.show(server['id'])
            openstack.run('server', 'delete', '--wait', server['id'])
            assert cloud.leftovers(instance) == []
    finally:
        for server in servers:
            openstack.run('server', 'delete', '--wait', server['id'], check=False)
        openstack.run('server', 'group', 'delete', group['id'], check=False)
        openstack.run('image', 'delete', image['id'], check=False)


def test_a_corrupted_store_file_fails_the_boot_naming_the_image_and_hashes(dapi,
                                                                           tmp_path):
    cloud, openstack = dapi.cloud, dapi.openstack
    data = tmp_path / 'small.raw'
    data.write_bytes(b'\0' * 512 * 1024)
    image = openstack.json('image', 'create', '--file', data, '--disk-format', 'raw',
                           '--container-format', 'bare', 'dapi-corrupted')
    stored = cloud.state_path / 'image-store' / image['id']
    with open(stored, 'r+b') as f:  # the disk under the store rots
        f.write(b'rot')
    server = openstack.json('server', 'create', '--flavor', 'tiny', '--image',
                            image['id'], '--network', 'net1', 'dapi-corrupted')
    try:
        shown = openstack.wait_for_status(server['id'], 'ERROR')
        message = shown['fault']['message']
        assert image['id'] in message and 'checksum mismatch' in message, shown
        [(sha256,)] = cloud.query('SELECT disk_sha256 FROM images WHERE id = ?',
                                  (image['id'],))
        assert sha256 in message
    finally:
        openstack.run('server', 'delete', '--wait', server['id'], check=False)
        openstack.run('image', 'delete', image['id'], check=False)


def test_a_volume_pins_the_servers_booted_from_it_to_the_host_of_its_bytes(
        dapi, guest_disk, tmp_path):
    """`server create --volume`: the first boot copies the image into the volume on
    the host it lands on; from then on only that host can boot from it."""
    cloud, openstack = dapi.cloud, dapi.openstack
    image = _upload_disk(openstack, guest_disk, tmp_path, 'dapi-volume-source')
    volume = openstack.json('volume', 'create', '--image', image['id'], '--size', '1',
                            'dapi-root')
    servers, disabled = [], None

    def boot(name, status):
        servers.append(openstack.json('server', 'create', '--flavor', 'tiny',
                                      '--volume', volume['id'], '--network', 'net1',
                                      name)['id'])
        return openstack.wait_for_status(servers[-1], status)

    def delete_last():
        openstack.run('server', 'delete', '--wait', servers.pop())

    try:
        boot('dapi-vol-1', 'ACTIVE')
        host = distributed_api._host_of(cloud, servers[-1])
        assert openstack.wait_for_console(servers[-1])['uuid'] == servers[-1]
        delete_last()
        # Its bytes stay on that host: with the host disabled, no other will do.
        cloud.cli('host', 'disable', host)
        disabled = host
        refused = boot('dapi-vol-2', 'ERROR')
        assert 'VolumeHostFilter removed 1' in refused['fault']['message'], refused
        delete_last()
        cloud.cli('host', 'enable', host)
        disabled = None
        boot('dapi-vol-3', 'ACTIVE')
        assert distributed_api._host_of(cloud, servers[-1]) == host
        assert openstack.wait_for_console(servers[-1])['uuid'] == servers[-1]
        delete_last()
    finally:
        if disabled:
            cloud.cli('host', 'enable', disabled)
        for server in servers:
            openstack.run('server', 'delete', '--wait', server, check=False)
        openstack.run('volume', 'delete', volume['id'], check=False)
        openstack.run('image', 'delete', image['id'], check=False)
