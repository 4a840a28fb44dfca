"""What the volume service's modules share: statuses, Cinder's metadata schema,
the image metadata a volume keeps, a volume looked up for a user, and the update
and metadata calls of volumes and snapshots."""

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.quota import counters
from provisioner.quota import limits
from provisioner import policy
from provisioner import schemas
from provisioner import validation

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


def check_count(session, project_id, model, resource, size=None):
    """Cinder's count limits, in the caller's transaction after the gigabytes were
    counted (that update holds the project's usage row: two creates of a project
    check one after the other). ``size``: also the per-volume limit."""
    found = limits.limits(session, project_id, (resource, 'per_volume_gigabytes'))
    largest = found['per_volume_gigabytes']
    if size is not None and largest != limits.UNLIMITED and size > largest:
        raise counters.VolumeOverQuota(resource='per_volume_gigabytes',
                                       project=project_id, requested=size, in_use=0,
                                       limit=largest)
    if found[resource] == limits.UNLIMITED:
        return
    in_use = session.scalar(sa.select(sa.func.count()).select_from(model).where(
        model.project_id == project_id))
    if in_use + 1 > found[resource]:
        raise CountOverQuota(resource=resource, limit=found[resource])


class CountOverQuota(counters.VolumeOverQuota):
    """Cinder's 413 for too many volumes or snapshots."""

    msg_fmt = ("Maximum number of %(resource)s allowed (%(limit)d) exceeded for "
               "quota '%(resource)s'.")


def get_owned(context, session, model, kind, row_id, action):
    """The row of a project's ``model``, ``action`` authorized on it (another
    project's: 404 as one that does not exist)."""
    row = session.get(model, row_id)
    if row is None:
        raise exception.NotFound(kind=kind, name=row_id)
    policy.authorize_owned(context, action, row.project_id, kind, row_id)
    return row


def get_volume(context, session, volume_id, action):
    """The volume row, ``action`` authorized on it (another project's: 404)."""
    return get_owned(context, session, models.Volume, 'Volume', volume_id, action)


class Described:
    """Cinder's update and metadata calls of a row with a name, a description and
    metadata (``properties``): a volume's and a snapshot's are the same. A subclass
    gives ``_get(session, id, action)``, its update schema and policy actions."""

    update_schema = None
    update_action = None
    metadata_action = None

    def update(self, row_id, **fields):
        """Set name and/or description; metadata given replaces the row's."""
        validation.check(fields, self.update_schema)
        with db_api.transaction() as session:
            row = self._get(session, row_id, self.update_action)
            for key in ('name', 'description'):
                if key in fields:
                    setattr(row, key, fields[key])
            if fields.get('metadata') is not None:
                row.properties = dict(fields['metadata']) or None
            row.updated_at = models.utcnow()

    def metadata(self, row_id):
        with db_api.transaction() as session:
            return dict(self._get(session, row_id, 'instance:show').properties or {})

    def set_metadata(self, row_id, metadata, replace=False):
        """Add or change the pairs of ``metadata`` (all of it, with ``replace``);
        the metadata after."""
        validation.check({'metadata': metadata}, METADATA_SET, none_is_absent=False)
        with db_api.transaction() as session:
            row = self._get(session, row_id, self.metadata_action)
            found = {} if replace else dict(row.properties or {})
            found.update(metadata)
            validation.check({'metadata': found}, METADATA_SET)  # not too many pairs
            row.properties, row.updated_at = found or None, models.utcnow()
            return found

    def delete_metadata(self, row_id, key):
        with db_api.transaction() as session:
            row = self._get(session, row_id, self.metadata_action)
            found = dict(row.properties or {})
            if key not in found:
                raise exception.NotFound(kind='Metadata item', name=key)
            del found[key]
            row.properties, row.updated_at = found or None, models.utcnow()
