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


def describe(project_id=None, volume_id=None):
    """Volumes (of a project, or one) with the instance each is attached to.

    Each has the instance's id, name, user and availability zone, and whether its
    image gives the instance a root disk (the volumes' device names follow it).
    """
    inst = models.Instance
    query = (sa.select(models.Volume, inst, models.Image.disk_path.is_not(None))
             .join(inst, inst.id == models.Volume.instance_id)
             .join(models.Image, models.Image.id == inst.image_id)
             .order_by(models.Volume.created_at, models.Volume.index))
    if project_id is not None:
        query = query.where(models.Volume.project_id == project_id)
    if volume_id is not None:
        query = query.where(models.Volume.id == volume_id)
    with db_api.transaction() as session:
        return [{'id': vol.id, 'project_id': vol.project_id, 'index': vol.index,
                 'size_gib': vol.size_gib, 'status': vol.status,
                 'created_at': vol.created_at, 'instance_id': row.id,
                 'instance_name': row.name, 'user_id': row.user_id, 'host': row.host,
                 'availability_zone': (row.request_spec or {}).get('availability_zone'),
                 'root_disk': bool(root_disk)}
                for vol, row, root_disk in session.execute(query)]
