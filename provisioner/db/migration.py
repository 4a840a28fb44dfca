"""db-sync: bring provisioner's tables and TaskFlow's to the latest schema.

Run it once per deployment (``provisioner db-sync``): migrations raced from several
processes fail. The all-in-one SQLite database is migrated on first use, under a file
lock, because there is only one host and nobody to run db-sync for the user.

Every command checks the schema version, so that check is one plain query: alembic
(~0.2 s to import) is loaded only when a migration actually runs.
"""

import contextlib
import fcntl
import os

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import basics
from provisioner import exception

# The newest revision in migrations/versions (kept in provisioner.db.basics, which the
# CLI's quick reads use without SQLAlchemy); a unit test keeps the two in step.
SCHEMA_HEAD = basics.SCHEMA_HEAD
_MIGRATIONS = os.path.join(os.path.dirname(__file__), 'migrations')
_VERSION_TABLE = basics.VERSION_TABLE


def _alembic_config(connection):
    from alembic import config as alembic_config
    cfg = alembic_config.Config()
    cfg.set_main_option('script_location', _MIGRATIONS)
    cfg.attributes['connection'] = connection
    return cfg


def alembic_head():
    from alembic import script as alembic_script
    return alembic_script.ScriptDirectory.from_config(
        _alembic_config(None)).get_current_head()


def current_revision():
    """The schema revision of the database; None when it was never migrated."""
    with db_api.get_engine().connect() as conn:
        if not sa.inspect(conn).has_table(_VERSION_TABLE):
            return None
        return conn.execute(sa.text('SELECT version_num FROM %s' % _VERSION_TABLE)
                            ).scalar()


def _upgrade_taskflow_tables():
    """Create or upgrade TaskFlow's own tables (logbooks, flowdetails, atomdetails).

    TaskFlow's plain backend on our engine: the migration needs none of the engine
    layer's caching, and the database layer imports nothing above it.
    """
    from taskflow.persistence.backends import impl_sqlalchemy
    backend = impl_sqlalchemy.SQLAlchemyBackend({}, engine=db_api.get_engine())
    with contextlib.closing(backend.get_connection()) as conn:
        conn.upgrade()


def db_sync():
    """Upgrade both schemas to head; safe to run again.

    TaskFlow's tables come first: provisioner's version stamp is written last, so a
    process killed half-way leaves a database that is migrated again next time.
    """
    from alembic import command
    _upgrade_taskflow_tables()
    with db_api.get_engine().connect() as conn, _sqlite_foreign_keys_off(conn):
        with conn.begin():
            command.upgrade(_alembic_config(conn), 'head')


@contextlib.contextmanager
def _sqlite_foreign_keys_off(conn):
    """SQLite's way to alter a table: foreign keys off, rebuild, check, on again.

    Alembic alters a SQLite table by copying it into a new one and dropping the old;
    with foreign keys on, that drop deletes (or refuses to delete) every row that
    refers to the table. The pragma is a no-op inside a transaction, so it is set on
    the driver's connection before the migration's transaction begins.
    """
    if not db_api.is_sqlite():
        yield
        return
    driver = conn.connection.driver_connection
    driver.execute('PRAGMA foreign_keys=OFF')
    try:
        yield
        broken = driver.execute('PRAGMA foreign_key_check').fetchall()
        if broken:
            raise exception.ProvisionerError(
                'The migrated database breaks foreign keys: %s' % broken[:5])
    finally:
        driver.execute('PRAGMA foreign_keys=ON')


@contextlib.contextmanager
def _file_lock(path):
    with open(path, 'a') as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        yield


def ensure_schema():
    """Migrate the all-in-one SQLite database if needed; fail clearly otherwise."""
    if current_revision() == SCHEMA_HEAD:
        return
    if not db_api.is_sqlite():
        raise exception.ProvisionerError(
            "The database schema is not up to date: run 'provisioner db-sync'.")
    lock_path = db_api.database_url().split('///', 1)[1] + '.migrate-lock'
    with _file_lock(lock_path):
        if current_revision() != SCHEMA_HEAD:
            db_sync()
