"""LibvirtDriver: the facade host-side tasks call, grouped by resource.

Every method is idempotent and finds its resources by deterministic names derived from
IDs, so a re-run, a resume or a revert after a crash finds what an earlier run made.

Layout under CONF.state_path (every directory 0755: QEMU runs as libvirt-qemu):
    images/             verified image cache, files named by sha256
    instances/<uuid>/   console.log and disk.config (the config drive)
    disks/              pool <prefix>-instances: instance-<uuid>-root.qcow2
    volumes/            pool <prefix>-volumes: volume-<id>.qcow2

With [libvirt] images_type = rbd and [volume] backend = rbd, root disks and
volumes are RBD images instead (provisioner.virt.ceph); their "path" is
rbd:<pool>/<image>.

<prefix> is [libvirt] resource_prefix, by default derived from state_path
(``resource_prefix()``): what this deployment owns on a host is decidable from
names and paths alone (provisioner.virt.inventory).
"""

import contextlib
import grp
import hashlib
import os
import pathlib
import pwd
import re
import shutil
import stat
import struct
import uuid as uuid_lib

import libvirt

from provisioner import conf as provisioner_conf
from provisioner import exception
from provisioner import fileperms
from provisioner.image import cache as image_cache
from provisioner.image import fetcher
from provisioner.image import rbd_store
from provisioner.virt import ceph
from provisioner.virt import configdrive
from provisioner.virt import deployment
from provisioner.virt import host_networks
from provisioner.virt import live_migration
from provisioner.virt import port_filters
from provisioner.virt import image_snapshots
from provisioner.virt import rebuild_files
from provisioner.virt.libvirt import designer
from provisioner.virt.libvirt import guest as libvirt_guest
from provisioner.virt.libvirt import host as libvirt_host
from provisioner.virt.libvirt import hotplug
from provisioner.virt.libvirt import storage
from provisioner.virt import volume_copies

GIB = 1024 ** 3
REBUILD_SUFFIX = rebuild_files.REBUILD_SUFFIX
PREVIOUS_SUFFIX = rebuild_files.PREVIOUS_SUFFIX
_MAX_BRIDGE_NAME = 15  # IFNAMSIZ - 1
_SAFE_ID = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$')


def _conf():
    return provisioner_conf.CONF


def _instance_uuid(value):
    try:
        return str(uuid_lib.UUID(str(value)))
    except ValueError:
        raise exception.Invalid(reason='%r is not an instance UUID' % (value,))


def _safe_id(kind, value):
    # IDs end up in file and libvirt names: refuse anything that could walk a path.
    value = str(value)
    if not _SAFE_ID.fullmatch(value):
        raise exception.Invalid(reason='%s id %r may only contain letters, digits, '
                                       '".", "_" and "-"' % (kind, value))
    return value


def first_closed_directory(path, uid, gids):
    """The first existing directory on path (from /) that uid/gids cannot enter."""
    path = os.path.abspath(path)
    chain = [path] + [str(p) for p in pathlib.Path(path).parents]
    for directory in reversed(chain):
        if os.path.isdir(directory) and not _may_traverse(os.stat(directory), uid, gids):
            return directory
    return None


def _may_traverse(st, uid, gids):
    if st.st_uid == uid:
        return bool(st.st_mode & stat.S_IXUSR)
    if st.st_gid in gids:
        return bool(st.st_mode & stat.S_IXGRP)
    return bool(st.st_mode & stat.S_IXOTH)


def _makedirs(path):
    os.makedirs(path, mode=0o755, exist_ok=True)
    return path


def _virtual_size(path, image_format):
    """Guest-visible size of an image: the qcow2 header's size field, else file size."""
    if image_format == 'qcow2':
        with open(path, 'rb') as f:
            header = f.read(32)
        if len(header) == 32 and header[:4] == b'QFI\xfb':
            return struct.unpack('>Q', header[24:32])[0]
        raise exception.ImageInvalid(image=path, reason='it is not a qcow2 file')
    return os.path.getsize(path)


def _rbd_disks(spec):
    return any(ceph.is_rbd(path) for path in
               [spec.root_disk] + [path for path, _ in spec.volumes])


class LibvirtDriver(host_networks.HostNetworks, port_filters.PortFilters,
                    rebuild_files.RebuildFiles, volume_copies.VolumeCopies,
                    live_migration.LiveMigration, image_snapshots.ImageSnapshots):
    def __init__(self, host=None):
        self.host = host or libvirt_host.Host()

    def _conn(self):
        return self.host.get_connection()

    def connection(self):
        """This host's libvirt connection (for the inventory of what it holds)."""
        return self._conn()

    def resource_prefix(self):
        """The prefix of this deployment's pools, networks and bridges on the host."""
        return deployment.resource_prefix(self._conn)

    # -- host --------------------------------------------------------------------

    def capacity(self):
        return dict(self.host.capacity(_conf().state_path),
                    underlay_ip=_conf().l2.local_ip)

    def check_state_path(self, hypervisor_user=None):
        """Refuse a state_path QEMU cannot reach, before a boot creates anything.

        QEMU runs as the hypervisor user and must traverse every directory above the
        disks; a 0700 parent (a home directory, a mkdtemp) fails only at start-domain,
        with a libvirt message that names neither the cause nor the fix.
        """
        if not _conf().libvirt.connection_uri.startswith('qemu'):
            return
        hypervisor_user = hypervisor_user or _conf().libvirt.hypervisor_user
        try:
            user = pwd.getpwnam(hypervisor_user)
        except KeyError:
            return  # no such user here: libvirt runs QEMU as someone we cannot check
        groups = {g.gr_gid for g in grp.getgrall() if hypervisor_user in g.gr_mem}
        groups.add(user.pw_gid)
        closed = first_closed_directory(_conf().state_path, user.pw_uid, groups)
        if closed is not None:
            raise exception.Invalid(
                reason='QEMU runs as %s and cannot enter %s, a parent of state_path '
                       '%s: allow it (chmod o+x %s) or set [DEFAULT] state_path '
                       'elsewhere, e.g. under /var/lib'
                       % (hypervisor_user, closed, _conf().state_path, closed))

    # -- paths and names ---------------------------------------------------------

    def instance_dir(self, instance_uuid):
        return os.path.join(_conf().state_path, 'instances',
                            _instance_uuid(instance_uuid))

    def console_log_path(self, instance_uuid):
        return os.path.join(self.instance_dir(instance_uuid), 'console.log')

    def config_drive_path(self, instance_uuid):
        return os.path.join(self.instance_dir(instance_uuid), 'disk.config')

    def network_name(self, net):
        return '%s-net-%s' % (self.resource_prefix(), _safe_id('network', net['id']))

    def bridge_name(self, net):
        prefix = self.resource_prefix()
        name = '%s-%s' % (prefix, _safe_id('network', net['id']))
        if len(name) <= _MAX_BRIDGE_NAME:
            return name
        # Too long for a Linux interface: keep a readable prefix, make it unique.
        digest = hashlib.sha256(name.encode()).hexdigest()
        head = prefix[:5].rstrip('-')
        return '%s-%s' % (head, digest[:_MAX_BRIDGE_NAME - len(head) - 1])

    def _pool(self, kind, create):
        """The pool of 'instances' (root disks) or 'volumes'; None if absent and
        not ``create``."""
        name = self._pool_name(kind)
        if not create:
            return storage.lookup_pool(self._conn(), name)
        _makedirs(_conf().state_path)
        return storage.ensure_pool(self._conn(), name, self._pool_directory(kind))

    @staticmethod
    def _pool_directory(kind):
        return os.path.join(_conf().state_path,
                            'disks' if kind == 'instances' else 'volumes')

    def _pool_name(self, kind):
        return deployment.pool_name(self._conn, kind, self._pool_directory(kind))

    def pool_names(self):
        return [self._pool_name('instances'), self._pool_name('volumes')]

    # -- images and root disks ---------------------------------------------------

    def fetch_image(self, image_id, source_path, sha256, part='disk'):
        """The host's cached, verified copy of one file (``part``) of an image:
        downloaded from the image API, or read at ``source_path`` all-in-one. An
        image disk in RBD is not copied when root disks are clones of it: its
        location is the answer."""
        if part == 'disk' and rbd_store.is_location(source_path) \
                and ceph.images_in_rbd():
            return source_path
        _makedirs(_conf().state_path)
        cache = image_cache.ImageCache(fetcher.cache_directory())
        return fetcher.fetch(cache, fetcher.ImageFile(image_id, part, sha256,
                                                      source_path))

    @staticmethod
    def _root_disk_name(instance_uuid):
        return 'instance-%s-root.qcow2' % _instance_uuid(instance_uuid)

    def create_root_disk(self, instance_uuid, base_path, base_format, size_gib,
                         suffix=''):
        """A qcow2 overlay on ``base_path`` (grown to size_gib), or a blank qcow2 of
        size_gib; None when there is neither a base nor a size. ``suffix``: a
        rebuild's new disk, beside the root disk until swapped in."""
        name = self._root_disk_name(instance_uuid) + suffix
        capacity = int(size_gib or 0) * GIB
        if rbd_store.is_location(base_path):
            return ceph.create_root_disk(_instance_uuid(instance_uuid), base_path,
                                         capacity)
        if base_path:
            capacity = max(capacity, _virtual_size(base_path, base_format))
        elif not capacity:
            return None
        return storage.create_volume(self._pool('instances', create=True), name,
                                     capacity, backing_path=base_path or None,
                                     backing_format=base_format)

    def delete_root_disk(self, instance_uuid):
        """The root disk, and what an interrupted rebuild left beside it."""
        if ceph.images_in_rbd():
            ceph.delete_root_disk(_instance_uuid(instance_uuid))
        pool = self._pool('instances', create=False)
        if pool is not None:
            name = self._root_disk_name(instance_uuid)
            for suffix in ('', REBUILD_SUFFIX, PREVIOUS_SUFFIX):
                storage.delete_volume(pool, name + suffix)

    def _root_disk_path(self, instance_uuid):
        pool = self._pool('instances', create=False)
        return pool and storage.volume_path(pool, self._root_disk_name(instance_uuid))

    # -- volumes -----------------------------------------------------------------

    @staticmethod
    def _volume_name(volume_id):
        return 'volume-%s.qcow2' % _safe_id('volume', volume_id)

    @staticmethod
    def _snapshot_name(snapshot_id):
        return 'snapshot-%s.qcow2' % _safe_id('snapshot', snapshot_id)

    def create_volume(self, volume_id, size_gib):
        if int(size_gib) <= 0:
            raise exception.Invalid(reason='volume %s needs a size of at least 1 GiB'
                                           % volume_id)
        if ceph.volumes_in_rbd():
            return ceph.make_volume(_safe_id('volume', volume_id), size_gib)
        return storage.create_volume(self._pool('volumes', create=True),
                                     self._volume_name(volume_id), int(size_gib) * GIB)

    def delete_volume(self, volume_id):
        if ceph.volumes_in_rbd():
            ceph.delete_volume(_safe_id('volume', volume_id))
            return
        pool = self._pool('volumes', create=False)
        if pool is not None:
            storage.delete_volume(pool, self._volume_name(volume_id))

    def volume_path(self, volume_id):
        if ceph.volumes_in_rbd():
            return ceph.volume_spec(_safe_id('volume', volume_id))
        pool = self._pool('volumes', create=False)
        return pool and storage.volume_path(pool, self._volume_name(volume_id))

    def make_volume(self, volume_id, size_gib, image_path=None, image_format=None):
        """The volume's file, made if absent (blank, or a full copy of a cached image)
        and grown to ``size_gib`` if smaller (an extend applies here); its path."""
        if ceph.volumes_in_rbd():
            return ceph.make_volume(_safe_id('volume', volume_id), size_gib,
                                    image_path, image_format)
        pool = self._pool('volumes', create=True)
        name = self._volume_name(volume_id)
        if image_path and not storage.lookup_volume(pool, name):
            storage.copy_into(pool, name, image_path, image_format)
        path = self.create_volume(volume_id, size_gib)
        storage.grow_volume(pool, name, int(size_gib) * GIB)
        return path

    def attach_volume(self, instance_uuid, volume_id, readonly=False, device=None):
        """Hot-plug the volume into the domain (live and defined), read-only if
        asked, under ``device`` (/dev/vdc) if given and free; its device."""
        guest = self._defined_guest(instance_uuid, 'attaching a volume to')
        path = self.volume_path(volume_id)
        if not path:
            raise exception.HypervisorError(reason='volume %s has no file on this host'
                                                   % volume_id)
        rbd = ceph.ensure_secret(self._conn()) if ceph.is_rbd(path) else None
        target = device.rsplit('/', 1)[-1] if device else None
        return '/dev/' + hotplug.attach(guest, path, volume_id, readonly, rbd, target)

    def detach_volume(self, instance_uuid, volume_id, timeout):
        """Unplug the volume, waiting up to ``timeout`` s for the guest to let go."""
        guest = self._guest(instance_uuid)
        path = self.volume_path(volume_id)
        if guest is not None and path:
            rbd = ceph.access() if ceph.is_rbd(path) else None
            hotplug.detach(guest, path, volume_id, timeout, rbd=rbd)

    # -- config drive --------------------------------------------------------------

    def create_config_drive(self, instance_uuid, meta_data, network_data,
                            user_data=None):
        fileperms.private_dir(self.instance_dir(instance_uuid))
        path = configdrive.build_config_drive(self.config_drive_path(instance_uuid),
                                              meta_data, network_data, user_data)
        return fileperms.private_file(path)

    def delete_config_drive(self, instance_uuid):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.config_drive_path(instance_uuid))

    def delete_instance_dir(self, instance_uuid):
        """Remove instances/<uuid>/ (console log, config drive): the last delete step."""
        shutil.rmtree(self.instance_dir(instance_uuid), ignore_errors=True)

    # -- domains -------------------------------------------------------------------

    def _guest(self, instance_uuid):
        """The Guest of the instance, or None if no domain is defined."""
        conn = self._conn()
        try:
            domain = conn.lookupByUUIDString(_instance_uuid(instance_uuid))
        except libvirt.libvirtError as exc:
            if libvirt_host.error_code(exc) == libvirt.VIR_ERR_NO_DOMAIN:
                return None
            with libvirt_host.translate_errors('looking up domain of %s'
                                               % instance_uuid):
                raise
        return libvirt_guest.Guest(domain)

    def domain_xml(self, spec):
        """The domain XML define_domain would use (also for validation tests)."""
        _instance_uuid(spec.uuid)
        rbd = ceph.access() if _rbd_disks(spec) else None
        guest_config = designer.build_guest(spec, self.host.virt_type(), _conf(), rbd)
        return guest_config.to_xml()

    def define_domain(self, spec):
        if _rbd_disks(spec):  # QEMU reads the key from this host's libvirt secret
            ceph.ensure_secret(self._conn())
        xml = self.domain_xml(spec)
        fileperms.private_dir(os.path.dirname(spec.console_log))
        libvirt_guest.Guest.define(self._conn(), xml)

    def _defined_guest(self, instance_uuid, doing):
        guest = self._guest(instance_uuid)
        if guest is None:
            raise exception.HypervisorError(
                reason='domain %s is not defined; define it before %s it'
                       % (designer.domain_name(instance_uuid), doing))
        return guest

    def start_domain(self, instance_uuid):
        self._defined_guest(instance_uuid, 'starting').start()

    def power_off(self, instance_uuid, timeout):
        """Shut the guest down (ACPI), destroying it after ``timeout`` s.

        True when it shut down by itself (or was not running, or has no domain:
        nothing runs either way), False when it had to be powered off at once.
        """
        guest = self._guest(instance_uuid)
        return guest.shutdown(timeout) if guest is not None else True

    def power_on(self, instance_uuid):
        """Start the defined domain; a running one is left alone."""
        self.start_domain(instance_uuid)

    def reboot(self, instance_uuid, hard, timeout=None):
        """Restart the guest: soft is a clean shutdown then a start, hard a power cycle.

        Soft, as Nova's soft reboot, lets the guest shut down within ``timeout``
        seconds (default [compute] shutdown_timeout) and powers it off after that,
        so a guest that ignores ACPI still reboots. Either way the domain is started
        from its definition; a domain that was not running is simply started.
        """
        guest = self._defined_guest(instance_uuid, 'rebooting')
        if hard:
            guest.destroy()
        else:
            guest.shutdown(_conf().compute.shutdown_timeout if timeout is None
                           else timeout)
        guest.start()

    def trigger_crash_dump(self, instance_uuid):
        """Nova's: an NMI into the running guest (what its kernel does with it is
        the guest's business: a crash dump, a panic, or nothing)."""
        guest = self._defined_guest(instance_uuid, 'injecting an NMI into')
        if not guest.is_active():
            raise exception.Conflict(reason='Instance %s is not running.'
                                            % instance_uuid)
        guest.inject_nmi()

    def power_state(self, instance_uuid):
        guest = self._guest(instance_uuid)
        return guest.power_state() if guest else 'nostate'

    def destroy_domain(self, instance_uuid):
        guest = self._guest(instance_uuid)
        if guest is not None:
            guest.destroy()
            guest.undefine()

    # -- checks --------------------------------------------------------------------

    def leftovers(self, instance_uuid, volume_ids=(), net_macs=()):
        """What still exists of an instance, one readable line each.

        ``net_macs`` is a list of (net dict, mac) pairs whose DHCP entries to look for.
        """
        found = []
        guest = self._guest(instance_uuid)
        if guest is not None:
            found.append('domain %s (%s)' % (guest.name, guest.power_state()))
        pool = self._pool('instances', create=False)
        for suffix in ('', REBUILD_SUFFIX, PREVIOUS_SUFFIX) if pool else ():
            root_disk = storage.volume_path(pool, self._root_disk_name(instance_uuid)
                                            + suffix)
            if root_disk:
                found.append('root disk %s' % root_disk)
        if ceph.images_in_rbd() and ceph.root_disk_exists(_instance_uuid(instance_uuid)):
            found.append('root disk %s' % ceph.root_disk_spec(instance_uuid))
        if os.path.exists(self.config_drive_path(instance_uuid)):
            found.append('config drive %s' % self.config_drive_path(instance_uuid))
        for volume_id in volume_ids:
            path = self.volume_path(volume_id)
            if path:
                found.append('volume %s at %s' % (volume_id, path))
        for net, mac in net_macs:
            for entry in self.dhcp_hosts(net):
                if (entry['mac'] or '').lower() == mac.lower():
                    found.append('DHCP entry %s -> %s on network %s'
                                 % (mac, entry['ip'], self.network_name(net)))
        return found
