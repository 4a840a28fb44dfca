"""libvirt dir storage pools and their qcow2 volumes, every call idempotent."""

import contextlib
import os
import subprocess
import time

import libvirt
from lxml import etree

from provisioner import exception
from provisioner import fileperms
from provisioner.virt.libvirt import config
from provisioner.virt.libvirt import host as libvirt_host

GIB = 1024 ** 3


def lookup_pool(conn, name):
    """The storage pool called ``name``, or None."""
    return libvirt_host.lookup_or_none(conn.storagePoolLookupByName, name,
                                       libvirt.VIR_ERR_NO_STORAGE_POOL, 'storage pool')


def _pool_path(pool):
    return etree.fromstring(pool.XMLDesc(0).encode()).findtext('target/path')


def pool_path(pool):
    """The directory a dir pool keeps its volumes in."""
    return _pool_path(pool)


def ensure_pool(conn, name, path):
    """A started, autostarted dir pool ``name`` at ``path`` (0750, hypervisor's group)."""
    fileperms.private_dir(path)  # QEMU (libvirt-qemu) must traverse it, nobody else
    pool = lookup_pool(conn, name)
    if pool is None:
        try:
            pool = conn.storagePoolDefineXML(config.StoragePoolDir(name, path).to_xml())
        except libvirt.libvirtError:
            pool = lookup_pool(conn, name)  # another worker defined it meanwhile
            if pool is None:
                with libvirt_host.translate_errors('defining storage pool %s' % name):
                    raise
    with libvirt_host.translate_errors('starting storage pool %s' % name):
        existing = _pool_path(pool)
        if os.path.realpath(existing) != os.path.realpath(path):
            raise exception.HypervisorError(
                reason='storage pool %s points at %s, not %s; remove it with '
                       '"virsh pool-destroy %s; virsh pool-undefine %s" or change '
                       'resource_prefix' % (name, existing, path, name, name))
        libvirt_host.start_and_autostart(pool)
    return pool


def delete_pool(conn, name):
    """Stop and undefine the pool (its directory and files stay); absent is fine."""
    pool = lookup_pool(conn, name)
    if pool is None:
        return
    with libvirt_host.translate_errors('deleting storage pool %s' % name):
        libvirt_host.stop_and_undefine(pool)


def lookup_volume(pool, name):
    """The volume ``name`` in ``pool``, or None (refreshes once for files made
    while libvirtd was not looking)."""
    for attempt in range(2):
        try:
            return pool.storageVolLookupByName(name)
        except libvirt.libvirtError as exc:
            if libvirt_host.error_code(exc) != libvirt.VIR_ERR_NO_STORAGE_VOL:
                with libvirt_host.translate_errors('looking up volume %s' % name):
                    raise
        if attempt == 0:
            _refresh(pool)
    return None


def _refresh(pool, patience=30.0):
    """Rescan the pool's directory, waiting out other processes' volume jobs.

    libvirt refuses a refresh while any volume of the pool is being built (say, a
    concurrent boot creating its volume), with an internal error; that passes.
    """
    deadline = time.monotonic() + patience
    while True:
        try:
            pool.refresh(0)
            return
        except libvirt.libvirtError as exc:
            busy = 'asynchronous jobs running' in str(exc)
            if not busy or time.monotonic() >= deadline:
                with libvirt_host.translate_errors('refreshing pool %s' % pool.name()):
                    raise
        time.sleep(0.05)


def volume_path(pool, name):
    volume = lookup_volume(pool, name)
    if volume is None:
        return None
    with libvirt_host.translate_errors('reading the path of volume %s' % name):
        return volume.path()


def create_volume(pool, name, capacity_bytes, backing_path=None, backing_format=None):
    """Create a qcow2 volume (an overlay when ``backing_path`` is given); return its
    path. An existing volume of that name is adopted."""
    existing = volume_path(pool, name)
    if existing:
        return existing
    volume_config = config.StorageVolume(name, capacity_bytes,
                                         backing_path=backing_path,
                                         backing_format=backing_format)
    with libvirt_host.translate_errors('creating volume %s in pool %s'
                                       % (name, pool.name())):
        return pool.createXML(volume_config.to_xml(), 0).path()


def delete_volume(pool, name):
    """Delete the volume; an absent one is fine."""
    volume = lookup_volume(pool, name)
    if volume is None:
        return
    try:
        volume.delete(0)
    except libvirt.libvirtError as exc:
        if libvirt_host.error_code(exc) == libvirt.VIR_ERR_NO_STORAGE_VOL:
            return
        with libvirt_host.translate_errors('deleting volume %s' % name):
            raise


def swap_in(pool, name, new_name, old_name):
    """Put volume ``new_name``'s file in ``name``'s place, keeping ``name``'s as
    ``old_name`` (a hard link made first: the old file is never lost). A re-run
    after a crash finishes the swap; one after it did nothing."""
    directory = _pool_path(pool)
    path, new, old = (os.path.join(directory, n) for n in (name, new_name, old_name))
    if os.path.exists(new):
        if os.path.exists(path) and not os.path.exists(old):
            os.link(path, old)
        os.replace(new, path)
    _refresh(pool)


def swap_back(pool, name, new_name, old_name):
    """Undo swap_in: ``old_name``'s file back as ``name`` (the new one dropped)."""
    directory = _pool_path(pool)
    path, new, old = (os.path.join(directory, n) for n in (name, new_name, old_name))
    if os.path.exists(old):
        os.replace(old, path)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(new)
    _refresh(pool)


def copy_into(pool, name, source_path, source_format=None, force_share=False):
    """Make volume ``name`` a full qcow2 copy of ``source_path`` (no backing file).

    Written under a temporary name and renamed, so a copy cut short by a crash is
    never taken for the volume. ``force_share``: the source may be open in a
    running guest (qemu-img's -U; the copy is then as a crash would leave it).
    """
    final = os.path.join(_pool_path(pool), name)
    partial = final + '.part'
    command = ['qemu-img', 'convert', '-O', 'qcow2']
    if force_share:
        command.append('-U')
    if source_format:
        command += ['-f', source_format]
    try:
        subprocess.run(command + [source_path, partial], check=True,
                       capture_output=True, timeout=3600)
    except subprocess.CalledProcessError as exc:
        raise exception.HypervisorError(
            reason='copying %s into volume %s failed: %s'
                   % (source_path, name, exc.stderr.decode(errors='replace').strip()))
    os.chmod(partial, 0o600)
    os.replace(partial, final)
    _refresh(pool)


def grow_volume(pool, name, capacity_bytes):
    """Grow the volume to ``capacity_bytes`` if it is smaller (never shrink)."""
    volume = lookup_volume(pool, name)
    with libvirt_host.translate_errors('growing volume %s' % name):
        if volume.info()[1] < capacity_bytes:
            volume.resize(capacity_bytes, 0)
