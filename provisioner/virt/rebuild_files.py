"""The files a rebuild swaps on a host: the new root disk beside the old one, then
in its place; the replaced disk and config drive kept (``*.previous``) until the
rebuilt guest runs, so every step can be undone (a mixin of LibvirtDriver)."""

import contextlib
import dataclasses
import os

from provisioner.virt.libvirt import designer
from provisioner.virt.libvirt import guest as libvirt_guest
from provisioner.virt.libvirt import storage

# A rebuild's new root disk, and the replaced disk and config drive until it ends.
REBUILD_SUFFIX = '.rebuild'
PREVIOUS_SUFFIX = '.previous'


class RebuildFiles:
    """Needs the driver's _pool, _root_disk_name, _root_disk_path, _conn,
    _defined_guest, config_drive_path, create_root_disk and domain_xml."""

    def create_rebuild_disk(self, instance_uuid, base_path, base_format, size_gib):
        return self.create_root_disk(instance_uuid, base_path, base_format, size_gib,
                                     suffix=REBUILD_SUFFIX)

    def delete_rebuild_disk(self, instance_uuid):
        pool = self._pool('instances', create=False)
        if pool is not None:
            storage.delete_volume(pool, self._root_disk_name(instance_uuid)
                                  + REBUILD_SUFFIX)

    def _rebuild_files(self, instance_uuid):
        drive = self.config_drive_path(instance_uuid)
        return drive, drive + PREVIOUS_SUFFIX

    def swap_in_rebuild_disk(self, instance_uuid):
        name = self._root_disk_name(instance_uuid)
        storage.swap_in(self._pool('instances', create=True), name,
                        name + REBUILD_SUFFIX, name + PREVIOUS_SUFFIX)

    def swap_back_root_disk(self, instance_uuid):
        pool = self._pool('instances', create=False)
        if pool is not None:
            name = self._root_disk_name(instance_uuid)
            storage.swap_back(pool, name, name + REBUILD_SUFFIX, name + PREVIOUS_SUFFIX)

    def set_aside_config_drive(self, instance_uuid):
        """Keep the config drive (a hard link) before a rebuild writes a new one."""
        drive, previous = self._rebuild_files(instance_uuid)
        if os.path.exists(drive) and not os.path.exists(previous):
            os.link(drive, previous)

    def restore_config_drive(self, instance_uuid):
        drive, previous = self._rebuild_files(instance_uuid)
        if os.path.exists(previous):
            os.replace(previous, drive)

    def delete_replaced_files(self, instance_uuid):
        """The root disk and config drive a rebuild replaced, once it succeeded."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._rebuild_files(instance_uuid)[1])
        pool = self._pool('instances', create=False)
        if pool is not None:
            storage.delete_volume(pool, self._root_disk_name(instance_uuid)
                                  + PREVIOUS_SUFFIX)

    def redefine_domain(self, spec):
        """Give the defined domain ``spec``'s name and boot (kernel, initrd, cmdline);
        its devices (volumes attached since the boot) stay. The XML it had."""
        previous = self._defined_guest(spec.uuid, 'rebuilding').xml(live=False)
        spec = dataclasses.replace(spec, root_disk=self._root_disk_path(spec.uuid))
        libvirt_guest.Guest.define(self._conn(), designer.transplant_boot(
            previous, self.domain_xml(spec)))
        return previous

    def define_domain_xml(self, xml):
        libvirt_guest.Guest.define(self._conn(), xml)

