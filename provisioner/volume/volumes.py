"""Volume rows: block storage created for an instance at boot and removed with it."""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models


def record(volume_id, instance_id, project_id, index, size_gib, path):
    """Record a created volume; a re-run updates the row it wrote before."""
    with db_api.transaction() as session:
        row = session.get(models.Volume, volume_id)
        if row is None:
            session.add(models.Volume(id=volume_id, instance_id=instance_id,
                                      project_id=project_id, index=index,
                                      size_gib=size_gib, status='in-use', path=path))
        else:
            row.path = path
            row.status = 'in-use'


def for_instance(instance_id):
    with db_api.transaction() as session:
        rows = session.execute(sa.select(models.Volume)
                               .where(models.Volume.instance_id == instance_id)
                               .order_by(models.Volume.index)).scalars().all()
        return [{'id': r.id, 'size_gib': r.size_gib, 'path': r.path, 'status': r.status}
                for r in rows]


def delete_records(instance_id):
    with db_api.transaction() as session:
        session.execute(sa.delete(models.Volume)
                        .where(models.Volume.instance_id == instance_id))
