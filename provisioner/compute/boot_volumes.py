"""An existing volume as a server's root disk (Nova's block_device_mapping_v2
``source_type=volume``, ``boot_index 0``; ``openstack server create --volume``).

The volume service's volume is reserved in the transaction that records the server
(``attaching``, as an attachment does), so two boots cannot both take it. A volume
with bytes on a host pins the server to that host (the scheduler's
VolumeHostFilter): hosts share no storage. One without bytes yet (made by the volume
service and never attached) gets them on the chosen host, a copy of its image.
"""

import sqlalchemy as sa

from provisioner.db import models
from provisioner import exception
from provisioner import policy

ROOT_DEVICE = '/dev/vda'
_AVAILABLE = 'available'


def bootable(session, context, volume_id):
    """The row of a volume the caller may boot from: theirs, made from an image
    (Nova's InvalidBDMVolumeNotBootable) and available."""
    row = session.get(models.Volume, volume_id)
    if row is None:
        raise exception.NotFound(kind='Volume', name=volume_id)
    policy.authorize_owned(context, 'volume:attach', row.project_id, 'Volume', volume_id)
    if row.index is not None:
        raise exception.InvalidVolume(reason='volume %s was made with a server and is '
                                             'part of it' % volume_id)
    if not row.bootable or not row.image_id:
        raise exception.InvalidVolume(reason='volume %s is not bootable: it was not '
                                             'made from an image' % volume_id)
    if row.status != _AVAILABLE:
        raise exception.InvalidVolume(reason="volume %s status must be 'available', not "
                                             "'%s'" % (volume_id, row.status))
    return row


def reserve(session, context, volume_id, instance_id):
    """Take the volume for the server's root disk; what the request spec keeps of it.

    ``fresh``: it has no bytes on any host, so the boot makes them (and deleting
    them undoes that). It is never deleted with the server: it was made on its own.
    """
    row = bootable(session, context, volume_id)
    taken = session.execute(
        sa.update(models.Volume)
        .where(models.Volume.id == volume_id, models.Volume.status == _AVAILABLE)
        .values(status='attaching', instance_id=instance_id, device=ROOT_DEVICE,
                updated_at=models.utcnow()))
    if taken.rowcount != 1:
        raise exception.InvalidVolume(reason='volume %s changed meanwhile; try again'
                                             % volume_id)
    return {'id': volume_id, 'size': row.size_gib, 'existing': True,
            'fresh': row.host is None, 'delete_on_termination': False}
