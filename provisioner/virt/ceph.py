"""A host's side of Ceph: root disks cloned in RBD, RBD volumes, and the libvirt
secret that gives QEMU the cephx key.

Names are derived from ids (Nova's and Cinder's), so a step run again, or undone
after a crash, finds what an earlier run made:
    <[libvirt] images_rbd_pool>/<instance uuid>_disk
    <[volume] rbd_pool>/volume-<volume id>

The key is read from this host's own keyring ([ceph] keyring) and goes only to its
libvirtd (virSecretSetValue); messages carry pool and image names.
"""

import logging
import subprocess

import libvirt

from provisioner import conf as provisioner_conf
from provisioner import exception
from provisioner.image import rbd_store
from provisioner.virt.libvirt import config
from provisioner.virt.libvirt import host as libvirt_host

LOG = logging.getLogger(__name__)
GIB = 1024 ** 3


def _conf():
    return provisioner_conf.CONF


def images_in_rbd():
    return _conf().libvirt.images_type == 'rbd'


def volumes_in_rbd():
    return _conf().volume.backend == 'rbd'


def is_rbd(path):
    return bool(path) and path.startswith(config.RBD_PREFIX)


# -- QEMU's access ----------------------------------------------------------------

def access():
    """The monitors, user and secret UUID a domain's RBD disks name."""
    uuid = _conf().ceph.secret_uuid
    if not uuid:
        raise exception.HypervisorError(
            reason='disks in Ceph need the libvirt secret of the cephx key: set '
                   '[ceph] secret_uuid on every host')
    return config.RbdAccess(tuple(rbd_store.monitors()), _conf().ceph.user, uuid)


def ensure_secret(conn):
    """This host's libvirt secret [ceph] secret_uuid, holding the key from this
    host's keyring (defined if absent, its value set every time: a changed key
    takes effect at the next boot or attach)."""
    rbd = access()
    secret = libvirt_host.lookup_or_none(conn.secretLookupByUUIDString,
                                         rbd.secret_uuid, libvirt.VIR_ERR_NO_SECRET,
                                         'secret')
    with libvirt_host.translate_errors('defining the Ceph secret %s'
                                       % rbd.secret_uuid):
        if secret is None:
            secret = conn.secretDefineXML(config.CephSecret(
                rbd.secret_uuid, 'client.%s %s' % (rbd.user, rbd.secret_uuid)).to_xml())
        secret.setValue(rbd_store.key())
    return rbd


# -- root disks -------------------------------------------------------------------

def root_disk_name(instance_uuid):
    return '%s_disk' % instance_uuid


def create_root_disk(instance_uuid, image_location, size_bytes):
    """A copy-on-write clone of the image's protected snapshot, at least
    ``size_bytes`` large; its spec rbd:<pool>/<name>."""
    return rbd_store.clone(image_location, _conf().libvirt.images_rbd_pool,
                           root_disk_name(instance_uuid), size_bytes)


def root_disk_spec(instance_uuid):
    return rbd_store.spec(_conf().libvirt.images_rbd_pool, root_disk_name(instance_uuid))


def root_disk_exists(instance_uuid):
    return rbd_store.exists(_conf().libvirt.images_rbd_pool,
                            root_disk_name(instance_uuid))


def root_disk_qemu_source(instance_uuid):
    return qemu_target(_conf().libvirt.images_rbd_pool, root_disk_name(instance_uuid))


def copy_root_disk_to_image(instance_uuid, image_pool, image_id, pause):
    """Nova's direct snapshot: a snapshot of the root disk (taken inside the
    ``pause()`` context: the guest's writes flushed), cloned into ``image_pool`` as
    ``image_id`` and flattened, with Glance's protected snapshot; the root disk's
    snapshot removed. Its location."""
    pool, disk = _conf().libvirt.images_rbd_pool, root_disk_name(instance_uuid)
    snap = 'snapshot-%s' % image_id
    with pause():
        rbd_store.snapshot(pool, disk, snap)
    where = rbd_store.flat_copy(pool, disk, snap, image_pool, image_id)
    rbd_store.remove_snapshot(pool, disk, snap)
    return where


def delete_image_copy(instance_uuid, image_pool, image_id):
    """Undo copy_root_disk_to_image: the image's RBD image and the root disk's
    snapshot, gone (absent is fine)."""
    rbd_store.remove(image_pool, image_id)
    rbd_store.remove_snapshot(_conf().libvirt.images_rbd_pool,
                              root_disk_name(instance_uuid), 'snapshot-%s' % image_id)


def delete_root_disk(instance_uuid):
    rbd_store.remove(_conf().libvirt.images_rbd_pool, root_disk_name(instance_uuid))


# -- volumes ----------------------------------------------------------------------

def volume_name(volume_id):
    return 'volume-%s' % volume_id


def volume_spec(volume_id):
    """The volume's spec, or None if it has no RBD image."""
    pool, name = _conf().volume.rbd_pool, volume_name(volume_id)
    return rbd_store.spec(pool, name) if rbd_store.exists(pool, name) else None


def make_volume(volume_id, size_gib, image_path=None, image_format=None):
    """The volume's RBD image, made if absent: blank, a clone of an image in RBD
    (Cinder's RBD driver clones from Glance's), or a copy of a cached image file;
    grown to ``size_gib`` if smaller. Its spec."""
    pool, name = _conf().volume.rbd_pool, volume_name(volume_id)
    size = int(size_gib) * GIB
    if rbd_store.is_location(image_path):
        return rbd_store.clone(image_path, pool, name, size)
    if image_path and not rbd_store.exists(pool, name):
        _copy_file_into(image_path, image_format, pool, name)
    rbd_store.create(pool, name, size)
    rbd_store.grow(pool, name, size)
    return rbd_store.spec(pool, name)


def qemu_target(pool, name):
    """How qemu-img names an RBD image, reached as this host's [ceph] user."""
    target = 'rbd:%s/%s:id=%s:conf=%s' % (pool, name, _conf().ceph.user,
                                          _conf().ceph.conf_file)
    if _conf().ceph.keyring:
        target += ':keyring=%s' % _conf().ceph.keyring
    return target


def _copy_file_into(path, image_format, pool, name):
    """qemu-img convert of a cached image into a new RBD image (as raw), written
    under a temporary name and renamed: a copy cut short is never the volume."""
    partial = name + '.part'
    rbd_store.remove(pool, partial)
    target = qemu_target(pool, partial)
    command = ['qemu-img', 'convert', '-O', 'raw']
    if image_format:
        command += ['-f', image_format]
    try:
        subprocess.run(command + [path, target], check=True, capture_output=True,
                       timeout=3600)
    except subprocess.CalledProcessError as exc:
        raise rbd_store.CephError(doing='copying image %s into volume %s' % (path, name),
                                  reason=exc.stderr.decode(errors='replace').strip())
    rbd_store.rename(pool, partial, name)


def delete_volume(volume_id):
    rbd_store.remove(_conf().volume.rbd_pool, volume_name(volume_id))
