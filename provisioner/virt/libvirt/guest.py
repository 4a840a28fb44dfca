"""A thin wrapper over virDomain that makes start/stop/undefine idempotent."""

import time

import libvirt
from lxml import etree

from provisioner.virt.libvirt import config
from provisioner.virt.libvirt import host as libvirt_host

_POWER_STATES = {
    libvirt.VIR_DOMAIN_NOSTATE: 'nostate',
    libvirt.VIR_DOMAIN_RUNNING: 'running',
    libvirt.VIR_DOMAIN_BLOCKED: 'running',   # running, waiting on I/O
    libvirt.VIR_DOMAIN_PAUSED: 'paused',
    libvirt.VIR_DOMAIN_PMSUSPENDED: 'paused',
    libvirt.VIR_DOMAIN_SHUTDOWN: 'shutdown',  # shutting down
    libvirt.VIR_DOMAIN_SHUTOFF: 'shutdown',
    libvirt.VIR_DOMAIN_CRASHED: 'crashed',
}

_GONE = (libvirt.VIR_ERR_NO_DOMAIN,)


class Guest:
    def __init__(self, domain):
        self._domain = domain

    @property
    def name(self):
        return self._domain.name()

    @classmethod
    def define(cls, conn, xml):
        """Define (or redefine, same uuid and name) the domain from ``xml``."""
        with libvirt_host.translate_errors('defining a domain'):
            return cls(conn.defineXML(xml))

    def is_active(self):
        with libvirt_host.translate_errors('checking domain %s' % self.name):
            return self._domain.isActive() == 1

    def start(self):
        """Start the domain; one that already runs is left alone."""
        if self.is_active():
            return
        try:
            self._domain.create()
        except libvirt.libvirtError:
            # Drivers disagree on the code of "already running": ask the domain.
            if self.is_active():
                return
            with libvirt_host.translate_errors('starting domain %s' % self.name):
                raise

    def inject_nmi(self):
        """Send the guest a non-maskable interrupt (its kernel's crash dump)."""
        with libvirt_host.translate_errors('injecting an NMI into domain %s'
                                           % self.name):
            self._domain.injectNMI(0)

    def destroy(self):
        """Power the domain off at once; not running (or gone) is fine."""
        try:
            if not self._domain.isActive():
                return
            self._domain.destroy()
        except libvirt.libvirtError as exc:
            if libvirt_host.error_code(exc) in _GONE or not self._still_active():
                return
            with libvirt_host.translate_errors('stopping domain %s' % self.name):
                raise

    def shutdown(self, timeout, interval=0.5):
        """Press the ACPI power button, wait up to ``timeout`` s, then power off.

        Returns True when the guest shut itself down in time (a clean shutdown),
        False when it had to be destroyed. Not running (or gone) is success.
        """
        deadline = time.monotonic() + timeout
        try:
            if not self._domain.isActive():
                return True
            self._domain.shutdown()
        except libvirt.libvirtError as exc:
            # Gone, or stopped between the two calls: off is what was asked for.
            if libvirt_host.error_code(exc) in _GONE or not self._still_active():
                return True
            with libvirt_host.translate_errors('shutting down domain %s' % self.name):
                raise
        while time.monotonic() < deadline:
            if not self._still_active():
                return True
            time.sleep(min(interval, max(0.0, deadline - time.monotonic())))
        if not self._still_active():
            return True
        self.destroy()
        return False

    def pause(self):
        """Stop the guest's vCPUs (QEMU flushes its disks as it stops); a
        paused one is left alone. True if this paused it."""
        if self.power_state() != 'running':
            return False
        with libvirt_host.translate_errors('pausing domain %s' % self.name):
            self._domain.suspend()
        return True

    def unpause(self):
        """Let a paused guest run on; any other is left alone."""
        if self.power_state() != 'paused':
            return
        with libvirt_host.translate_errors('resuming domain %s' % self.name):
            self._domain.resume()

    def _still_active(self):
        try:
            return self._domain.isActive() == 1
        except libvirt.libvirtError:
            return False

    def undefine(self):
        """Forget the domain, with its NVRAM, managed save and snapshot metadata."""
        flags = (libvirt.VIR_DOMAIN_UNDEFINE_MANAGED_SAVE
                 | libvirt.VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA
                 | libvirt.VIR_DOMAIN_UNDEFINE_CHECKPOINTS_METADATA
                 | libvirt.VIR_DOMAIN_UNDEFINE_NVRAM)
        try:
            try:
                self._domain.undefineFlags(flags)
            except libvirt.libvirtError as exc:
                # Drivers that know no such flags refuse them; plain undefine then.
                if libvirt_host.error_code(exc) not in (libvirt.VIR_ERR_NO_SUPPORT,
                                                        libvirt.VIR_ERR_INVALID_ARG):
                    raise
                self._domain.undefine()
        except libvirt.libvirtError as exc:
            if libvirt_host.error_code(exc) in _GONE:
                return
            with libvirt_host.translate_errors('undefining domain %s' % self.name):
                raise

    def power_state(self):
        """One of 'running', 'paused', 'shutdown', 'crashed', 'nostate'."""
        try:
            state, _reason = self._domain.state()
        except libvirt.libvirtError as exc:
            if libvirt_host.error_code(exc) in _GONE:
                return 'nostate'
            with libvirt_host.translate_errors('reading the state of %s' % self.name):
                raise
        return _POWER_STATES.get(state, 'nostate')

    # -- disks (hot-plug) ---------------------------------------------------------

    def xml(self, live=True):
        """The running domain's XML, or its definition's."""
        flags = 0 if live else libvirt.VIR_DOMAIN_XML_INACTIVE
        with libvirt_host.translate_errors('reading the XML of %s' % self.name):
            return self._domain.XMLDesc(flags)

    def disks(self, live=True):
        """{target dev: source file (rbd:<pool>/<image> for an RBD disk)} of the
        running domain, or of its definition."""
        found = {}
        for disk in etree.fromstring(self.xml(live)).iterfind('./devices/disk'):
            target, source = disk.find('target'), disk.find('source')
            if target is not None:
                found[target.get('dev')] = _source(disk.get('type'), source)
        return found

    @staticmethod
    def _device_flags(live, persistent):
        return ((libvirt.VIR_DOMAIN_AFFECT_LIVE if live else 0)
                | (libvirt.VIR_DOMAIN_AFFECT_CONFIG if persistent else 0))

    def attach_device(self, xml, live=True, persistent=True):
        """Add a device to the running domain and/or to its definition."""
        with libvirt_host.translate_errors('attaching a device to %s: %s'
                                           % (self.name, xml.strip())):
            self._domain.attachDeviceFlags(xml, self._device_flags(live, persistent))

    def detach_device(self, xml, live=True, persistent=True):
        """Ask the running guest to release a device and/or drop it from the
        definition; the guest may take its time (see ``disks``)."""
        with libvirt_host.translate_errors('detaching a device from %s: %s'
                                           % (self.name, xml.strip())):
            self._domain.detachDeviceFlags(xml, self._device_flags(live, persistent))


def _source(disk_type, source):
    if source is None:
        return None
    if disk_type == 'network' and source.get('protocol') == 'rbd':
        return config.RBD_PREFIX + source.get('name')
    return source.get('file')
