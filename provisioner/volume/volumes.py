"""Volume rows: a boot's volumes (made and removed with their instance) and the
volume service's (made on their own, attached and detached; see volume.api)."""

import sqlalchemy as sa

from provisioner.compute import instances
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import naming


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


# The instance's volumes (compute reads them too, and imports nothing of volume).
for_instance = instances.volumes_of


def delete_records(instance_id):
    """Forget the boot's volumes; the volume service's ones attached to it become
    available again (the domain they were plugged into is gone). A root volume
    (boot from volume, a new or an existing one) is left to the delete flow
    (delete_on_termination): a failed boot keeps it until its server is deleted."""
    boot_volume = instances.build_request(instance_id).boot_volume
    root = boot_volume['id'] if boot_volume else naming.boot_volume_id(instance_id)
    with db_api.transaction() as session:
        session.execute(sa.delete(models.Volume)
                        .where(models.Volume.instance_id == instance_id,
                               models.Volume.index.is_not(None)))
        session.execute(sa.update(models.Volume)
                        .where(models.Volume.instance_id == instance_id,
                               models.Volume.id != root)
                        .values(instance_id=None, device=None, status='available',
                                action_id=None, attached_at=None,
                                updated_at=models.utcnow()))


def describe(project_id=None, volume_id=None):
    """Volumes (of a project, or one), each with the server it is attached to.

    A boot's volume has the instance's name, user and availability zone, and
    whether its image gives the instance a root disk (its device name follows it);
    a volume of the volume service has its own, and its device while attached.
    """
    inst = models.Instance
    query = (sa.select(models.Volume, inst, models.Image.disk_path.is_not(None),
                       models.VolumeType.name)
             .outerjoin(inst, inst.id == models.Volume.instance_id)
             .outerjoin(models.Image, models.Image.id == inst.image_id)
             .outerjoin(models.VolumeType,
                        models.VolumeType.id == models.Volume.volume_type_id)
             .order_by(models.Volume.created_at, models.Volume.index))
    if project_id is not None:
        query = query.where(models.Volume.project_id == project_id)
    if volume_id is not None:
        query = query.where(models.Volume.id == volume_id)
    with db_api.transaction() as session:
        return [dict(_describe(vol, row, bool(root_disk)), volume_type=type_name)
                for vol, row, root_disk, type_name in session.execute(query)]


def image_metadata(vol):
    """Cinder's volume_image_metadata of a volume row; a volume made before it was
    kept (0014) shows its image's id. None: the volume has none."""
    if vol.image_metadata is not None:
        return dict(vol.image_metadata)
    return {'image_id': vol.image_id} if vol.image_id else None


def _describe(vol, row, root_disk):
    own = vol.index is None  # a volume of the volume service
    return {'id': vol.id, 'project_id': vol.project_id, 'index': vol.index,
            'size_gib': vol.size_gib, 'status': vol.status,
            'attachment_tag': vol.attachment_tag,
            'created_at': vol.created_at, 'updated_at': vol.updated_at,
            'instance_id': vol.instance_id,
            'instance_name': row.name if row is not None else None,
            'name': vol.name if own else '%s-vol%d' % (row.name, vol.index),
            'description': vol.description,
            'user_id': vol.user_id if own else row.user_id, 'host': vol.host if own
            else row.host,
            'availability_zone': vol.availability_zone if own
            else (row.request_spec or {}).get('availability_zone'),
            'root_disk': root_disk, 'device': vol.device, 'bootable': vol.bootable,
            'image_id': vol.image_id, 'attached_at': vol.attached_at or vol.created_at,
            'metadata': dict(vol.properties or {}), 'readonly': vol.readonly,
            'image_metadata': image_metadata(vol),
            'snapshot_id': vol.snapshot_id, 'source_volid': vol.source_volid,
            'from_boot': not own}


# -- the rows the volume service's flows write (engine side) ------------------------

def source(volume_id):
    """What the host needs to make and plug the volume: {size_gib, fresh, readonly,
    device, image_* (a fresh volume made from an image)}. ``fresh``: no host holds
    its bytes yet; ``readonly``: Cinder's flag, the guest gets a read-only disk;
    ``device``: the one its attach reserved (provisioner.volume.devices)."""
    with db_api.transaction() as session:
        row = session.get(models.Volume, volume_id)
        info = {'size_gib': row.size_gib, 'fresh': row.host is None,
                'readonly': bool(row.readonly), 'device': row.device}
        image = (session.get(models.Image, row.image_id)
                 if row.image_id and row.host is None else None)
        if row.image_id and row.host is None and image is None:
            # Never a blank disk in place of the image the volume was made from.
            raise exception.ImageInvalid(
                image=row.image_id, reason='it was deleted before volume %s, made from '
                                           'it, was first attached' % volume_id)
        if image is not None:
            info.update(image_id=image.id, image_path=image.disk_path,
                        image_sha256=image.disk_sha256, image_format=image.disk_format)
        return info


def _set(volume_id, **values):
    with db_api.transaction() as session:
        session.execute(sa.update(models.Volume).where(models.Volume.id == volume_id)
                        .values(updated_at=models.utcnow(), **values))


def record_attached(volume_id, host, device):
    """The attach flow's end: in-use on the server, its bytes bound to ``host``."""
    _set(volume_id, status='in-use', host=host, device=device, action_id=None,
         attached_at=models.utcnow())


def unbind(volume_id, existing=False, made_here=True):
    """A root volume whose making was undone: a boot's own is creating again, an
    existing one reserved for the boot again (attaching); on no host if the undone
    step had made its bytes."""
    values = {'host': None} if made_here else {}
    _set(volume_id, status='attaching' if existing else 'creating', **values)


def record_detached(volume_id):
    _set(volume_id, status='available', instance_id=None, device=None, action_id=None,
         attached_at=None)


def restore(volume_id, attached):
    """Back to where an attach (``attached`` False) or detach (True) started."""
    if attached:
        _set(volume_id, status='in-use', action_id=None)
    else:
        record_detached(volume_id)


def for_action(action_id):
    """The id of the volume an attach or detach action is about, or None."""
    with db_api.transaction() as session:
        return session.execute(sa.select(models.Volume.id)
                               .where(models.Volume.action_id == action_id)).scalar()


def in_shared_storage():
    """Whether every host reaches every volume ([volume] backend = rbd): a volume
    then pins neither a boot from it nor an attachment to the host that made it."""
    return CONF.volume.backend == 'rbd'


def pinned_host(volume_id):
    """The only host that can use the volume, or None when any can."""
    return None if in_shared_storage() else host_of(volume_id)


def host_of(volume_id):
    with db_api.transaction() as session:
        row = session.get(models.Volume, volume_id)
        return row and row.host


def deleting():
    """Ids of volumes whose delete flow has not finished (to resume it)."""
    with db_api.transaction() as session:
        return list(session.execute(sa.select(models.Volume.id)
                                    .where(models.Volume.status == 'deleting')
                                    .order_by(models.Volume.updated_at)).scalars())


def mark(volume_id, status):
    _set(volume_id, status=status)
