"""A host's side of a live migration: the destination made ready for the guest, the
guest moved by libvirt (peer to peer, from the source's libvirtd to the
destination's), and what the source keeps of it afterwards removed. A mixin of the
driver (its ``_conn``, ``_guest``, paths and networks); every call is idempotent.

Disks must be shared (RBD): only the guest's memory and device state move. What is
a file of the source's own (kernel, initrd, config drive, console log) has its
counterpart at the destination's own path, which the destination prepared; the
domain XML sent along names those paths (VIR_MIGRATE_PARAM_DEST_XML).
"""

import logging
import time

import libvirt
from lxml import etree

from provisioner import conf as provisioner_conf
from provisioner import exception
from provisioner import fileperms
from provisioner.virt import ceph
from provisioner.virt.libvirt import host as libvirt_host

LOG = logging.getLogger(__name__)
_FLAGS = (libvirt.VIR_MIGRATE_LIVE | libvirt.VIR_MIGRATE_PEER2PEER
          | libvirt.VIR_MIGRATE_PERSIST_DEST | libvirt.VIR_MIGRATE_UNDEFINE_SOURCE)
_JOB_POLL = 0.2


def _conf():
    return provisioner_conf.CONF


class NeedsSharedStorage(exception.Invalid):
    msg_fmt = ('Cannot live-migrate instance %(instance)s: its disk %(path)s is a '
               'file of this host (block migration is not supported; disks in Ceph '
               'are shared: [libvirt] images_type = rbd, [volume] backend = rbd).')


def destination_xml(xml, paths):
    """The migratable domain XML with each of this host's paths (``paths``: old ->
    new) replaced by the destination's."""
    root = etree.fromstring(xml)
    for element in root.iter():
        if element.text and element.text.strip() in paths:
            element.text = paths[element.text.strip()]
        for name, value in element.attrib.items():
            if value in paths:
                element.set(name, paths[value])
    return etree.tostring(root, encoding='unicode')


def local_disks(xml):
    """Paths of the domain's writable disks that are files (not RBD, not a CD)."""
    root = etree.fromstring(xml)
    return [disk.find('source').get('file')
            for disk in root.iterfind('./devices/disk')
            if disk.get('type') == 'file' and disk.get('device') == 'disk'
            and disk.find('readonly') is None and disk.find('source') is not None]


class LiveMigration:
    # -- the destination -------------------------------------------------------------

    def prepare_incoming(self, instance_uuid, ports):
        """Make this host ready to receive the guest: its networks (bridge, VXLAN
        toward ``net['peers']``), the Ceph secret when its disks are in RBD, its
        instance directory. Paths the guest's files get here."""
        for port in ports:
            self.ensure_network(port['network'])
        if ceph.images_in_rbd() or ceph.volumes_in_rbd():
            ceph.ensure_secret(self._conn())
        fileperms.private_dir(self.instance_dir(instance_uuid))
        return {'console_log': self.console_log_path(instance_uuid),
                'config_drive': self.config_drive_path(instance_uuid)}

    def abandon_incoming(self, instance_uuid):
        """Undo prepare_incoming unless the guest runs here: a domain that did not
        come up is removed, with the instance's directory."""
        guest = self._guest(instance_uuid)
        if guest is not None and guest.is_active():
            LOG.warning('Instance %s runs on this host: its files stay', instance_uuid)
            return False
        if guest is not None:
            guest.undefine()
        self.delete_instance_dir(instance_uuid)
        return True

    # -- the source ------------------------------------------------------------------

    def live_migrate(self, instance_uuid, dest_address, dest_paths):
        """Move the running guest to the host at ``dest_address`` (its libvirtd at
        [libvirt] live_migration_scheme), its files at ``dest_paths`` there
        (console_log, config_drive, kernel, ramdisk). Returns where the guest is:
        'moved' (no longer here), or raises with the guest still running here.

        Run again (an engine resumed the step) while libvirt still migrates, it
        waits for that migration's end instead of starting another.
        """
        guest = self._guest(instance_uuid)
        if guest is not None:
            self._wait_for_job(guest._domain)
            guest = self._guest(instance_uuid)
        if guest is None:
            return 'moved'  # gone from here: an earlier run moved it
        domain = guest._domain
        if not guest.is_active():
            raise exception.HypervisorError(
                reason='instance %s is not running here: only a running guest is '
                       'live-migrated' % instance_uuid)
        with libvirt_host.translate_errors('reading the domain of %s' % instance_uuid):
            xml = domain.XMLDesc(libvirt.VIR_DOMAIN_XML_MIGRATABLE)
        for path in local_disks(xml):
            raise NeedsSharedStorage(instance=instance_uuid, path=path)
        dest_xml = destination_xml(xml, self._path_map(instance_uuid, xml, dest_paths))
        uri = 'qemu+%s://%s/system' % (_conf().libvirt.live_migration_scheme,
                                       dest_address)
        params = {libvirt.VIR_MIGRATE_PARAM_URI: 'tcp://%s' % dest_address,
                  libvirt.VIR_MIGRATE_PARAM_DEST_XML: dest_xml,
                  libvirt.VIR_MIGRATE_PARAM_PERSIST_XML: dest_xml}
        started = time.monotonic()
        with libvirt_host.translate_errors('live-migrating %s to %s'
                                           % (instance_uuid, uri)):
            domain.migrateToURI3(uri, params, _FLAGS)
        LOG.info('Instance %s live-migrated to %s in %.2f s', instance_uuid,
                 dest_address, time.monotonic() - started)
        return 'moved'

    def abort_migration(self, instance_uuid):
        """Abort a migration of the guest under way; the guest goes on here. True
        when the guest runs here afterwards."""
        guest = self._guest(instance_uuid)
        if guest is None:
            LOG.warning('Instance %s left this host: its migration cannot be '
                        'aborted any more', instance_uuid)
            return False
        try:
            guest._domain.abortJob()
        except libvirt.libvirtError:
            pass  # no job under way
        self._wait_for_job(guest._domain)
        return guest.is_active()

    def _path_map(self, instance_uuid, xml, dest_paths):
        root = etree.fromstring(xml)
        mapping = {self.console_log_path(instance_uuid): dest_paths['console_log'],
                   self.config_drive_path(instance_uuid): dest_paths['config_drive']}
        for tag, key in (('kernel', 'kernel'), ('initrd', 'ramdisk')):
            element = root.find('./os/' + tag)
            if element is not None and dest_paths.get(key):
                mapping[element.text.strip()] = dest_paths[key]
        return mapping

    @staticmethod
    def _wait_for_job(domain, timeout=None):
        """Wait while the domain has a job under way (a migration started earlier)."""
        timeout = timeout or _conf().libvirt.live_migration_timeout
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                job = domain.jobInfo()[0]
            except libvirt.libvirtError:
                return  # gone from here
            if job in (libvirt.VIR_DOMAIN_JOB_NONE, libvirt.VIR_DOMAIN_JOB_COMPLETED,
                       libvirt.VIR_DOMAIN_JOB_FAILED, libvirt.VIR_DOMAIN_JOB_CANCELLED):
                return
            time.sleep(_JOB_POLL)
        raise exception.HypervisorError(reason='a job of domain %s is still under way '
                                               'after %d s' % (domain.name(), timeout))

    def forget_migrated(self, instance_uuid):
        """What the source keeps of a guest that left: its config drive and
        instance directory (the console log's earlier lines with it)."""
        if self._guest(instance_uuid) is not None:
            raise exception.HypervisorError(
                reason='instance %s still has a domain on this host' % instance_uuid)
        self.delete_instance_dir(instance_uuid)
