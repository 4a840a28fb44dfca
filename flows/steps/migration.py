"""The live migration steps: a running server moved to another host, its disks in
Ceph staying where they are.

Host halves run on the source (``host_key = SOURCE_HOST``) or the destination
(``DEST_HOST``), both named by the migration record the request made; the engine
halves read and write the database through ``self.records``
(provisioner.compute.migrations).
"""

import dataclasses
import logging

from flows import constants
from flows.steps import base
from flows.steps import configdrive
from flows.steps import image
from flows.steps import network

LOG = logging.getLogger(__name__)


class LiveMigrationGuard(base.ProvisionerTask):
    """First atom of a live migration: does nothing going forward.

    Reversion strategy: runs last during a rollback, once the destination's claim
    went back and the guest runs on its source again: task_state cleared (the
    server ACTIVE where it was), the migration in error, the action finished with
    the fault.
    """

    def execute(self, instance_id, action_id):
        pass

    def revert(self, instance_id, action_id, *args, flow_failures=None, **kwargs):
        fault = base.describe_failures(flow_failures, 'Live migration')
        LOG.warning('Live migration of instance %s rolled back: %s', instance_id, fault)
        self.records.abandon_migration(action_id, fault)


class ClaimMigrationTarget(base.ProvisionerTask):
    """Claim the flavor's resources on the destination before anything moves.

    Reversion strategy: give the destination's claim back (the migration row says
    whether it holds one).
    """

    def execute(self, action_id):
        return self.records.claim_migration_target(action_id)

    def revert(self, action_id, result, **kwargs):
        LOG.warning('Releasing the destination claim of migration action %s',
                    action_id)
        base.undo('release destination claim', self.records.release_migration_target,
                  action_id)


@dataclasses.dataclass(frozen=True)
class PrepareTargetPayload:
    """What the destination needs before the guest arrives: its ports (bound
    there: segment, DHCP host, peers), the image's kernel and ramdisk, the
    config drive's documents (user_data travels in this payload only)."""

    instance_id: str
    ports: list
    image: dict
    config_drive: dict


class PrepareTargetOnHost(base.HostStep):
    name = 'migration.prepare_target'
    Payload = PrepareTargetPayload

    def run(self, payload):
        """The guest's paths here: console_log, config_drive, kernel, ramdisk."""
        paths = base.driver().prepare_incoming(payload.instance_id, payload.ports)
        # The domain's interfaces name their filters: libvirt needs them here first.
        network.ensure_port_filters(payload.ports)
        files = image.FetchImageOnHost().run(image.ImagePayload(**payload.image))
        paths.update(kernel=files.get('kernel'), ramdisk=files.get('ramdisk'))
        paths['config_drive'] = configdrive.BuildConfigDriveOnHost().run(
            configdrive.ConfigDrivePayload(**payload.config_drive))
        return paths

    def undo(self, payload, result):
        LOG.warning('Removing what instance %s had on the destination',
                    payload.instance_id)
        base.undo('abandon the incoming guest', base.driver().abandon_incoming,
                  payload.instance_id)


class PrepareMigrationTarget(base.HostTask):
    """Pre-live-migration on the destination: the networks of the server's ports
    (its L2 agent's bridge and VXLAN device, flooding to the network's hosts), the
    Ceph secret, the kernel and ramdisk, the config drive, the instance directory.

    Reversion strategy: remove the instance's directory and any domain that did
    not come up there; the hosts of its networks told that the destination holds
    no port of them.
    """

    host_key = constants.DEST_HOST
    default_provides = constants.MIGRATION_TARGET_PATHS
    step = PrepareTargetOnHost

    def build_payload(self, instance_id, action_id):
        dest = self.records.migration_for(action_id)['dest_compute']
        req = self.records.current_request(instance_id)
        ports = self.records.with_filters(
            self.records.bind_ports(self.records.ports_for(instance_id), dest))
        image_payload = image.FetchImage.build_payload(self, instance_id)
        drive = configdrive.BuildConfigDrive._payload(self, instance_id, req, ports)
        return PrepareTargetPayload(
            instance_id=instance_id, ports=ports,
            image=dict(base.to_wire(image_payload), disk_path=None, disk_sha256=None),
            config_drive=base.to_wire(drive))

    def _request(self, instance_id):  # a rebuild may have changed the image
        return self.records.current_request(instance_id)

    def build_undo_payload(self, instance_id, action_id):
        return base.InstancePayload(instance_id)

    def record_undo(self, instance_id, action_id):
        dest = self.records.migration_for(action_id)['dest_compute']
        networks = [port['network']['id']
                    for port in self.records.ports_for(instance_id)]
        base.undo('tell the hosts of its networks', self.records.sync_networks,
                  networks, [dest], None, False)


@dataclasses.dataclass(frozen=True)
class MigratePayload:
    instance_id: str
    dest_address: str
    dest_paths: dict


class MigrateDomainOnHost(base.HostStep):
    name = 'migration.migrate_domain'
    Payload = MigratePayload

    def run(self, payload):
        return base.driver().live_migrate(payload.instance_id, payload.dest_address,
                                          payload.dest_paths)

    def undo(self, payload, result):
        LOG.warning('Aborting the live migration of instance %s', payload.instance_id)
        base.undo('abort the migration', base.driver().abort_migration,
                  payload.instance_id)


class MigrateDomain(base.HostTask):
    """libvirt moves the running guest from the source's libvirtd to the
    destination's (peer to peer), its memory over the underlay; the domain is
    defined there and undefined here.

    Reversion strategy: abort a migration under way: the guest goes on running
    on the source. Once libvirt says it moved (or a run again finds it gone from
    here) it runs on the destination: the steps after this one only record.
    """

    host_key = constants.SOURCE_HOST
    step = MigrateDomainOnHost

    def before_run(self, action_id, **arguments):
        self.records.set_migration_status(action_id, 'running')

    def build_payload(self, instance_id, action_id, migration_target_paths):
        migration = self.records.migration_for(action_id)
        return MigratePayload(instance_id,
                              migration['dest_address'] or migration['dest_compute'],
                              dict(migration_target_paths))


class RecordLiveMigration(base.ProvisionerTask):
    """The server is on its destination: host, claims (the source's given back),
    console log, task_state cleared, the migration completed; then the hosts of
    its networks learn where its ports are (l2population).

    Reversion strategy: none; the guest runs on the destination from here on.
    """

    def execute(self, instance_id, action_id, migration_target_paths):
        source = self.records.migration_for(action_id)['source_compute']
        self.records.conclude_migration(action_id,
                                        migration_target_paths.get('console_log'))
        networks = [port['network']['id']
                    for port in self.records.ports_for(instance_id)]
        base.undo('tell the hosts of its networks', self.records.sync_networks,
                  networks, [source], None, False)


@dataclasses.dataclass(frozen=True)
class ForgetPayload:
    instance_id: str
    port_ids: list


class ForgetMigratedGuestOnHost(base.HostStep):
    name = 'migration.forget_source'
    Payload = ForgetPayload

    def run(self, payload):
        base.undo('remove the files the source kept', base.driver().forget_migrated,
                  payload.instance_id)
        for port_id in payload.port_ids:  # the ports' filters went with the guest
            base.undo('delete filter of port %s' % port_id,
                      base.driver().delete_port_filter, port_id)


class ForgetMigratedGuest(base.HostTask):
    """Remove what the source kept of the guest: its instance directory (config
    drive, console log) and its ports' filters. A failure is a leftover, never a
    rollback."""

    host_key = constants.SOURCE_HOST
    deferrable = True
    step = ForgetMigratedGuestOnHost

    def build_payload(self, instance_id, **arguments):
        return ForgetPayload(instance_id, [port['id'] for port in
                                           self.records.ports_for(instance_id)])
