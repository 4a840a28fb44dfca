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


def _migrate(revision):
    from alembic import command

    with db_api.get_engine().connect() as conn, \
            migration._sqlite_foreign_keys_off(conn), conn.begin():
        if revision == 'head':
            command.upgrade(migration._alembic_config(conn), 'head')
        else:
            command.downgrade(migration._alembic_config(conn), revision)


def _insert_a_network_with_a_port():
    """net1 (10.5.0.0/24) and its port p1 (10.5.0.9), as rows of an older schema."""
    with db_api.get_engine().begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO networks (id, name, cidr, gateway, dhcp_start, dhcp_end, "
            "subnet_id, subnet_name, created_at) VALUES ('n1', 'net1', '10.5.0.0/24', "
            "'10.5.0.1', '10.5.0.2', '10.5.0.254', 's1', 'sub1', "
            "'2026-01-01 00:00:00')"))
        conn.execute(sa.text(
            "INSERT INTO ports (id, network_id, mac, ip, name, boot_made, created_at) "
            "VALUES ('p1', 'n1', 'fa:16:3e:05:00:09', '10.5.0.9', 'port1', 0, "
            "'2026-01-01 00:00:00')"))


def test_0013_gives_existing_networks_subnets_and_ports_an_empty_description():
    migrate = _migrate

    def columns(table):
        with db_api.get_engine().connect() as conn:
            return {c['name'] for c in sa.inspect(conn).get_columns(table)}

    migrate('0012')
    assert 'description' not in columns('networks') | columns('ports')
    assert 'subnet_description' not in columns('networks')
    _insert_a_network_with_a_port()
    migrate('head')
    assert migration.current_revision() == migration.SCHEMA_HEAD
    with db_api.transaction() as session:
        net = session.get(models.Network, 'n1')
        assert (net.description, net.subnet_description) == ('', '')
        assert session.get(models.Port, 'p1').description == ''
        net.description, net.subnets[0].description = 'a network', 'its subnet'
    migrate('0012')  # and back, for a rollback of the upgrade: the rows stay
    assert 'description' not in columns('networks') | columns('ports')
    with db_api.get_engine().connect() as conn:
        assert conn.execute(sa.text('SELECT name, subnet_name FROM networks')).all() \
            == [('net1', 'sub1')]
        assert conn.execute(sa.text('SELECT id FROM ports')).scalars().all() == ['p1']
    migrate('head')


def test_0014_lets_a_project_with_servers_go_and_images_share_a_name():
    _migrate('0013')
    with db_api.get_engine().begin() as conn:
        conn.execute(sa.text("INSERT INTO projects (id, name, created_at) "
                             "VALUES ('x1', 'x', '2026-01-01 00:00:00')"))
        conn.execute(sa.text("INSERT INTO users (id, name, password_hash, enabled, "
                             "created_at) VALUES ('x1', 'x', 'h', 1, "
                             "'2026-01-01 00:00:00')"))
        conn.execute(sa.text(
            "INSERT INTO quota_limits (project_id, resource, hard_limit) "
            "VALUES ('x1', 'instances', 2)"))
    _migrate('head')
    assert migration.current_revision() == migration.SCHEMA_HEAD
    with db_api.get_engine().connect() as conn:
        fks = [fk['referred_table'] for table in ('instances', 'volumes', 'keypairs',
                                                  'quota_limits', 'quota_usages',
                                                  'quota_reservations', 'server_groups')
               for fk in sa.inspect(conn).get_foreign_keys(table)]
    assert 'projects' not in fks and 'users' not in fks
    with db_api.transaction() as session:
        session.delete(session.get(models.Project, 'x1'))
        session.delete(session.get(models.User, 'x1'))
        for n in range(2):
            session.add(models.Image(id='i%d' % n, name='same name', size_bytes=0))
        session.add(models.Image(id='i2', name=None, size_bytes=0))
    with db_api.transaction() as session:  # Nova keeps its quota of the project
        limit = session.get(models.QuotaLimit, ('x1', 'instances'))
        assert limit is not None
        for row in session.query(models.Image).all() + [limit]:
            session.delete(row)
    _migrate('0013')  # and back, once nothing breaks 0013's constraints
    _migrate('head')


def test_0016_keeps_ports_and_networks_and_adds_security_groups():
    _migrate('0015')
    _insert_a_network_with_a_port()
    _migrate('head')
    with db_api.transaction() as session:
        port = session.get(models.Port, 'p1')
        assert (port.ip, port.admin_state_up) == ('10.5.0.9', True)
        assert session.get(models.Network, 'n1').host_routes == []
        assert session.execute(sa.select(models.SecurityGroup)).first() is None
    _migrate('0015')
    _migrate('head')
    assert migration.current_revision() == migration.SCHEMA_HEAD


def test_0026_moves_each_subnet_to_the_subnets_table_and_back():
    _migrate('0025')
    _insert_a_network_with_a_port()
    _migrate('head')
    with db_api.transaction() as session:
        net = session.get(models.Network, 'n1')
        assert [(s.id, s.name, s.cidr, s.gateway) for s in net.subnets] == [
            ('s1', 'sub1', '10.5.0.0/24', '10.5.0.1')]
        session.add(models.Subnet(id='s2', network_id='n1', cidr='10.6.0.0/24',
                                  gateway=None, dhcp_start='10.6.0.2',
                                  dhcp_end='10.6.0.9'))
    _migrate('0025')  # the first subnet goes back to its network's row
    with db_api.get_engine().connect() as conn:
        assert conn.execute(sa.text(
            'SELECT subnet_id, subnet_name, cidr FROM networks')).all() == [
            ('s1', 'sub1', '10.5.0.0/24')]
    _migrate('head')
    assert migration.current_revision() == migration.SCHEMA_HEAD
