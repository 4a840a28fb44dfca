"""What the volume service's modules share: statuses, Cinder's metadata schema,
the image metadata a volume keeps, and a volume looked up for a user."""

from provisioner.db import models
from provisioner import exception
from provisioner import policy
from provisioner import schemas

AVAILABLE = 'available'
IN_USE = 'in-use'

# Cinder's metadata: keys of letters, digits and -_:. / (its extra_specs), text values.
METADATA = {
    'type': 'object', 'maxProperties': schemas.MAX_PROPERTIES,
    'propertyNames': {
        'pattern': schemas.whole('[A-Za-z0-9_:. /-]{1,255}'),
        'errorMessage': "metadata key {value!r} must be 1-255 letters, digits, "
                        "'-', '_', ':', '.', ' ' or '/'"},
    'additionalProperties': schemas.titled(schemas.text(255), 'metadata {key}'),
    'errorMessage': {'type': 'metadata must be an object of key/value pairs',
                     'maxProperties': 'at most {limit} metadata pairs, not {length}'}}
METADATA_SET = schemas.request('volume metadata', {'metadata': METADATA})


def image_metadata_of(image):
    """What Cinder keeps of the image a volume is made from (its
    volume_image_metadata): the image's identity and formats, and its properties,
    all as text."""
    found = {'image_id': image.id, 'image_name': image.name,
             'checksum': image.checksum, 'container_format': image.container_format,
             'disk_format': image.disk_format, 'min_disk': image.min_disk_gib,
             'min_ram': image.min_ram_mib, 'size': image.size_bytes}
    found.update(image.properties or {})
    return {key: str(value) for key, value in found.items() if value is not None}


def get_volume(context, session, volume_id, action):
    """The volume row, ``action`` authorized on it (another project's: 404)."""
    row = session.get(models.Volume, volume_id)
    if row is None:
        raise exception.NotFound(kind='Volume', name=volume_id)
    policy.authorize_owned(context, action, row.project_id, 'Volume', volume_id)
    return row
