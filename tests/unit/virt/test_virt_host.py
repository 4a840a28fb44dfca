"""Host: the shared connection, error translation and the virt_type probe."""

import os
import stat

import pytest

from provisioner import exception
from provisioner.virt.libvirt import host as libvirt_host


def test_connection_is_opened_once_and_reused(test_uri):
    host = libvirt_host.Host()
    assert host.get_connection() is host.get_connection()
    host.close()


def test_unreachable_libvirtd_says_what_to_do(conf, tmp_path):
    uri = 'qemu+unix:///system?socket=%s' % (tmp_path / 'no-such.sock')
    conf.set_override('connection_uri', uri, 'libvirt')
    with pytest.raises(exception.HypervisorUnavailable, match='libvirtd -d'):
        libvirt_host.Host().get_connection()


def test_libvirt_errors_become_hypervisor_errors(test_uri):
    conn = libvirt_host.Host().get_connection()
    with pytest.raises(exception.HypervisorError, match='looking up nothing failed'):
        with libvirt_host.translate_errors('looking up nothing'):
            conn.lookupByName('nothing')


def test_virt_type_configured_wins(conf, test_uri):
    conf.set_override('virt_type', 'kvm', 'libvirt')
    assert libvirt_host.Host().virt_type() == 'kvm'


def test_virt_type_auto_on_test_driver_is_qemu(conf, test_uri):
    assert libvirt_host.Host().virt_type() == 'qemu'


def _fake_emulator(tmp_path, body):
    path = tmp_path / 'fake-qemu'
    path.write_text('#!/bin/sh\n' + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


# The fake QEMU finds the debugcon log path in its arguments, like QEMU would.
_WRITE_MARKER = '''for a in "$@"; do case "$a" in file,id=bios,path=*)
  printf 'No bootable device.\\n' > "${a#file,id=bios,path=}";; esac; done
exec sleep 30
'''


def test_probe_succeeds_when_bios_finishes(tmp_path):
    assert libvirt_host.run_kvm_probe(_fake_emulator(tmp_path, _WRITE_MARKER))


def test_probe_fails_when_kvm_is_much_slower_than_tcg(tmp_path):
    # A nested KVM that cannot run guests gets SeaBIOS done, slowly (1.7 s against
    # TCG's 0.1 s on one project machine): well within the absolute deadline.
    slow_kvm = 'case " $* " in *" kvm "*) sleep 1;; esac\n' + _WRITE_MARKER
    assert libvirt_host.time_bios(_fake_emulator(tmp_path, slow_kvm), 'kvm', 5) > 1
    assert not libvirt_host.run_kvm_probe(_fake_emulator(tmp_path, slow_kvm))


def test_probe_fails_when_guest_hangs(tmp_path):
    assert not libvirt_host.run_kvm_probe(_fake_emulator(tmp_path, 'exec sleep 30\n'),
                                          deadline=0.3)


def test_probe_fails_when_qemu_exits(tmp_path):
    emulator = _fake_emulator(tmp_path, 'echo "Could not access KVM" >&2; exit 1\n')
    assert not libvirt_host.run_kvm_probe(emulator)


def test_probe_cache_is_per_boot_and_emulator(tmp_path):
    path = str(tmp_path / 'virt_type.json')
    libvirt_host._write_probe_cache(path, '/usr/bin/qemu', 'qemu')
    assert libvirt_host._read_probe_cache(path, '/usr/bin/qemu') == 'qemu'
    assert libvirt_host._read_probe_cache(path, '/other/qemu') is None
    assert not [n for n in os.listdir(tmp_path) if '.tmp-' in n]


def test_capacity(conf, test_uri):
    capacity = libvirt_host.Host().capacity(str(conf.state_path) + '/not/yet')
    assert set(capacity) == {'vcpus', 'memory_mib', 'disk_gib', 'arch',
                             'hypervisor_type'}
    assert capacity['vcpus'] > 0 and capacity['disk_gib'] > 0
    assert capacity['hypervisor_type'] == 'qemu'
