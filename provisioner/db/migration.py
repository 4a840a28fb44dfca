"""db-sync: bring provisioner's tables and TaskFlow's to the latest schema.

Run it once per deployment (``provisioner db-sync``): migrations raced from several
processes fail. The all-in-one SQLite database is migrated on first use, under a file
lock, because there is only one host and nobody to run db-sync for the user.
"""

import contextlib
import fcntl
import os

from alembic import command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
from alembic import script as alembic_script

from provisioner.db import api as db_api
from provisioner.engine import persistence

_MIGRATIONS = os.path.join(os.path.dirname(__file__), 'migrations')
_VERSION_TABLE = 'provisioner_alembic_version'


def _alembic_config(connection):
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location', _MIGRATIONS)
    cfg.attributes['connection'] = connection
    return cfg


def _head_revision():
    cfg = _alembic_config(None)
    return alembic_script.ScriptDirectory.from_config(cfg).get_current_head()


def current_revision():
    with db_api.get_engine().connect() as conn:
        ctx = alembic_migration.MigrationContext.configure(
            conn, opts={'version_table': _VERSION_TABLE})
        return ctx.get_current_revision()


def db_sync():
    """Upgrade both schemas to head; safe to run again."""
    engine = db_api.get_engine()
    with engine.begin() as conn:
        command.upgrade(_alembic_config(conn), 'head')
    persistence.upgrade()


@contextlib.contextmanager
def _file_lock(path):
    with open(path, 'a') as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        yield


def ensure_schema():
    """Migrate the all-in-one SQLite database if needed; fail clearly otherwise."""
    if current_revision() == _head_revision():
        return
    if not db_api.is_sqlite():
        from provisioner import exception
        raise exception.ProvisionerError(
            "The database schema is not up to date: run 'provisioner db-sync'.")
    lock_path = db_api.database_url().split('///', 1)[1] + '.migrate-lock'
    with _file_lock(lock_path):
        if current_revision() != _head_revision():
            db_sync()
