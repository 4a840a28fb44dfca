"""RBD as provisioner will use it, on a real one-node cluster (tools/ceph-cluster).

The cluster runs in a network namespace of its own, joined to this one by a veth pair
(as a storage host on the hosts' underlay), and is shared by the module. Everything
is done as the restricted client (``profile rbd`` on the three pools), from this
namespace: the rbd command, qemu-img, librbd through Python, and QEMU under the real
libvirtd, which boots the test guest from a copy-on-write clone and gets the key as a
libvirt secret. The cluster is SIGKILLed and restarted under the running guest; a
client whose address is blocklisted (a fenced host) can no longer write.
"""

import base64
import json
import pathlib
import secrets
import select
import subprocess
import sys
import time
import uuid
import xml.etree.ElementTree as ET

import pytest

from tests import ceph
from tests import netutil
from tests.functional import conftest

libvirt = pytest.importorskip('libvirt')
libvirt_qemu = pytest.importorskip('libvirt_qemu')

MIB = 1024 * 1024
# BIOS boot from RBD under TCG: 30-60 s idle, 120 s seen on a loaded 2-core machine.
BOOT_TIMEOUT = 300
BYTE_BEFORE, BYTE_FENCED = 0x5a, 0x7c
# What QEMU logs when librbd fails a write (cmd 1) because the client is blocklisted.
FAILED_WRITE = 'rbd request failed: cmd 1 offset 0 bytes 4096 flags 0 task.ret -108'


@pytest.fixture(scope='module')
def workdir(ceph_workdir):
    """The run's Ceph directory (conftest.py): libvirt's QEMU reaches it."""
    return ceph_workdir


@pytest.fixture(scope='module')
def cluster(shared_cluster):
    """The run's one cluster (conftest.py)."""
    return shared_cluster


@pytest.fixture
def images(cluster):
    """Names (pool/image) a test makes, removed after it."""
    made = []
    yield made
    _remove_images(cluster, made)


def _remove_images(cluster, specs):
    """Remove the images (pool/image), clones before their parents (made before)."""
    for spec in reversed(specs):
        cluster.rbd('snap', 'unprotect', spec + '@base', check=False)
        cluster.rbd('snap', 'purge', spec, check=False)
        cluster.rbd('rm', spec)


def _unique(prefix):
    return '%s-%s' % (prefix, secrets.token_hex(3))


def _raw_guest_disk(workdir):
    """The test guest's BIOS disk as raw, as an image upload converts it once."""
    raw = workdir / ('guest-%s.raw' % secrets.token_hex(3))
    subprocess.run(['qemu-img', 'convert', '-f', 'qcow2', '-O', 'raw',
                    str(conftest.build_guest_image()[2]), str(raw)], check=True)
    return raw


def _image_from_guest_disk(cluster, workdir, images):
    """images/<name> holding the guest's disk, with a protected snapshot ``base``."""
    raw = _raw_guest_disk(workdir)
    spec = 'images/%s' % _unique('guest')
    cluster.rbd('import', '--image-format', '2', raw, spec)
    raw.unlink()
    images.append(spec)
    cluster.rbd('snap', 'create', spec + '@base')
    cluster.rbd('snap', 'protect', spec + '@base')
    return spec


def _clone(cluster, images, parent, pool, size_mib):
    spec = '%s/%s' % (pool, _unique('disk'))
    cluster.rbd('clone', parent + '@base', spec)
    images.append(spec)
    cluster.rbd('resize', '--size', '%dM' % size_mib, spec)
    return spec


def test_image_snapshot_clone_and_resize_with_the_restricted_key(cluster, workdir,
                                                                   images):
    parent = _image_from_guest_disk(cluster, workdir, images)
    started = time.monotonic()
    root = _clone(cluster, images, parent, 'vms', 64)
    assert time.monotonic() - started < 10, 'a clone copies nothing: it is quick'

    info = cluster.rbd_json('info', root)
    assert info['parent']['pool'] == 'images'
    assert info['parent']['image'] == parent.split('/')[1]
    assert info['parent']['snapshot'] == 'base'
    assert [(snap['name'], snap['protected']) for snap in cluster.rbd_json(
        'snap', 'ls', parent)] == [('base', 'true')]
    assert info['size'] == 64 * MIB
    qemu = subprocess.run(
        ['qemu-img', 'info', '--output', 'json', 'rbd:%s:id=%s:conf=%s' % (
            root, cluster.client, cluster.client_conf)],
        capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(qemu.stdout)['virtual-size'] == 64 * MIB
    # The clone reads as its parent: the guest disk's boot sector is there.
    boot_sector = subprocess.run(
        ['qemu-img', 'dd', '-f', 'raw', '-O', 'raw', 'bs=512', 'count=1',
         'if=rbd:%s:id=%s:conf=%s' % (root, cluster.client, cluster.client_conf),
         'of=%s' % (workdir / 'mbr')], capture_output=True, text=True, timeout=60)
    assert boot_sector.returncode == 0, boot_sector.stderr
    assert (workdir / 'mbr').read_bytes()[510:512] == b'\x55\xaa'

    # A protected snapshot with a clone cannot go; the key reaches no other pool.
    assert cluster.rbd('snap', 'unprotect', parent + '@base', check=False).returncode
    other = _unique('other')
    cluster.ceph_admin('osd', 'pool', 'create', other, '8')
    try:
        cluster.ceph_admin('osd', 'pool', 'application', 'enable', other, 'rbd')
        denied = cluster.rbd('ls', other, check=False)
        assert denied.returncode != 0 and 'Operation not permitted' in denied.stderr
    finally:
        cluster.ceph_admin('osd', 'pool', 'delete', other, other,
                           '--yes-i-really-really-mean-it')
    create_pool = subprocess.run(
        ['ceph', '--conf', cluster.client_conf, '--id', cluster.client,
         '--connect-timeout', '30', 'osd', 'pool', 'create', _unique('nope')],
        capture_output=True, text=True, timeout=60)
    assert create_pool.returncode != 0 and 'EACCES' in create_pool.stderr


def test_librbd_through_python_in_the_test_environment(cluster):
    rados, rbd = ceph.import_bindings()
    name = _unique('py')
    with rados.Rados(conffile=cluster.client_conf, rados_id=cluster.client) as client:
        with client.open_ioctx('images') as images, client.open_ioctx('vms') as vms:
            rbd.RBD().create(images, name, 8 * MIB, old_format=False,
                             features=rbd.RBD_FEATURE_LAYERING)
            try:
                with rbd.Image(images, name) as image:
                    image.write(b'written through librbd', 0)
                    image.create_snap('base')
                    image.protect_snap('base')
                rbd.RBD().clone(images, name, 'base', vms, name,
                                features=rbd.RBD_FEATURE_LAYERING)
                try:
                    with rbd.Image(vms, name) as clone:
                        assert clone.read(0, 22) == b'written through librbd'
                        assert clone.parent_info() == ('images', name, 'base')
                        clone.resize(16 * MIB)
                        assert clone.size() == 16 * MIB
                finally:
                    rbd.RBD().remove(vms, name)
            finally:
                with rbd.Image(images, name) as image:
                    image.unprotect_snap('base')
                    image.remove_snap('base')
                rbd.RBD().remove(images, name)


# --- a guest on RBD ---------------------------------------------------------------

def _disk_xml(cluster, secret_uuid, spec, target):
    return """<disk type='network' device='disk'>
  <driver name='qemu' type='raw' cache='none'/>
  <source protocol='rbd' name='%s'><host name='%s' port='%d'/></source>
  <auth username='%s'><secret type='ceph' uuid='%s'/></auth>
  <target dev='%s' bus='virtio'/>
</disk>""" % (spec, cluster.address, cluster.mon_port, cluster.client, secret_uuid,
              target)


def _domain_xml(name, console, root_disk):
    return """<domain type='qemu'>
  <name>%s</name>
  <memory unit='MiB'>128</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64'>hvm</type><boot dev='hd'/></os>
  <features><acpi/></features>
  <devices>
    %s
    <serial type='file'><source path='%s' append='on'/><target port='0'/></serial>
    <console type='file'><source path='%s' append='on'/>
      <target type='serial' port='0'/></console>
  </devices>
</domain>""" % (name, root_disk, console, console)


class Guest:
    """The test guest under the real libvirtd, its disks in RBD."""

    def __init__(self, conn, cluster, secret_uuid, domain, console):
        self.conn, self.cluster, self.secret_uuid = conn, cluster, secret_uuid
        self.domain, self.console = domain, console

    def disks_line(self):
        """The last ``disks=`` the guest printed on its serial console."""
        text = self.console.read_text(errors='replace') if self.console.exists() else ''
        lines = [line for line in text.splitlines()
                 if line.startswith('PROVISIONER-GUEST: disks=')]
        return lines[-1].split('=', 1)[1] if lines else None

    def wait_for_disks(self, expected, timeout=BOOT_TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.disks_line() == expected:
                return
            time.sleep(0.5)
        pytest.fail('the guest never printed disks=%s; its console:\n%s' % (
            expected, self.console.read_text(errors='replace')
            if self.console.exists() else '(none)'))

    def attach(self, spec, target):
        self.domain.attachDeviceFlags(
            _disk_xml(self.cluster, self.secret_uuid, spec, target),
            libvirt.VIR_DOMAIN_AFFECT_LIVE)

    def detach_all_but_root(self, *targets):
        for target in targets:
            self.domain.detachDeviceFlags(
                "<disk type='network' device='disk'><target dev='%s' bus='virtio'/>"
                "</disk>" % target, libvirt.VIR_DOMAIN_AFFECT_LIVE)
        self.wait_for_disks('vda', timeout=60)

    def qemu_write(self, target, byte):
        """QEMU writes 4 KiB at offset 0 of a disk, as the guest's own write would go:
        through QEMU's open librbd client of that disk (HMP qemu-io)."""
        alias = next(disk.find('alias').get('name')
                     for disk in ET.fromstring(self.domain.XMLDesc(0)).iter('disk')
                     if disk.find('target').get('dev') == target)
        libvirt_qemu.qemuMonitorCommand(
            self.domain, 'qemu-io -d /machine/peripheral/%s/virtio-backend '
            '"write -P %d 0 4k"' % (alias, byte),
            libvirt_qemu.VIR_DOMAIN_QEMU_MONITOR_COMMAND_HMP)

    def qemu_log(self):
        return pathlib.Path('/var/log/libvirt/qemu/%s.log' % self.domain.name()) \
            .read_text(errors='replace')


def _first_block(cluster, spec):
    """The first 4 KiB of an image, as a new client (librbd) reads them."""
    rados, rbd = ceph.import_bindings()
    pool, name = spec.split('/')
    with rados.Rados(conffile=cluster.client_conf, rados_id=cluster.client) as client:
        with client.open_ioctx(pool) as ioctx, rbd.Image(ioctx, name,
                                                         read_only=True) as image:
            return image.read(0, 4096)


@pytest.fixture(scope='module')
def guest(cluster, workdir):
    """The test guest booted by BIOS from a copy-on-write clone of the guest image."""
    try:
        conn = libvirt.open('qemu:///system')
    except libvirt.libvirtError as exc:
        pytest.skip('libvirtd is not reachable at qemu:///system: %s' % exc)
    made = []
    name = _unique('ceph-test')
    secret_uuid = str(uuid.uuid4())
    # Ephemeral and private: libvirt keeps the value in memory only and never gives
    # it back; the key goes from the keyring to libvirt without a command line.
    secret = conn.secretDefineXML(
        "<secret ephemeral='yes' private='yes'><uuid>%s</uuid><usage type='ceph'>"
        "<name>%s client.%s</name></usage></secret>" % (secret_uuid, name,
                                                         cluster.client))
    domain = None
    try:
        secret.setValue(base64.b64decode(cluster.key))
        parent = _image_from_guest_disk(cluster, workdir, made)
        root = _clone(cluster, made, parent, 'vms', 64)
        console = workdir / ('%s.console.log' % name)
        domain = conn.defineXML(_domain_xml(name, console, _disk_xml(
            cluster, secret_uuid, root, 'vda')))
        domain.create()
        guest = Guest(conn, cluster, secret_uuid, domain, console)
        guest.wait_for_disks('vda')
        yield guest
    finally:
        if domain is not None:
            if domain.isActive():
                domain.destroy()
            domain.undefine()
        secret.undefine()
        _remove_images(cluster, made)
        conn.close()


def _volume(cluster, images, size_mib=32):
    spec = 'volumes/%s' % _unique('vol')
    cluster.rbd('create', '--size', '%dM' % size_mib, spec)
    images.append(spec)
    return spec


def test_guest_boots_from_rbd_and_goes_on_through_a_cluster_kill(cluster, guest, images):
    first = _volume(cluster, images)
    guest.attach(first, 'vdb')
    guest.wait_for_disks('vda vdb', timeout=60)
    guest.qemu_write('vdb', BYTE_BEFORE)
    assert _first_block(cluster, first) == bytes([BYTE_BEFORE]) * 4096

    cluster.restart(kill=True)

    assert guest.domain.isActive()
    # QEMU's clients opened before the kill write on, through the same connection...
    guest.qemu_write('vdb', BYTE_BEFORE + 1)
    assert _first_block(cluster, first) == bytes([BYTE_BEFORE + 1]) * 4096
    # ... and the guest sees a disk plugged after it.
    guest.attach(_volume(cluster, images), 'vdc')
    guest.wait_for_disks('vda vdb vdc', timeout=60)
    guest.detach_all_but_root('vdb', 'vdc')


def test_a_blocklisted_qemu_client_writes_nothing(cluster, guest, images):
    """Fencing, per client: blocklisting the address of the librbd client QEMU opened
    for one disk makes QEMU's writes to that disk fail; its other disks write on."""
    fenced, other = _volume(cluster, images), _volume(cluster, images)
    guest.attach(fenced, 'vdb')
    guest.attach(other, 'vdc')
    guest.wait_for_disks('vda vdb vdc', timeout=60)
    guest.qemu_write('vdb', BYTE_BEFORE)
    watchers = cluster.rbd_json('status', fenced)['watchers']
    assert len(watchers) == 1, watchers          # QEMU, the only client with it open
    address = watchers[0]['address']
    failed_before = guest.qemu_log().count(FAILED_WRITE)
    cluster.ceph_admin('osd', 'blocklist', 'add', address)
    try:
        guest.qemu_write('vdb', BYTE_FENCED)
        guest.qemu_write('vdc', BYTE_FENCED)
        assert _first_block(cluster, fenced) == bytes([BYTE_BEFORE]) * 4096
        assert _first_block(cluster, other) == bytes([BYTE_FENCED]) * 4096
        # QEMU saw its write fail (-108 ESHUTDOWN: librbd's "blocklisted"): with
        # cache='none' at once, as the guest's write would.
        assert guest.qemu_log().count(FAILED_WRITE) == failed_before + 1
    finally:
        cluster.ceph_admin('osd', 'blocklist', 'rm', address)
    guest.detach_all_but_root('vdb', 'vdc')


# --- fencing a host ---------------------------------------------------------------

class Writer:
    """tests/functional/ceph/rbd_writer.py in a network namespace: another host."""

    def __init__(self, cluster, netns, spec):
        self.process = subprocess.Popen(
            ['ip', 'netns', 'exec', netns, sys.executable, '-m',
             'tests.functional.ceph.rbd_writer', cluster.client_conf, cluster.client]
            + spec.split('/'), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, cwd=conftest.REPO)
        self.address = self._answer().split()[1]

    def _answer(self, timeout=90):
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if ready else ''
        if not line:
            self.process.kill()
            raise AssertionError('the writer said nothing: %s'
                                 % self.process.communicate()[1])
        return line.strip()

    def write(self, byte):
        self.process.stdin.write('write %d 0\n' % byte)
        self.process.stdin.flush()
        return self._answer()

    def close(self):
        self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def test_a_fenced_host_can_never_write_again(cluster, images):
    """Fencing a host: blocklisting its address (IP:0/0, every client it has or will
    have) fails the writes of a client that had the image open, and of any new one,
    until the entry is removed; other hosts write on."""
    spec = _volume(cluster, images, size_mib=8)
    with ceph.throwaway_namespace(netutil.free_cidr(254), peer=cluster.netns,
                                  reach=[cluster.address]) as (host, host_ip, _):
        writer = Writer(cluster, host, spec)
        try:
            assert writer.address.startswith(host_ip + ':')
            assert writer.write(BYTE_BEFORE) == 'ok'
            cluster.ceph_admin('osd', 'blocklist', 'add', '%s:0/0' % host_ip)
            try:
                answer = writer.write(BYTE_FENCED)
                assert answer.startswith('error 108 '), answer
                assert _first_block(cluster, spec) == bytes([BYTE_BEFORE]) * 4096
                late = Writer(cluster, host, spec)     # a new client on that host
                try:
                    assert late.write(BYTE_FENCED).startswith('error 108 ')
                finally:
                    late.close()
                assert _first_block(cluster, spec) == bytes([BYTE_BEFORE]) * 4096
            finally:
                cluster.ceph_admin('osd', 'blocklist', 'rm', '%s:0/0' % host_ip)
            # The old client stays dead; a new one writes once the host is let back.
            assert writer.write(BYTE_FENCED).startswith('error 108 ')
        finally:
            writer.close()
        again = Writer(cluster, host, spec)
        try:
            assert again.write(BYTE_FENCED) == 'ok'
        finally:
            again.close()
    assert _first_block(cluster, spec) == bytes([BYTE_FENCED]) * 4096
