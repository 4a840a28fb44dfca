"""``provisioner image create`` with OS_AUTH_URL: the files' bytes are uploaded.

The CLI runs against a real provisioner-api on a loopback port (the fixtures of
test_rest_cli), so no command reads the database or names a path to the server.
"""

import hashlib
import json
import os
import subprocess

import pytest

from provisioner.catalog import api as catalog_api
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.identity import service as identity
from provisioner.image import store
from provisioner import virt
from tests.unit.client.test_rest_cli import PASSWORD
from tests.unit.client.test_rest_cli import api  # noqa: F401 (a fixture)
from tests.unit.client.test_rest_cli import run  # noqa: F401 (a fixture)


def _json(result):
    code, out, err = result
    assert code == 0, err
    return json.loads(out)


def _row(name):
    with db_api.transaction() as session:
        row = session.query(models.Image).filter_by(name=name).one()
        return {c.name: getattr(row, c.name) for c in row.__table__.columns}


def _uploads(api):  # noqa: F811
    return [path for method, path in api['recorder'].requests
            if method == 'PUT' and path.endswith('/file')]


def test_image_create_file_uploads_the_bytes(run, api, tmp_path):  # noqa: F811
    disk = tmp_path / 'disk.qcow2'
    subprocess.run(['qemu-img', 'create', '-f', 'qcow2', str(disk), '1M'], check=True,
                   capture_output=True)
    created = _json(run('image', 'create', 'disk', '--file', disk, '--min-ram', 64,
                        '--format', 'json'))
    assert created['name'] == 'disk' and created['disk_format'] == 'qcow2'
    row = _row('disk')
    assert (row['status'], row['min_ram_mib']) == ('active', 64)
    assert row['disk_path'] == os.path.join(store.directory(), row['id'])
    assert row['disk_sha256'] == hashlib.sha256(disk.read_bytes()).hexdigest()
    assert _uploads(api) == ['/image/v2/images/%s/file' % row['id']]
    assert str(disk) not in json.dumps(created, default=str)
    assert [i['name'] for i in _json(run('image', 'list', '--format', 'json'))] \
        == ['disk']


def test_image_create_kernel_and_ramdisk_boots_from_the_store(run, api, tmp_path):  # noqa: F811
    kernel, ramdisk = tmp_path / 'vmlinuz', tmp_path / 'initrd'
    kernel.write_bytes(b'kernel bytes')
    ramdisk.write_bytes(b'initrd bytes')
    code, out, err = run('image', 'create', 'guest', '--kernel', kernel, '--ramdisk',
                         ramdisk, '--cmdline', 'console=ttyS0')
    assert code == 0, err
    guest, initrd = _row('guest'), _row('guest-ramdisk')
    assert (guest['disk_format'], initrd['disk_format']) == ('aki', 'ari')
    assert guest['properties'] == {'ramdisk_id': initrd['id']}
    assert guest['cmdline'] == 'console=ttyS0'
    assert guest['kernel_path'] == os.path.join(store.directory(), guest['id'])
    assert guest['ramdisk_path'] == initrd['store_path']
    assert guest['ramdisk_sha256'] == hashlib.sha256(b'initrd bytes').hexdigest()

    # The boot path copies the store's files into the host cache: it boots.
    context = identity.validate(identity.authenticate('admin', PASSWORD, 'admin'))
    catalog_api.CatalogAPI(context, virt.get_driver()).create_network(
        'net1', '10.88.0.0/24')
    assert run('flavor', 'create', 'tiny', '--vcpus', 1, '--ram', 128, '--disk', 1)[0] \
        == 0
    code, out, err = run('boot', 'vm1', '--flavor', 'tiny', '--image', 'guest',
                         '--network', 'net1')
    assert code == 0, err
    assert _json(run('show', 'vm1', '--format', 'json'))['vm_state'] == 'active'


def test_image_create_with_disk_kernel_and_ramdisk_links_all_three(run, tmp_path):  # noqa: F811
    for name, data in (('disk.raw', b'\0' * 4096), ('vmlinuz', b'k'), ('initrd', b'r')):
        (tmp_path / name).write_bytes(data)
    code, _, err = run('image', 'create', 'full', '--file', tmp_path / 'disk.raw',
                       '--kernel', tmp_path / 'vmlinuz', '--ramdisk',
                       tmp_path / 'initrd')
    assert code == 0, err
    full = _row('full')
    assert full['disk_format'] == 'raw'
    assert full['kernel_path'] == _row('full-kernel')['store_path']
    assert full['ramdisk_path'] == _row('full-ramdisk')['store_path']


def test_a_refused_upload_leaves_no_image_behind(run, tmp_path):  # noqa: F811
    base = tmp_path / 'base.raw'
    base.write_bytes(b'secret')
    overlay = tmp_path / 'overlay.qcow2'
    subprocess.run(['qemu-img', 'create', '-f', 'qcow2', '-b', str(base), '-F', 'raw',
                    str(overlay), '1M'], check=True, capture_output=True)
    code, out, err = run('image', 'create', 'evil', '--file', overlay)
    assert (code, out) == (2, '') and 'backing file' in err
    assert err.count('\n') == 1
    assert _json(run('image', 'list', '--format', 'json')) == []
    assert [f for f in os.listdir(store.directory()) if not f.startswith('.')] == []


@pytest.mark.parametrize('args,message', [
    (('x',), 'an image needs --file'),
    (('x', '--file', '/dev/null', '--ramdisk', '/dev/null'), '--ramdisk needs --kernel'),
])
def test_image_create_needs_files(run, args, message):  # noqa: F811
    code, _, err = run('image', 'create', *args)
    assert code == 2 and message in err
