"""The live migration flow: a running server moved to another host (Nova's
os-migrateLive), its disks shared in Ceph.

    guard -> claim on the destination -> prepare the destination -> migrate the
          domain (source) -> record -> forget it on the source

The store holds the instance id, the action id and both hosts, read from the
migration record the request made. Any step that fails before the record is
undone: the migration aborted (the guest goes on running on its source), the
destination's files and claim removed, the guard clears the task and puts the
migration in error.
"""

from taskflow.patterns import linear_flow

from flows import constants as c
from flows.steps import migration


def live_migration_flow():
    flow = linear_flow.Flow(c.LIVE_MIGRATION_FLOW)
    flow.add(migration.LiveMigrationGuard(c.LIVE_MIGRATION_GUARD),
             migration.ClaimMigrationTarget(c.CLAIM_MIGRATION_TARGET),
             migration.PrepareMigrationTarget(c.PREPARE_MIGRATION_TARGET),
             migration.MigrateDomain(c.MIGRATE_DOMAIN),
             migration.RecordLiveMigration(c.RECORD_LIVE_MIGRATION),
             migration.ForgetMigratedGuest(c.FORGET_MIGRATED_GUEST))
    return flow


def factory():
    """(flow name, factory, factory arguments), for save_factory_details."""
    return c.LIVE_MIGRATION_FLOW, live_migration_flow, []
