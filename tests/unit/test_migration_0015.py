"""Migration 0015: volumes made before it have no metadata, image metadata nor
read-only flag."""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from tests.unit.test_migrations import _migrate


def _columns():
    with db_api.get_engine().connect() as conn:
        return {c['name'] for c in sa.inspect(conn).get_columns('volumes')}


def test_an_existing_volume_gets_empty_metadata_and_keeps_its_row(admin_context):
    _migrate('0014')
    assert not {'properties', 'image_metadata', 'readonly'} & _columns()
    with db_api.get_engine().begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO volumes (id, project_id, size_gib, status, bootable, "
            "created_at) VALUES ('v1', :project, 1, 'available', 0, "
            "'2026-01-01 00:00:00')"), {'project': admin_context.project_id})
    _migrate('head')
    with db_api.transaction() as session:
        volume = session.get(models.Volume, 'v1')
        assert (volume.properties, volume.image_metadata, volume.readonly) == (
            None, None, None)
        volume.properties, volume.readonly = {'a': 'b'}, True
    _migrate('0014')  # and back, for a rollback of the upgrade: the row stays
    assert not {'properties', 'image_metadata', 'readonly'} & _columns()
    with db_api.get_engine().connect() as conn:
        assert conn.execute(sa.text('SELECT id FROM volumes')).scalars().all() == ['v1']
    _migrate('head')
