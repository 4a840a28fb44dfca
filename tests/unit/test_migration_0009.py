"""Migration 0009: networks made before the network service keep working."""

from alembic import command
import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import migration
from provisioner.db import models


def _migrate(revision):
    with db_api.get_engine().begin() as conn:
        if revision == 'head':
            command.upgrade(migration._alembic_config(conn), 'head')
        else:
            command.downgrade(migration._alembic_config(conn), revision)


def test_a_network_becomes_shared_with_one_subnet_and_its_ports_stay():
    _migrate('0008')
    with db_api.get_engine().begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO networks (id, name, cidr, gateway, dhcp_start, dhcp_end, "
            "created_at) VALUES ('n1', 'net1', '10.5.0.0/24', '10.5.0.1', '10.5.0.2', "
            "'10.5.0.254', '2026-01-01 00:00:00')"))
    _migrate('head')
    assert migration.current_revision() == migration.alembic_head()
    with db_api.transaction() as session:
        net = session.get(models.Network, 'n1')
        assert (net.project_id, net.shared, net.subnet_name, net.enable_dhcp,
                net.dns_nameservers) == (None, True, 'net1', True, [])
        assert net.subnet_id == models.derived_subnet_id('n1')  # the id shown before
    _migrate('0008')  # and back, for a rollback of the upgrade
    with db_api.get_engine().connect() as conn:
        assert conn.execute(sa.text('SELECT name FROM networks')).scalars().all() == [
            'net1']
