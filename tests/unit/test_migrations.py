from alembic import autogenerate
from alembic import migration as alembic_migration
import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import migration
from provisioner.db import models


def test_migrations_build_exactly_the_models():
    with db_api.get_engine().connect() as conn:
        context = alembic_migration.MigrationContext.configure(conn)
        diff = autogenerate.compare_metadata(context, models.Base.metadata)
    # TaskFlow's tables (and the indexes 0005 adds to them) and both migration
    # version tables are not in our models.
    not_ours = ('logbooks', 'flowdetails', 'atomdetails', 'alembic_version',
                'provisioner_alembic_version')

    def table_of(d):
        return d[1].name if d[0] == 'remove_table' else d[1].table.name

    ours = [d for d in diff if not (d[0] in ('remove_table', 'remove_index')
                                    and table_of(d) in not_ours)]
    assert ours == []


def test_db_sync_is_idempotent_and_at_head():
    migration.db_sync()
    migration.db_sync()
    assert migration.current_revision() == migration.alembic_head()
    with db_api.get_engine().connect() as conn:
        tables = set(sa.inspect(conn).get_table_names())
    assert {'instances', 'instance_events', 'logbooks', 'atomdetails'} <= tables


def test_schema_head_constant_is_the_newest_migration():
    assert migration.SCHEMA_HEAD == migration.alembic_head()


def test_flow_store_children_are_indexed_by_parent():
    # Without these, loading one flow reads every atom row ever written.
    migration.db_sync()
    with db_api.get_engine().connect() as conn:
        inspector = sa.inspect(conn)
        for table in ('atomdetails', 'flowdetails'):
            indexed = [i['column_names'] for i in inspector.get_indexes(table)]
            assert ['parent_uuid'] in indexed, (table, indexed)
