"""The records port: what the steps of the host-step modules read and write in the
database.

A worker imports the module of a host half to run it, and a worker has no database;
so those modules (``flows.steps.image``, ``network``, ``volume``, ``configdrive``,
``domain``, ``power``, ``attach``, ``rebuild``, ``image_snapshot``) import nothing
of it, and their engine-side code calls ``self.records`` instead: this object,
attached to every atom by the one engine builder
(``provisioner.engine.runner.build_engine``) and to a deferred step's engine half
before its replay (``provisioner.engine.reports``). Each entry is the database
function itself; the port names every one those steps may use.
"""

import functools
import sys

from provisioner.compute import actions
from provisioner.compute import boot_volumes
from provisioner.compute import device_metadata
from provisioner.compute import image_snapshots
from provisioner.compute import instances
from provisioner.compute import migrations
from provisioner.compute import power
from provisioner.compute import rebuild
from provisioner.engine import l2pop
from provisioner.engine import sg_sync
from provisioner.network import ipam
from provisioner.network import port_filters
from provisioner.network import segments
from provisioner.volume import api as volume_api
from provisioner.volume import snapshots
from provisioner.volume import volumes


def _calls(function):
    """A port entry calling function, looked up in its module at each call: a test
    that patches the module's function patches the port's too."""
    module, name = sys.modules[function.__module__], function.__name__

    @functools.wraps(function)
    def call(*args, **kwargs):
        return getattr(module, name)(*args, **kwargs)

    return staticmethod(call)


class StepRecords:
    # The instance, as the boot request made it, and its actions.
    build_request = _calls(instances.build_request)
    user_data = _calls(instances.user_data)
    host_of = _calls(instances.host_of)
    advance_task_state = _calls(instances.advance_task_state)
    record_console_log = _calls(instances.record_console_log)
    update_instance = _calls(instances.update)
    conclude_action = _calls(instances.conclude_action)
    finish_action = _calls(actions.finish)
    power_outcome = _calls(power.outcome)
    # Its tagged devices (Nova's device metadata), as its config drive lists them.
    record_boot_devices = _calls(device_metadata.record_boot_devices)
    instance_devices = _calls(device_metadata.for_instance)

    # A rebuild: the instance as it asked, what it replaced.
    current_request = _calls(instances.current_request)
    rebuild_was_stopped = _calls(rebuild.was_stopped)
    restore_rebuilt = _calls(rebuild.restore)
    conclude_rebuild = _calls(rebuild.conclude)

    # A live migration: its record, the destination's claim, the outcome.
    migration_for = _calls(migrations.for_action)
    set_migration_status = _calls(migrations.set_status)
    claim_migration_target = _calls(migrations.claim_target)
    release_migration_target = _calls(migrations.release_target)
    conclude_migration = _calls(migrations.conclude)
    abandon_migration = _calls(migrations.abandon)
    # A snapshot into a new image: the request, the image's data, the outcome.
    snapshot_request = _calls(image_snapshots.snapshot_request)
    set_task_state = _calls(image_snapshots.set_task_state)
    prepare_snapshot_upload = _calls(image_snapshots.prepare_upload)
    upload_snapshot_file = _calls(image_snapshots.upload_file)
    activate_snapshot_location = _calls(image_snapshots.activate_location)
    discard_snapshot_image = _calls(image_snapshots.discard_image)
    restore_snapshotted = _calls(image_snapshots.restore)
    conclude_snapshot = _calls(image_snapshots.conclude)

    # Its ports (IPAM).
    allocate_ports = _calls(ipam.allocate_ports)
    ports_for = _calls(ipam.ports_for)
    release_ports = _calls(ipam.release_ports)
    # Their networks' segments across hosts (the L2 agents').
    bind_ports = _calls(segments.bind_ports)
    sync_networks = _calls(l2pop.sync)
    # Their security groups' filters on the hosts.
    with_filters = _calls(port_filters.with_filters)
    security_groups_of = _calls(port_filters.groups_of)
    sync_port_filters = _calls(sg_sync.sync)

    # Volumes: the instance's own, its root volume, the volume service's.
    ROOT_DEVICE = boot_volumes.ROOT_DEVICE
    record_volume = _calls(volumes.record)
    delete_volume_records = _calls(volumes.delete_records)
    record_attached = _calls(volumes.record_attached)
    record_detached = _calls(volumes.record_detached)
    unbind_volume = _calls(volumes.unbind)
    volume_source = _calls(volumes.source)
    restore_volume = _calls(volumes.restore)
    forget_volume = _calls(volume_api.forget_volume)
    mark_volume = _calls(volumes.mark)
    # Snapshots and copies of volumes.
    mark_snapshot = _calls(snapshots.mark)
    forget_snapshot = _calls(snapshots.forget)
    copy_source = _calls(snapshots.copy_source)


RECORDS = StepRecords()


def with_records(atom):
    """Give one atom the records port; the atom (a test's one-liner)."""
    atom.records = RECORDS
    return atom
