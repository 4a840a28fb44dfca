"""A server's snapshot into a new image (Nova's createImage).

The request makes the image at once, as Nova's API does: ``queued`` in the image
service, private, owned by the server's project, with Nova's snapshot properties
(image_type=snapshot, instance_uuid, user_id, base_image_ref, the base image's
inheritable properties, min_ram and min_disk, then the metadata given), and takes
the server's task (task_state image_snapshot) in one conditional write: a server
with another task under way, or in a state Nova refuses, is a 409 and the image
is dropped again. What the flow needs (the image, whether the guest runs) is kept
in the instance's request spec until the flow ends.

The flow (flows.create_image) captures the root disk on the server's host
(image_pending_upload), uploads it through the image service's own upload path
(image_uploading: queued -> saving -> active, hashed and checked as any upload),
or, root disks and images both in RBD, registers the flattened clone's location
(Nova's direct snapshot). A rollback deletes the image, its row and its bytes.
"""

import logging
import uuid

import sqlalchemy as sa

from provisioner.catalog import images
from provisioner.compute import actions
from provisioner.compute import instances
from provisioner.compute import server_metadata
from provisioner.compute import states
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.image import store

LOG = logging.getLogger(__name__)

# Nova's check_instance_state of snapshot (paused and suspended are Nova's too).
SNAPSHOTTABLE = (states.ACTIVE, states.STOPPED, 'paused', 'suspended')
_SPEC_KEY = 'image_snapshot'
# Nova's NON_INHERITABLE_IMAGE_PROPERTIES and namespaces (nova.compute.utils), and
# what the snapshot sets itself.
_NOT_INHERITED = frozenset((
    'cache_in_nova', 'bittorrent', 'img_signature_hash_method', 'img_signature',
    'img_signature_key_type', 'img_signature_certificate_uuid', 'instance_uuid',
    'image_type', 'user_id', 'base_image_ref', 'image_location', 'image_state',
    'owner_id', 'os_glance_importing_to_stores', 'os_glance_failed_import',
    'block_device_mapping', 'bdm_v2', 'root_device_name'))
_NOT_INHERITED_PREFIXES = ('os_glance', 'img_signature')


class VolumeBackedSnapshot(exception.Conflict):
    msg_fmt = ('Cannot snapshot server %(server)s: it boots from volume %(volume)s, '
               'and provisioner does not snapshot volume-backed servers into images '
               'yet; snapshot its root volume with the volume API instead (openstack '
               'volume snapshot create --volume %(volume)s --force NAME).')


def _inherited(base):
    """The base image's properties a snapshot carries on (Nova's system metadata
    image_* properties, less the non-inheritable ones)."""
    if base is None:
        return {}
    found = {key: value for key, value in (base.properties or {}).items()
             if key not in _NOT_INHERITED
             and not key.startswith(_NOT_INHERITED_PREFIXES)}
    for prop, column in images.COLUMN_PROPERTIES.items():
        if getattr(base, column):
            found[prop] = getattr(base, column)
    # The kernel and ramdisk the server booted with boot the snapshot: linked by
    # id, as Glance's aki/ari images are; the base image's own (an aki image, or
    # a kernel + ramdisk registered by path) by the base image's id.
    for part, prop in (('kernel', 'kernel_id'), ('ramdisk', 'ramdisk_id')):
        if getattr(base, '%s_path' % part) and prop not in found:
            found[prop] = base.id
    return found


def _image_fields(context, row, base, name, metadata):
    properties = _inherited(base)
    properties.update({'instance_uuid': row.id, 'user_id': context.user_id,
                       'image_type': 'snapshot', 'owner_id': row.project_id,
                       'image_location': 'snapshot', 'image_state': 'available'})
    if row.image_id:
        properties['base_image_ref'] = row.image_id
    properties.update(metadata or {})
    return {'name': name, 'visibility': 'private', 'owner': row.project_id,
            'min_ram': base.min_ram_mib if base is not None else 0,
            'min_disk': base.min_disk_gib if base is not None else 0,
            'properties': {k: str(v) for k, v in properties.items()}}


def request(api, name_or_id, name, metadata=None):
    """Record a snapshot of the server into a new image named ``name`` with
    ``metadata`` as extra properties; (instance id, action id, image id)."""
    server_metadata.check_count(metadata)
    with db_api.transaction() as session:
        row = api._find(session, name_or_id, 'instance:create_image')
        boot_volume = (row.request_spec or {}).get('boot_volume')
        if boot_volume:
            raise VolumeBackedSnapshot(server=row.id, volume=boot_volume.get('id'))
        _check_state(name_or_id, row)
        if row.host is None:
            raise exception.Conflict(reason='Cannot snapshot instance %s: it was '
                                            'never built on a host.' % name_or_id)
        base = session.get(models.Image, row.image_id) if row.image_id else None
        fields = _image_fields(api.context, row, base, name, metadata)
    image = images.add(api.context, **fields)
    try:
        with db_api.transaction() as session:
            row = instances.get_row(session, row.id)
            instances.take_task(session, row, 'createImage', SNAPSHOTTABLE,
                                states.IMAGE_SNAPSHOT, name_or_id)
            row.request_spec = dict(row.request_spec or {}, **{_SPEC_KEY: {
                'image_id': image['id'], 'running': row.vm_state == states.ACTIVE}})
            action_id = actions.record(session, api.context, row.id,
                                       actions.CREATE_IMAGE, str(uuid.uuid4()))
    except BaseException:
        images.delete(image['id'])
        raise
    return row.id, action_id, image['id']


def _check_state(name_or_id, row):
    if row.vm_state not in SNAPSHOTTABLE or row.task_state is not None:
        raise exception.Conflict(
            reason="Cannot 'createImage' instance %s while it is in vm_state %s%s."
                   % (name_or_id, row.vm_state, ', task_state %s' % row.task_state
                      if row.task_state else ''))


# -- what the flow's steps read and write (flows.steps.image_snapshot) ------------

def snapshot_request(instance_id):
    """{'image_id', 'running', 'direct_pool'} of the snapshot under way: the pool
    of images when the host makes it an RBD image directly (root disks and the
    image store both in RBD), else None."""
    with db_api.transaction() as session:
        spec = instances.get_row(session, instance_id).request_spec or {}
    wanted = dict(spec.get(_SPEC_KEY) or {})
    if not wanted:
        raise exception.NotFound(kind='Snapshot request of instance', name=instance_id)
    direct = CONF.libvirt.images_type == 'rbd' and CONF.image.store == 'rbd'
    wanted['direct_pool'] = CONF.image.rbd_pool if direct else None
    return wanted


def set_task_state(instance_id, task_state):
    instances.update(instance_id, task_state=task_state)


def _move(image_id, expected, status):
    with db_api.transaction() as session:
        session.execute(sa.update(models.Image).where(
            models.Image.id == image_id, models.Image.status == expected)
            .values(status=status, updated_at=models.utcnow()))


def prepare_upload(image_id, disk_format):
    """Ready the image for the capture's upload: the capture's disk_format (Nova's
    snapshot leaves it unset until then), and queued again if a killed process left
    an upload of it saving (the step runs again, its upload with it)."""
    status = images.show(image_id)['status']
    if status == 'saving':
        _move(image_id, 'saving', 'queued')
    if status != 'active':
        images.update(image_id, {'disk_format': disk_format,
                                 'container_format': 'bare'})


def upload_file(image_id, path):
    """Upload the captured file at ``path`` (this machine's: all-in-one) through the
    image service's upload path; an image already active (a re-run) is left."""
    if images.show(image_id)['status'] == 'active':
        return
    with open(path, 'rb') as data:
        images.upload(image_id, data)


def activate_location(image_id, location, digests):
    """A direct snapshot: the image is the RBD image at ``location`` (raw), its
    hashes and size as the host computed them."""
    if images.show(image_id)['status'] == 'active':
        return
    images.update(image_id, {'disk_format': 'raw', 'container_format': 'bare'})
    _move(image_id, 'queued', 'saving')  # Glance's saving, then active
    images.activate_stored(image_id, location, store.Upload(
        None, digests['size'], digests['md5'], digests['sha256'], digests['sha512'],
        virtual_size=digests['size']))


def discard_image(image_id):
    """A rolled back snapshot: the image, its row and its bytes, gone."""
    try:
        images.delete(image_id)
    except exception.NotFound:
        pass


def restore(instance_id, action_id, fault):
    """A rolled back snapshot: no task, the request forgotten, the action failed."""
    _forget(instance_id, task_state=None)
    actions.finish(action_id, 'Error: %s' % fault)


def _forget(instance_id, **fields):
    with db_api.transaction() as session:
        row = instances.get_row(session, instance_id)
        spec = dict(row.request_spec or {})
        spec.pop(_SPEC_KEY, None)
        row.request_spec = spec
        for key, value in fields.items():
            setattr(row, key, value)


def conclude(instance_id, action_id):
    """The snapshot is in: no task, the request forgotten, the action finished (one
    write)."""
    with db_api.transaction() as session:
        spec = dict(instances.get_row(session, instance_id).request_spec or {})
    spec.pop(_SPEC_KEY, None)
    instances.conclude_action(instance_id, action_id, task_state=None,
                              request_spec=spec)
