"""A guest of the project's test image on a namespace host's own libvirtd."""

import pathlib
import secrets
import time
from xml.sax import saxutils

BOOT_TIMEOUT = 180  # TCG on a shared 2-core machine
READY = 'PROVISIONER-GUEST: ready'


def guest_xml(name, kernel, initramfs, console):
    """Direct kernel boot, TCG (KVM does not work here), the console to a file."""
    quote = saxutils.escape
    return f"""<domain type='qemu'>
  <name>{quote(name)}</name>
  <memory unit='MiB'>128</memory>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>{quote(str(kernel))}</kernel>
    <initrd>{quote(str(initramfs))}</initrd>
    <cmdline>console=ttyS0</cmdline>
  </os>
  <features><acpi/></features>
  <devices>
    <serial type='file'>
      <source path='{quote(str(console))}' append='on'/>
      <target port='0'/>
    </serial>
  </devices>
</domain>"""


def start_guest(host, guest_image, directory):
    """A transient guest on ``host``'s libvirtd: (domain name, console path)."""
    import libvirt
    name = 'nshost-%s' % secrets.token_hex(3)
    console = pathlib.Path(directory) / ('%s.console' % name)
    conn = libvirt.open(host.libvirt_uri)
    try:
        conn.createXML(guest_xml(name, *guest_image, console), 0)
    finally:
        conn.close()
    return name, console


def qemu_pid(member, name):
    """The root-namespace pid of guest ``name``'s QEMU among ``member``'s processes
    (libvirt's pid file inside holds its pid in the host's pid namespace)."""
    for pid in member.pids():
        try:
            argv = pathlib.Path('/proc/%d/cmdline' % pid).read_bytes().split(b'\0')
        except OSError:
            continue
        if b'guest=%s,' % name.encode() in b' '.join(argv) + b',':
            return pid
    return None


def wait_for_console(console, marker=READY, timeout=BOOT_TIMEOUT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if console.exists() and marker in console.read_text(errors='replace'):
            return
        time.sleep(0.5)
    raise AssertionError('the guest never printed %r; console:\n%s' % (
        marker, console.read_text(errors='replace') if console.exists() else '(none)'))
