"""Images: a disk image (qcow2 or raw), or a kernel + ramdisk with an optional disk.

Registration (``create``, the all-in-one CLI) records each file's absolute path and
sha256; a host copies the file into its cache and verifies the checksum there, so a
file changed after registration is refused at boot. Such images are active and
public, with no owner.

The image API makes images as Glance does (``add``, ``upload``): a ``queued`` row of
the caller's project, then bytes streamed into the image store, after which the row
points at the store's file with its sha256, exactly as a registered image points at
its file: the boot path is the same. Kernel and ramdisk are images of their own
(aki, ari), linked by the ``kernel_id``/``ramdisk_id`` properties.
"""

import os
import uuid

import sqlalchemy as sa
from sqlalchemy import orm

from provisioner.catalog import common
from provisioner.catalog import image_members
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.image import cache as image_cache
from provisioner.image import store
from provisioner import exception
from provisioner import schemas
from provisioner import validation

KIND = 'Image'
_QCOW2_MAGIC = b'QFI\xfb'


def detect_format(path):
    with open(path, 'rb') as f:
        return 'qcow2' if f.read(4) == _QCOW2_MAGIC else 'raw'


def create(name, file=None, kernel=None, ramdisk=None, disk_format=None, cmdline=None,
           arch=None, hypervisor_type=None, min_ram_mib=0, min_disk_gib=0):
    validation.check({
        'name': name, 'file': file, 'kernel': kernel, 'ramdisk': ramdisk,
        'disk_format': disk_format, 'cmdline': cmdline, 'arch': arch,
        'hypervisor_type': hypervisor_type, 'min_ram_mib': min_ram_mib,
        'min_disk_gib': min_disk_gib}, schemas.IMAGE_CREATE)
    if not file and not kernel:
        raise exception.Invalid(reason='an image needs --file (a disk image) or '
                                       '--kernel (with --ramdisk) for direct kernel boot')
    if ramdisk and not kernel:
        raise exception.Invalid(reason='--ramdisk needs --kernel')
    row = models.Image(id=str(uuid.uuid4()), name=name, cmdline=cmdline, size_bytes=0,
                       arch=arch, hypervisor_type=hypervisor_type,
                       min_ram_mib=min_ram_mib or 0, min_disk_gib=min_disk_gib or 0)
    for kind, path in (('disk', file), ('kernel', kernel), ('ramdisk', ramdisk)):
        if path is None:
            continue
        path = os.path.realpath(path)  # what was checked: the file, not a link to it
        setattr(row, '%s_path' % kind, path)
        setattr(row, '%s_sha256' % kind, image_cache.file_sha256(path))
        row.size_bytes += os.path.getsize(path)
    if file:
        detected = detect_format(row.disk_path)
        if disk_format and disk_format != detected:
            raise exception.Invalid(reason='--disk-format %s does not match the file, '
                                           'which is %s' % (disk_format, detected))
        row.disk_format = detected
    return common.add_unique(row, KIND)


_catalog = common.Catalog(models.Image, KIND,
                          common.instances_using(models.Instance.image_id))
list_all = _catalog.list_all
show = _catalog.show


# -- images of the image API (Glance v2): created empty, then uploaded -----------------

# Glance's: an image may be any of these; a boot reads those of _OWN_FILE in a bare
# container (or an AWS one: ami, aki, ari are bare too), the others are only kept.
DISK_FORMATS = ('ami', 'ari', 'aki', 'vhd', 'vhdx', 'vmdk', 'raw', 'qcow2', 'vdi',
                'iso', 'ploop')
CONTAINER_FORMATS = ('ami', 'ari', 'aki', 'bare', 'ovf', 'ova', 'docker', 'compressed')
_BOOTABLE_CONTAINERS = ('bare', 'ami', 'aki', 'ari')
# The files a boot reads, each fetched by a host on its own.
BOOT_PARTS = ('disk', 'kernel', 'ramdisk')
# Hosts' workers download images with this role (provisioner bootstrap --service-user).
SERVICE_ROLE = 'service'
# Glance's default is shared: the owner's until it adds members (image_members).
VISIBILITIES = ('public', 'private', 'shared')
# Glance's deactivate: the data stays, but no one but an admin reads it or boots it.
DEACTIVATED = 'deactivated'
# Properties that are columns the boot path reads: Glance/Nova name -> column.
COLUMN_PROPERTIES = {'os_command_line': 'cmdline', 'architecture': 'arch',
                     'hypervisor_type': 'hypervisor_type'}
# What each disk_format's own file is to a boot; other images link theirs by id.
_OWN_FILE = {'qcow2': 'disk', 'raw': 'disk', 'aki': 'kernel', 'ari': 'ramdisk'}
_LINKS = {'kernel': 'kernel_id', 'ramdisk': 'ramdisk_id'}
MAX_PROPERTIES = 128
MAX_TAGS = 128  # Glance's image_tag_quota
# Set by the image service, never by a request (Glance answers 403 for these).
# ``owner`` is an admin's to change (CatalogAPI checks image:set_owner).
READ_ONLY = frozenset(('id', 'status', 'size', 'virtual_size', 'checksum',
                       'os_hash_algo', 'os_hash_value', 'created_at',
                       'updated_at', 'self', 'file', 'schema', 'direct_url',
                       'locations', 'provisioner_boot', 'deleted', 'deleted_at'))
_MAX_KEY, _MAX_VALUE = 255, 65535


def registered(image):
    """Whether an image was registered by path (the CLI), not made by the image API."""
    return image['container_format'] is None


_LOOK_UP = object()


def visible_to(context, image, membership=_LOOK_UP):
    """Public images are everyone's; private ones their project's (and admins');
    shared ones their project's and their members' (whatever the member answered).
    ``membership``: the caller's status in the image (None: not a member), when the
    caller has it at hand."""
    if (image['visibility'] == 'public' or context.is_admin
            or image['owner'] == context.project_id):
        return True
    if image['visibility'] != 'shared':
        return False
    if membership is _LOOK_UP:
        membership = image_members.status_of(image['id'], context.project_id)
    return membership is not None


def list_visible(context, member_status='accepted'):
    """The images the caller sees, a shared one of another project only when the
    caller's membership is ``member_status`` (Glance's list: accepted ones; 'all')."""
    statuses = image_members.statuses_of(context.project_id)
    listed = []
    for image in list_all():
        status = statuses.get(image['id'])
        if not visible_to(context, image, status):
            continue
        if (status is not None and image['owner'] != context.project_id
                and member_status not in ('all', status)):
            continue
        listed.append(image)
    return listed


def show_visible(context, name_or_id):
    """The image, if the caller may see it; NotFound otherwise (as for no image)."""
    image = show(name_or_id)
    if not visible_to(context, image):
        raise exception.NotFound(kind=KIND, name=name_or_id)
    return image


def label(image):
    """How messages name an image: its name, or its id when it has none."""
    return image['name'] or image['id']


def check_bootable(context, image_row):
    """Refuse booting an image the caller may not see, one without its bytes, or one
    of a format a boot here cannot read."""
    image = common.to_dict(image_row)
    membership = image_members.status_of(image['id'], context.project_id,
                                         orm.object_session(image_row))
    if not visible_to(context, image, membership):
        raise exception.NotFound(kind=KIND, name=image['id'])
    if image['status'] != 'active':
        raise exception.Invalid(reason='image %s is %s, not active: upload its data '
                                       'first (openstack image create --file, or '
                                       'PUT /image/v2/images/%s/file)'
                                       % (label(image), image['status'], image['id']))
    if not registered(image) and (
            image['disk_format'] not in _OWN_FILE
            or image['container_format'] not in _BOOTABLE_CONTAINERS):
        raise exception.Invalid(reason='image %s is %s in a %s container: a server '
                                       'boots qcow2, raw, aki or ari images in a bare '
                                       'container' % (label(image), image['disk_format'],
                                                      image['container_format']))


_NON_NEGATIVE = {'type': 'integer', 'minimum': 0,
                 'errorMessage': '{key} must be a non-negative integer'}
_TAGS = 'tags are a list of strings of 1 to %d characters' % _MAX_KEY
_TEXT = 'must be text of at most %d characters without NUL' % _MAX_KEY
# Glance's name and owner: any text of at most 255 characters, or none.
_NAME = {'type': ['string', 'null'], 'maxLength': _MAX_KEY,
         'not': {'type': 'string', 'pattern': '\\x00|[\\ud800-\\udfff]'},
         'errorMessage': '{key} %s, or null' % _TEXT}
# What an image's fields and properties may be set to (None removes a property).
CHANGES = {
    'title': 'image update', 'type': 'object',
    'properties': {
        'name': _NAME, 'owner': _NAME,
        'min_ram': _NON_NEGATIVE, 'min_disk': _NON_NEGATIVE,
        'visibility': schemas.titled(schemas.one_of(*VISIBILITIES), 'visibility'),
        'protected': {'type': 'boolean',
                      'errorMessage': 'protected must be true or false'},
        'os_hidden': {'type': 'boolean',
                      'errorMessage': 'os_hidden must be true or false'},
        'disk_format': schemas.titled(schemas.one_of(*DISK_FORMATS), 'disk_format'),
        'container_format': schemas.titled(schemas.one_of(*CONTAINER_FORMATS),
                                           'container_format'),
        # Glance's tag rules: strings of 1 to 255 characters (repeats are dropped).
        'tags': {'type': ['array', 'null'], 'errorMessage': _TAGS, 'items': {
            'type': 'string', 'minLength': 1, 'maxLength': _MAX_KEY,
            'errorMessage': _TAGS}}},
    'propertyNames': {'minLength': 1, 'maxLength': _MAX_KEY,
                      'errorMessage': 'property names are strings of 1 to %d '
                                      'characters' % _MAX_KEY},
    'additionalProperties': {
        'type': ['string', 'null'], 'maxLength': _MAX_VALUE,
        'errorMessage': 'property {key} must be a string of at most %d characters'
                        % _MAX_VALUE},
}


def _set_fields(row, fields):
    """Apply changes: known fields to columns, the rest as properties.

    A value of None removes a property (Glance's "remove" op).
    """
    for key in fields:
        if key in READ_ONLY or str(key).startswith('os_glance'):
            raise exception.Forbidden(reason='attribute %s of an image is read-only'
                                             % key)
    validation.check(fields, CHANGES, none_is_absent=False)
    properties = dict(row.properties or {})
    for key, value in fields.items():
        if key in ('name', 'owner'):
            setattr(row, key, value)
        elif key in ('min_ram', 'min_disk'):
            setattr(row, 'min_ram_mib' if key == 'min_ram' else 'min_disk_gib', value)
        elif key == 'visibility':
            row.visibility = value
        elif key in ('protected', 'os_hidden'):
            setattr(row, key, value)
        elif key in ('disk_format', 'container_format'):
            if row.status != 'queued' and getattr(row, key) != value:
                raise exception.Conflict(reason='the %s of image %s cannot change once '
                                                'it has data' % (key, row.id))
            setattr(row, key, value)
        elif key == 'tags':
            tags = list(dict.fromkeys(value or ()))
            if len(tags) > MAX_TAGS:
                raise exception.Invalid(reason='an image has at most %d tags'
                                               % MAX_TAGS)
            row.tags = tags or None
        elif key in COLUMN_PROPERTIES:
            setattr(row, COLUMN_PROPERTIES[key], value or None)
        elif value is None:
            properties.pop(key, None)
        else:
            properties[key] = value
    if len(properties) > MAX_PROPERTIES:
        raise exception.Invalid(reason='an image has at most %d properties'
                                       % MAX_PROPERTIES)
    row.properties = properties or None


def _link_files(session, row):
    """Point a boot at the kernel and ramdisk images this one names by id.

    An aki image with ``ramdisk_id`` (or a disk image with ``kernel_id`` and
    ``ramdisk_id``) boots by direct kernel boot: the linked images' store files and
    hashes are copied into this row's columns, which is what a host's image cache
    reads. Links to images that are not active (yet), not of the right format, or
    not visible to this image's owner are left out until they are.
    """
    own = _OWN_FILE.get(row.disk_format)
    for role, prop in _LINKS.items():
        if role == own:
            continue
        target_id = (row.properties or {}).get(prop)
        target = session.get(models.Image, target_id) if target_id else None
        usable = (target is not None and target.status == 'active'
                  and getattr(target, '%s_path' % role)
                  and (target.visibility == 'public' or target.owner == row.owner))
        setattr(row, '%s_path' % role, getattr(target, '%s_path' % role) if usable
                else None)
        setattr(row, '%s_sha256' % role, getattr(target, '%s_sha256' % role) if usable
                else None)


def _relink_users(session, image_id):
    """Images that name ``image_id`` as their kernel or ramdisk pick up its file."""
    for row in session.execute(sa.select(models.Image).where(
            models.Image.properties.is_not(None),
            models.Image.container_format.is_not(None))).scalars():
        if image_id in ((row.properties or {}).get(p) for p in _LINKS.values()):
            _link_files(session, row)


def add(context, name=None, image_id=None, disk_format=None, container_format=None,
        visibility='shared', min_ram=0, min_disk=0, protected=False, properties=None,
        tags=None, owner=None, os_hidden=False):
    """An image without data (``queued``) owned by the caller's project (or
    ``owner``'s: an admin's choice)."""
    if image_id is not None:
        try:
            image_id = str(uuid.UUID(str(image_id)))
        except ValueError:
            raise exception.Invalid(reason='id must be a UUID, not %r'
                                           % image_id) from None
    row = models.Image(id=image_id or str(uuid.uuid4()), name=None, size_bytes=0,
                       status='queued', owner=owner or context.project_id,
                       container_format='bare', visibility='shared')
    fields = {'name': name, 'visibility': visibility or 'shared',
              'min_ram': min_ram or 0, 'min_disk': min_disk or 0,
              'protected': bool(protected), 'tags': tags, 'os_hidden': os_hidden}
    if disk_format is not None:
        fields['disk_format'] = disk_format
    if container_format is not None:
        fields['container_format'] = container_format
    fields.update(properties or {})
    _set_fields(row, fields)
    row.updated_at = row.created_at = models.utcnow()
    with db_api.transaction() as session:
        if session.get(models.Image, row.id) is not None:
            raise exception.Conflict(reason='An image with id %s already exists.'
                                            % row.id)
        _link_files(session, row)
    return common.add_unique(row, KIND)


def update(image_id, changes):
    """Apply {field or property: value, or None to remove} to an image."""
    with db_api.transaction() as session:
        row = common.find(session, models.Image, image_id, KIND)
        image = common.to_dict(row)
        if registered(image):
            raise exception.Conflict(reason='image %s was registered from files by '
                                            'path; delete and upload it to change it'
                                            % label(image))
        _set_fields(row, changes)
        row.updated_at = models.utcnow()
        _link_files(session, row)
        session.flush()
        return common.to_dict(row)


def _set_status(image_id, expected, status):
    """Move the image from ``expected`` to ``status`` atomically; False if it was not
    in ``expected`` (or is gone)."""
    with db_api.transaction() as session:
        result = session.execute(sa.update(models.Image).where(
            models.Image.id == image_id, models.Image.status == expected).values(
            status=status, updated_at=models.utcnow()))
        return result.rowcount == 1


def upload(image_id, stream, size=None):
    """Store an image's bytes from ``stream``: queued -> saving -> active.

    Any failure (the client went away, too large, wrong content) puts the image
    back to ``queued`` with no file left, as Glance does, so it can be uploaded
    again.
    """
    image = show(image_id)
    if image['disk_format'] is None and image['status'] == 'queued':
        raise exception.Invalid(reason='set the disk_format of image %s before '
                                       'uploading its data' % label(image))
    if registered(image) or not _set_status(image['id'], 'queued', 'saving'):
        raise exception.Conflict(reason='image %s is %s: data can be uploaded only to '
                                        'a queued image' % (label(image),
                                                            image['status']))
    try:
        store.remove_abandoned_uploads(image['id'])
        written = store.write(image['id'], stream, size)
        try:
            store.check_content(written, image['disk_format'])
            if store.uses_rbd(image['disk_format']):
                path, written = store.commit_rbd(written, image['id'],
                                                 image['disk_format'])
            else:
                path = store.commit(written, image['id'])
        except BaseException:
            store.discard(written.tmp_path)
            raise
        try:
            return _activate(image['id'], path, written)
        except BaseException:
            store.discard(path)
            raise
    except BaseException:
        _set_status(image['id'], 'saving', 'queued')
        raise


def _activate(image_id, path, written):
    """A saving image made active with the data the store holds at ``path`` (an
    upload's, or a server snapshot's made in RBD by its host: Nova's direct one)."""
    with db_api.transaction() as session:
        row = session.get(models.Image, image_id)
        if row is None or row.status != 'saving':
            raise exception.NotFound(kind=KIND, name=image_id)
        if written.disk_format:  # converted by the store (Glance's image_conversion)
            row.disk_format = written.disk_format
        role = _OWN_FILE.get(row.disk_format)
        if role is not None:  # what a boot reads; other formats are only kept
            setattr(row, '%s_path' % role, path)
            setattr(row, '%s_sha256' % role, written.sha256)
        row.store_path = path
        row.size_bytes = written.size
        row.virtual_size = written.virtual_size
        row.checksum = written.md5
        row.os_hash_algo, row.os_hash_value = store.HASH_ALGO, written.sha512
        row.status = 'active'
        row.updated_at = models.utcnow()
        _link_files(session, row)
        session.flush()
        _relink_users(session, row.id)
        return common.to_dict(row)


activate_stored = _activate


def data_path(image, part=None):
    """The file holding an image's data (None before an upload): the store's file,
    or a registered image's disk (else kernel) file. With ``part`` (disk, kernel,
    ramdisk): that file of a boot of the image (a linked aki/ari image's file for an
    uploaded one); NotFound if the image has none."""
    if image['status'] not in ('active', DEACTIVATED):
        return None
    if part is not None:
        if part not in BOOT_PARTS:
            raise exception.Invalid(reason='part must be one of %s, not %r'
                                           % (', '.join(BOOT_PARTS), part))
        if not image['%s_path' % part]:
            raise exception.NotFound(message='Image %s has no %s.' % (image['id'],
                                                                       part))
        return image['%s_path' % part]
    if image['store_path']:
        return image['store_path']
    return image['disk_path'] or image['kernel_path']


def _users_of_file(session, row):
    """Instances booted from the image, images that boot with its file, and volumes
    still to be made from it (a volume copies its image at its first attachment)."""
    users = [common.instances_using(models.Instance.image_id)(session, row)]
    waiting = session.execute(sa.select(models.Volume.id).where(
        models.Volume.image_id == row.id, models.Volume.host.is_(None))
        .order_by(models.Volume.id)).scalars().all()
    if waiting:
        users.append('volume %s (a volume copies its image when first attached)'
                     % ', '.join(waiting))
    if row.store_path:
        others = session.execute(sa.select(models.Image).where(
            models.Image.id != row.id, sa.or_(
                models.Image.kernel_path == row.store_path,
                models.Image.ramdisk_path == row.store_path,
                models.Image.disk_path == row.store_path))).scalars().all()
        if others:
            users.append('image %s' % ', '.join(label(common.to_dict(other))
                                                for other in others))
    return ', '.join(u for u in users if u)


def delete(image_id):
    """Delete an image and its store file; its registered files are never deleted."""
    with db_api.transaction() as session:
        row = common.find(session, models.Image, image_id, KIND)
        if row.protected:
            raise exception.Forbidden(reason='image %s is protected; unset protected '
                                             'first (openstack image set '
                                             '--unprotected)' % label(common.to_dict(row)))
        users = _users_of_file(session, row)
        if users:
            raise exception.Conflict(reason='%s %s is in use by %s.'
                                            % (KIND, label(common.to_dict(row)), users))
        session.execute(sa.delete(models.ImageMember)
                        .where(models.ImageMember.image_id == row.id))
        session.delete(row)
        image = common.to_dict(row)
        if store.rbd_store.is_location(image['store_path']):
            # Before the row goes: an RBD image with clones refuses (409), as
            # Glance's rbd store does, and the image stays.
            store.delete(image['store_path'], image_id=image['id'])
    if image['store_path'] and not store.rbd_store.is_location(image['store_path']):
        store.delete(image['store_path'])
    return image


def set_active(image_id, active):
    """Glance's deactivate (``active`` False) and reactivate: an active image becomes
    deactivated and back; either is a no-op on an image already so. Forbidden for an
    image in any other state (queued, saving), as Glance answers."""
    wanted, other = ('active', DEACTIVATED) if active else (DEACTIVATED, 'active')
    image = show(image_id)
    if image['status'] == wanted:
        return image
    if registered(image) or not _set_status(image['id'], other, wanted):
        raise exception.Forbidden(reason='image %s is %s: only an %s image can be %s'
                                         % (label(image), image['status'], other,
                                            'reactivated' if active else 'deactivated'))
    return show(image['id'])
