"""An image or flavor that only deleted servers booted with can be deleted, as in Nova.

Deleted servers are soft-deleted (their instance actions stay readable by id), so
their rows keep the ids of their image and flavor: as plain values, never as a lock
on the catalog. ``server delete`` then ``image delete`` is Terraform's destroy order.
"""

from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture


def test_image_and_flavor_of_deleted_servers_can_be_deleted(application,  # noqa: F811
                                                             cloud):  # noqa: F811
    server_id = boot(application, cloud)
    image_path = '/image/v2/images/' + cloud['image']
    flavor_path = '/compute/v2.1/flavors/' + cloud['flavor']
    # While the server lives, both stay (409, each service's error body).
    busy = call(application, 'DELETE', image_path, token=cloud['token'])
    assert busy.status_int == 409 and 'in use by vm1' in busy.json['message']
    assert call(application, 'DELETE', '/compute/v2.1/servers/' + server_id,
                token=cloud['token']).status_int == 204
    for path in (image_path, flavor_path):
        response = call(application, 'DELETE', path, token=cloud['token'])
        assert response.status_int in (202, 204), response.text
        assert call(application, 'GET', path, token=cloud['token']).status_int == 404
    # The deleted server's history outlives both (shown from 2.21, as Nova's).
    actions = call(application, 'GET', '/compute/v2.1/servers/%s/os-instance-actions'
                   % server_id, token=cloud['token'],
                   headers={'OpenStack-API-Version': 'compute 2.51'})
    assert actions.status_int == 200, actions.text
    assert {a['action'] for a in actions.json['instanceActions']} >= {'create', 'delete'}


def test_the_migration_keeps_every_server_and_its_history(application,  # noqa: F811
                                                          cloud):  # noqa: F811
    """0011 rebuilds SQLite's instances table: its dependents (events) must survive."""
    from alembic import command
    from provisioner.db import api as db_api
    from provisioner.db import migration

    server_id = boot(application, cloud)

    def count(table):
        with db_api.get_engine().connect() as conn:
            return conn.exec_driver_sql('SELECT count(*) FROM %s WHERE instance_id = ?'
                                        % table, (server_id,)).scalar()

    events = count('instance_events')
    assert events > 0
    with db_api.get_engine().connect() as conn, \
            migration._sqlite_foreign_keys_off(conn), conn.begin():
        command.downgrade(migration._alembic_config(conn), '0010')
    migration.db_sync()
    assert migration.current_revision() == migration.SCHEMA_HEAD
    assert count('instance_events') == events
    shown = call(application, 'GET', '/compute/v2.1/servers/' + server_id,
                 token=cloud['token'])
    assert shown.status_int == 200 and shown.json['server']['status'] == 'ACTIVE'
