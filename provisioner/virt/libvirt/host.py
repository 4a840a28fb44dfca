"""The libvirt connection of this process, what the host offers, and error translation."""

import contextlib
import json
import logging
import os
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.parse

import libvirt
from lxml import etree

from provisioner import conf as provisioner_conf
from provisioner import exception

LOG = logging.getLogger(__name__)

# Errors that mean "libvirtd is gone", not "this call was wrong". A SYSTEM_ERROR
# only counts when it comes from the RPC layer: elsewhere it is e.g. a bad file mode.
_CONNECTION_ERRORS = (libvirt.VIR_ERR_NO_CONNECT, libvirt.VIR_ERR_INVALID_CONN,
                      libvirt.VIR_ERR_RPC)
_CONNECTION_DOMAINS = (libvirt.VIR_FROM_RPC, libvirt.VIR_FROM_REMOTE)


def _is_connection_error(exc):
    return (exc.get_error_code() in _CONNECTION_ERRORS
            or (exc.get_error_code() == libvirt.VIR_ERR_SYSTEM_ERROR
                and exc.get_error_domain() in _CONNECTION_DOMAINS))

# A working KVM gets SeaBIOS to "No bootable device" about as fast as TCG does (both
# ~0.1-0.3 s: QEMU's own start dominates). A nested KVM that opens /dev/kvm but cannot
# really run guests took 1.7-3.9 s on the project machines, 15-35 times TCG's time on
# the same machine, and a real kernel never printed a line there. So KVM counts as
# usable only when it is at most KVM_PROBE_RATIO times slower than TCG (an absolute
# deadline alone let a 1.7 s broken KVM pass).
KVM_PROBE_DEADLINE = 2.0
KVM_PROBE_RATIO = 4.0
KVM_PROBE_FLOOR = 0.5  # seconds; QEMU's start varies on a busy machine
_BIOS_DONE_MARKERS = (b'No bootable device', b'Booting from')
_PROBE_CACHE_FILE = 'virt_type.json'
_PROBE_VERSION = 2  # answers of an older probe are not trusted: probe again

_probed_virt_types = {}   # uri -> 'kvm' | 'qemu', for this process
_probe_lock = threading.Lock()


def _silence_libvirt_stderr(_ctx, _err):
    # libvirt prints every error to stderr by default; we raise them instead.
    pass


libvirt.registerErrorHandler(_silence_libvirt_stderr, None)


def error_code(exc):
    return exc.get_error_code() if isinstance(exc, libvirt.libvirtError) else None


@contextlib.contextmanager
def translate_errors(action):
    """Turn a libvirtError into HypervisorUnavailable or HypervisorError."""
    try:
        yield
    except libvirt.libvirtError as exc:
        uri = provisioner_conf.CONF.libvirt.connection_uri
        if _is_connection_error(exc):
            raise exception.HypervisorUnavailable(
                uri=uri, reason='%s failed: %s' % (action, exc.get_error_message())
            ) from exc
        raise exception.HypervisorError(
            reason='%s failed: %s' % (action, exc.get_error_message())) from exc


def _boot_id():
    try:
        with open('/proc/sys/kernel/random/boot_id') as f:
            return f.read().strip()
    except OSError:
        return 'unknown'


def _kvm_emulator(conn):
    """The QEMU binary libvirt would use for kvm guests, or None if libvirt says no."""
    try:
        caps = conn.getDomainCapabilities(None, None, None, 'kvm')
    except libvirt.libvirtError as exc:
        LOG.info('libvirt offers no KVM guests: %s', exc.get_error_message())
        return None
    path = etree.fromstring(caps.encode()).findtext('path')
    return path if path and os.access(path, os.X_OK) else None


def run_kvm_probe(emulator, deadline=KVM_PROBE_DEADLINE):
    """True when KVM runs SeaBIOS within ``deadline`` and not much slower than TCG.

    Costs two short QEMU starts: ~0.3 s where KVM works, up to ~0.6 s where not.
    """
    tcg = time_bios(emulator, 'tcg', deadline)
    if tcg is not None:
        deadline = min(deadline, max(KVM_PROBE_FLOOR, KVM_PROBE_RATIO * tcg))
    kvm = time_bios(emulator, 'kvm', deadline)
    LOG.info('KVM probe: SeaBIOS finished in %s under KVM (limit %.2f s), %s under TCG',
             _seconds(kvm), deadline, _seconds(tcg))
    return kvm is not None


def _seconds(elapsed):
    return 'more than the limit' if elapsed is None else '%.2f s' % elapsed


def time_bios(emulator, accel, deadline):
    """Seconds SeaBIOS takes, without disks, under ``accel``; None past ``deadline``."""
    workdir = tempfile.mkdtemp(prefix='kvm-probe-')
    log_path = os.path.join(workdir, 'bios.log')
    cmd = [emulator, '-accel', accel, '-machine', 'pc', '-nodefaults', '-m', '16',
           '-display', 'none', '-monitor', 'none', '-serial', 'none',
           '-parallel', 'none', '-no-reboot', '-boot', 'strict=on',
           '-chardev', 'file,id=bios,path=%s' % log_path,
           '-device', 'isa-debugcon,iobase=0x402,chardev=bios']
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except OSError as exc:
        shutil.rmtree(workdir, ignore_errors=True)
        LOG.info('KVM probe could not start %s: %s', emulator, exc)
        return None
    started = time.monotonic()
    try:
        while time.monotonic() - started < deadline:
            if proc.poll() is not None:
                LOG.info('KVM probe: QEMU (%s) exited: %s', accel,
                         proc.stderr.read().decode(errors='replace').strip())
                return None
            with contextlib.suppress(OSError):
                with open(log_path, 'rb') as f:
                    if any(marker in f.read() for marker in _BIOS_DONE_MARKERS):
                        return time.monotonic() - started
            time.sleep(0.02)
        return None
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stderr.close()
        shutil.rmtree(workdir, ignore_errors=True)


def _read_probe_cache(path, emulator):
    try:
        with open(path) as f:
            cached = json.load(f)
    except (OSError, ValueError):
        return None
    # A reboot or another QEMU may change the answer: probe again then.
    if (cached.get('boot_id') == _boot_id() and cached.get('emulator') == emulator
            and cached.get('probe') == _PROBE_VERSION):
        return cached.get('virt_type')
    return None


def _write_probe_cache(path, emulator, virt_type):
    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        tmp = '%s.tmp-%d' % (path, os.getpid())
        with open(tmp, 'w') as f:
            json.dump({'boot_id': _boot_id(), 'emulator': emulator,
                       'virt_type': virt_type, 'probe': _PROBE_VERSION}, f)
        os.replace(tmp, path)


def _is_local_qemu(uri):
    parsed = urllib.parse.urlparse(uri)
    return parsed.scheme.split('+')[0] == 'qemu' and not parsed.hostname


class Host:
    """This host's libvirtd: one lazily opened connection, reused by every thread."""

    def __init__(self):
        self._conn = None
        self._conn_uri = None
        self._lock = threading.Lock()

    def get_connection(self):
        uri = provisioner_conf.CONF.libvirt.connection_uri
        with self._lock:
            if self._conn is not None and self._conn_uri == uri and self._alive():
                return self._conn
            self.close_locked()
            try:
                self._conn = libvirt.open(uri)
            except libvirt.libvirtError as exc:
                raise exception.HypervisorUnavailable(
                    uri=uri, reason=exc.get_error_message()) from exc
            self._conn_uri = uri
            return self._conn

    def _alive(self):
        try:
            return self._conn.isAlive() == 1
        except libvirt.libvirtError:
            return False

    def close_locked(self):
        if self._conn is not None:
            with contextlib.suppress(libvirt.libvirtError):
                self._conn.close()
        self._conn = None
        self._conn_uri = None

    def close(self):
        with self._lock:
            self.close_locked()

    def virt_type(self):
        """'kvm' or 'qemu': the configured type, or the probed one for 'auto'."""
        configured = provisioner_conf.CONF.libvirt.virt_type
        if configured != 'auto':
            return configured
        uri = provisioner_conf.CONF.libvirt.connection_uri
        with _probe_lock:
            if uri not in _probed_virt_types:
                _probed_virt_types[uri] = self._probe_virt_type(uri)
            return _probed_virt_types[uri]

    def _probe_virt_type(self, uri):
        conn = self.get_connection()
        with translate_errors('asking libvirt for its hypervisor type'):
            driver_type = conn.getType()
        if driver_type != 'QEMU':
            return 'qemu'  # the test:/// driver emulates whatever it is given
        emulator = _kvm_emulator(conn)
        if emulator is None:
            return 'qemu'
        if not _is_local_qemu(uri):
            # The probe runs QEMU locally; a remote libvirtd is trusted on its word.
            return 'kvm'
        cache = os.path.join(provisioner_conf.CONF.state_path, _PROBE_CACHE_FILE)
        cached = _read_probe_cache(cache, emulator)
        if cached:
            return cached
        virt_type = 'kvm' if run_kvm_probe(emulator) else 'qemu'
        LOG.info('KVM probe with %s: guests will use virt_type %s', emulator, virt_type)
        _write_probe_cache(cache, emulator, virt_type)
        return virt_type

    def capacity(self, state_path):
        """What this host offers: vcpus, memory_mib, disk_gib, arch, hypervisor_type."""
        conn = self.get_connection()
        with translate_errors('reading the host capacity'):
            model, memory_mib, cpus = conn.getInfo()[:3]
        path = state_path
        while not os.path.exists(path):  # not created yet: measure its filesystem
            path = os.path.dirname(path) or '/'
        stat = os.statvfs(path)
        return {'vcpus': cpus, 'memory_mib': memory_mib,
                'disk_gib': stat.f_blocks * stat.f_frsize // 1024 ** 3,
                'arch': model, 'hypervisor_type': self.virt_type()}


def start_and_autostart(obj):
    """Start a libvirt network or storage pool and mark it autostart.

    Losing a race to start it is fine: what matters is that it runs afterwards.
    """
    if not obj.isActive():
        try:
            obj.create()
        except libvirt.libvirtError:
            if not obj.isActive():
                raise
    if not obj.autostart():
        obj.setAutostart(1)


def stop_and_undefine(obj):
    """Stop (if running) and undefine a libvirt network or storage pool."""
    if obj.isActive():
        obj.destroy()
    obj.undefine()


def lookup_or_none(lookup, name, missing_code, what):
    """``lookup(name)``, or None when libvirt says it does not exist (missing_code)."""
    try:
        return lookup(name)
    except libvirt.libvirtError as exc:
        if error_code(exc) == missing_code:
            return None
        with translate_errors('looking up %s %s' % (what, name)):
            raise
