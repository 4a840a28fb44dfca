"""The volume service: volumes made on their own, attached to and detached from servers.

Hosts share no storage, so a new volume is only recorded (its size and source: blank
or an image) and gets its bytes on the host of the first server it is attached to
(the attach flow's MakeVolume step); from then on it is bound to that host, and an
attachment to a server elsewhere is refused (409). An extend of a detached volume is
recorded the same way and applied on the host at its next attachment. Deleting a
volume that has bytes on a host runs the volume delete flow there.

Statuses (Cinder's): available, attaching, in-use, detaching, deleting, error,
error_deleting. ``creating`` is never seen: a volume needs no host to be created.
Every check and its status change are one conditional UPDATE, so two requests
racing for one volume cannot both pass. Quota: the project's gigabytes (provisioner's
``volumes_gib``), counted when a volume is created or grown, given back at delete.
"""

import math
import uuid

import sqlalchemy as sa

from provisioner.compute import actions
from provisioner.quota import counters
from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner import policy
from provisioner import schemas
from provisioner import validation
from provisioner.volume import devices
from provisioner.volume import rules
from provisioner.volume import snapshots
from provisioner.volume import types
from provisioner.volume import volumes

METADATA = rules.METADATA
METADATA_SET = rules.METADATA_SET
image_metadata_of = rules.image_metadata_of

AVAILABLE = rules.AVAILABLE
ATTACHING = 'attaching'
IN_USE = rules.IN_USE
DETACHING = 'detaching'
DELETING = 'deleting'
ERROR = 'error'
ERROR_DELETING = 'error_deleting'

ATTACH = 'attach_volume'  # Nova's instance action names
DETACH = 'detach_volume'
VOLUME_ACTIONS = (ATTACH, DETACH)

MAX_SIZE_GIB = 16384
GIB = 1024 ** 3
_DELETABLE = (AVAILABLE, ERROR, ERROR_DELETING)
_ATTACHABLE_VM_STATES = (states.ACTIVE, states.STOPPED)


def _count_gigabytes(session, context, gib):
    counters.count(session, context.project_id, {'volumes_gib': gib},
                   context.project_name, error=counters.VolumeOverQuota)


_GIB = "'{key}' must be a whole number of GiB between 1 and %d, not {value!r}" \
    % MAX_SIZE_GIB
# A size in GiB: an int, or digits as clients send (their range checked once a number).
_SIZE = {'type': ['integer', 'string'], 'pattern': '^\\s*[0-9]+\\s*$', 'minimum': 1,
         'maximum': MAX_SIZE_GIB, 'errorMessage': _GIB}
_TEXT = {'type': 'string', 'maxLength': 255,
         'errorMessage': '{key} must be a string of at most 255 characters'}
_CREATE_FIELDS = {'size': _SIZE, 'name': _TEXT, 'description': _TEXT,
                  'availability_zone': _TEXT, 'metadata': METADATA}
CREATE = dict(schemas.request('volume create', _CREATE_FIELDS, required=['size']),
              errorMessage={'required': _GIB.replace('{value!r}', 'None')})
# From a snapshot or a volume the size may be left out: the source's.
CREATE_FROM = schemas.request('volume create', _CREATE_FIELDS)
UPDATE = schemas.request('volume update', {'name': _TEXT, 'description': _TEXT,
                                           'metadata': METADATA})
_FLAG = {'type': 'boolean', 'errorMessage': '{key} must be true or false, not {value!r}'}
EXTEND = dict(schemas.request('volume extend', {'new_size': _SIZE},
                              required=['new_size']),
              errorMessage={'required': _GIB.replace('{value!r}', 'None')})
# Cinder's volume statuses an admin may reset a volume to.
STATUSES = ('creating', AVAILABLE, DELETING, ERROR, ERROR_DELETING, 'error_managing',
            'managing', ATTACHING, IN_USE, DETACHING, 'maintenance', 'reserved',
            'downloading', 'uploading', 'retyping', 'extending', 'error_extending')
RESET_STATUS = schemas.request('volume reset-status', {'status': {
    'enum': list(STATUSES),
    'errorMessage': "a volume's status can be reset to %s, not {value!r}"
                    % ', '.join(STATUSES)}}, required=['status'])


def _checked(fields, schema, size_key=None):
    """``fields`` checked against ``schema``, the size (digits allowed) made an int."""
    validation.check(fields, schema)
    if size_key is not None and isinstance(fields[size_key], str):
        fields = dict(fields, **{size_key: int(fields[size_key])})
        validation.check(fields, schema)  # its range, now that it is a number
    return fields


class VolumeAPI(rules.Described):
    """What a user may do with the volume service's volumes (policy checked here)."""

    update_schema = UPDATE
    update_action = 'volume:update'
    metadata_action = 'volume:update_metadata'

    def __init__(self, context):
        self.context = context

    def _get(self, session, volume_id, action):
        return rules.get_volume(self.context, session, volume_id, action)

    def _image(self, session, image_ref):
        image = session.get(models.Image, image_ref)
        visible = image is not None and (
            image.visibility == 'public' or image.owner == self.context.project_id
            or self.context.is_admin)
        if not visible:
            raise exception.Invalid(reason='image %s does not exist' % image_ref)
        if image.status != 'active' or not image.disk_path:
            raise exception.Invalid(reason='image %s has no disk to copy into a volume '
                                           '(status %s)' % (image_ref, image.status))
        return image

    def create(self, size, name=None, description=None, image_ref=None,
               availability_zone=None, metadata=None, volume_type=None,
               snapshot_id=None, source_volid=None):
        """Record a volume; (its id, whether the copy flow must make its bytes).

        Blank or from an image (``image_ref``), its bytes made at its first
        attachment; or from a snapshot or another volume (provisioner.volume.
        snapshots), copied on their host now; of a ``volume_type`` (id or name).
        """
        policy.authorize(self.context, 'volume:create')
        size = _checked({'size': size, 'name': name, 'description': description,
                         'availability_zone': availability_zone, 'metadata': metadata},
                        CREATE_FROM if snapshot_id or source_volid else CREATE,
                        'size' if size is not None else None)['size']
        volume_id = str(uuid.uuid4())
        copy = False
        with db_api.transaction() as session:
            type_id = types.for_volume(self.context, session, volume_type)
            if snapshot_id or source_volid:
                values, copy = snapshots.source_for_volume(
                    self.context, session, size, snapshot_id, source_volid)
            else:
                values = self._from_image(session, size, image_ref)
            _count_gigabytes(session, self.context, values['size_gib'])
            rules.check_count(session, self.context.project_id, models.Volume,
                              'volumes', values['size_gib'])
            session.add(models.Volume(
                id=volume_id, project_id=self.context.project_id,
                user_id=self.context.user_id, name=name, description=description,
                availability_zone=availability_zone, properties=metadata or None,
                volume_type_id=type_id, updated_at=models.utcnow(), **values))
        return volume_id, copy

    def _from_image(self, session, size, image_ref):
        image = self._image(session, image_ref) if image_ref else None
        if image is not None:
            needed = max(image.min_disk_gib,
                         math.ceil((image.virtual_size or image.size_bytes) / GIB))
            if size < needed:
                raise exception.Invalid(
                    reason='Image %s needs a volume of at least %d GiB; %d GiB '
                           'was asked for.' % (image.id, needed, size))
        return {'size_gib': size, 'status': AVAILABLE, 'image_id': image and image.id,
                'bootable': image is not None,
                'image_metadata': image_metadata_of(image) if image else None}

    def image_metadata(self, volume_id):
        """Cinder's os-show_image_metadata: the volume's image metadata."""
        with db_api.transaction() as session:
            return volumes.image_metadata(self._get(session, volume_id, 'instance:show'))

    def set_image_metadata(self, volume_id, metadata):
        """Cinder's os-set_image_metadata: add or change pairs; all of it after."""
        validation.check({'metadata': metadata}, METADATA_SET, none_is_absent=False)
        with db_api.transaction() as session:
            row = self._get(session, volume_id, 'volume:update_image_metadata')
            found = dict(volumes.image_metadata(row) or {}, **metadata)
            validation.check({'metadata': found}, METADATA_SET)
            row.image_metadata, row.updated_at = found, models.utcnow()
            return found

    def delete_image_metadata(self, volume_id, key):
        """Cinder's os-unset_image_metadata: 404 for a key the volume has not."""
        with db_api.transaction() as session:
            row = self._get(session, volume_id, 'volume:update_image_metadata')
            found = volumes.image_metadata(row) or {}
            if key not in found:
                raise exception.NotFound(kind='Image metadata item', name=key)
            del found[key]
            row.image_metadata, row.updated_at = found, models.utcnow()

    def _set_flag(self, volume_id, action, column, value, status=None):
        validation.check({column: value}, schemas.request(
            'volume ' + action.split(':')[1], {column: _FLAG}, required=[column]),
            none_is_absent=False)
        with db_api.transaction() as session:
            row = self._get(session, volume_id, action)
            if status is not None and row.status != status:
                raise exception.InvalidVolume(
                    reason='Volume %s status must be %s to update its %s flag, but '
                           'current status is: %s.' % (volume_id, status, column,
                                                       row.status))
            setattr(row, column, value)
            row.updated_at = models.utcnow()

    def set_bootable(self, volume_id, bootable):
        self._set_flag(volume_id, 'volume:set_bootable', 'bootable', bootable)

    def set_readonly(self, volume_id, readonly):
        """Cinder's admin metadata ``readonly``: for an available volume only."""
        self._set_flag(volume_id, 'volume:update_readonly_flag', 'readonly', readonly,
                       status=AVAILABLE)

    def extend(self, volume_id, new_size):
        """Grow an available volume (Cinder's os-extend); the host's file grows at
        its next attachment."""
        new_size = _checked({'new_size': new_size}, EXTEND, 'new_size')['new_size']
        with db_api.transaction() as session:
            row = self._get(session, volume_id, 'volume:extend')
            if row.status != AVAILABLE:
                raise exception.InvalidVolume(
                    reason='Volume status must be available to extend, but current '
                           'status is: %s.' % row.status)
            if new_size <= row.size_gib:
                raise exception.Invalid(reason='New size for extend must be greater '
                                               'than current size. (current: %d, '
                                               'extended: %d).' % (row.size_gib, new_size))
            _count_gigabytes(session, self.context, new_size - row.size_gib)
            taken = session.execute(
                sa.update(models.Volume)
                .where(models.Volume.id == volume_id, models.Volume.status == AVAILABLE,
                       models.Volume.size_gib == row.size_gib)
                .values(size_gib=new_size, updated_at=models.utcnow()))
            if taken.rowcount != 1:
                raise exception.InvalidVolume(reason='volume %s changed while extending it; '
                                                     'try again' % volume_id)

    def reserve(self, volume_id):
        """Hold an available volume for an attachment (Cinder's os-reserve): it is
        attaching, by no attach of provisioner's, until os-unreserve."""
        with db_api.transaction() as session:
            self._get(session, volume_id, 'volume:reserve')
            taken = session.execute(
                sa.update(models.Volume)
                .where(models.Volume.id == volume_id, models.Volume.status == AVAILABLE)
                .values(status=ATTACHING, action_id=None, updated_at=models.utcnow()))
            if taken.rowcount != 1:
                raise exception.InvalidVolume(
                    reason='Volume %s status must be available to reserve, but current '
                           'status is: %s.' % (volume_id, session.get(
                               models.Volume, volume_id).status))

    def unreserve(self, volume_id):
        """Release os-reserve's hold; a volume not so held is left as it is (as
        Cinder does), an attach under way too."""
        with db_api.transaction() as session:
            self._get(session, volume_id, 'volume:reserve')
            session.execute(
                sa.update(models.Volume)
                .where(models.Volume.id == volume_id, models.Volume.status == ATTACHING,
                       models.Volume.action_id.is_(None),
                       models.Volume.instance_id.is_(None))
                .values(status=AVAILABLE, updated_at=models.utcnow()))

    def reset_status(self, volume_id, status):
        """Set the status as an operator found it (Cinder's os-reset_status): for a
        volume a flow that could not finish nor roll back left half-way. Available
        and error also forget the attachment (the server it was plugged into)."""
        validation.check({'status': status}, RESET_STATUS, none_is_absent=False)
        with db_api.transaction() as session:
            row = self._get(session, volume_id, 'volume:reset_status')
            row.status, row.action_id, row.updated_at = status, None, models.utcnow()
            if status in (AVAILABLE, ERROR) and row.index is None:
                row.instance_id = row.device = row.attached_at = None

    def request_delete(self, volume_id, cascade=False, force=False):
        """Delete a volume of no host at once; mark one with bytes on a host
        ``deleting`` for the delete flow. (True when that flow must run, the ids of
        the snapshots whose delete flow must run: with ``cascade``, Cinder's,
        its snapshots go with it; without, a volume with snapshots stays.)
        ``force`` (admins' os-force_delete): whatever its status, unless a server
        has it plugged in."""
        with db_api.transaction() as session:
            row = self._get(session, volume_id,
                            'volume:force_delete' if force else 'volume:delete')
            deletable = _DELETABLE
            if force:
                if row.instance_id is not None:
                    raise exception.InvalidVolume(
                        reason='Volume %s is attached to server %s; detach it first.'
                               % (volume_id, row.instance_id))
                deletable = (row.status,)
            snaps = snapshots.of_volume(session, volume_id)
            if snaps and not cascade:
                raise exception.InvalidVolume(
                    reason='Volume status must be available or error or '
                           'error_restoring or error_extending or error_managing and '
                           'must not be migrating, attached, belong to a group, have '
                           'snapshots, awaiting a transfer, or be disassociated from '
                           'snapshots after volume transfer.')
            snap_flows = [snap.id for snap in snaps
                          if snapshots.mark_deleting(session, snap)]
            if row.index is not None or row.status not in deletable:
                raise exception.InvalidVolume(
                    reason='Volume status must be available or error and must not be '
                           'attached; volume %s is %s%s.'
                           % (volume_id, row.status, ' (it is a server\'s boot volume, '
                              'deleted with the server)' if row.index is not None else ''))
            values = {'status': DELETING, 'updated_at': models.utcnow()}
            taken = session.execute(
                sa.update(models.Volume)
                .where(models.Volume.id == volume_id,
                       models.Volume.status.in_(deletable)).values(**values))
            if taken.rowcount != 1:
                raise exception.InvalidVolume(reason='volume %s changed while deleting it'
                                                     % volume_id)
            if row.host is None:
                forget(session, row)
                return False, snap_flows
            return True, snap_flows

    # -- attachments (Nova's os-volume_attachments) ---------------------------------

    def _server(self, session, instance_id, action, lock=False):
        """The server's row (``lock``: against another attach choosing a device at
        the same time)."""
        inst = session.get(models.Instance, instance_id, with_for_update=lock or None)
        if inst is None or inst.vm_state == states.DELETED:
            raise exception.NotFound(kind='Instance', name=instance_id)
        policy.authorize_owned(self.context, action, inst.project_id, 'Instance',
                               instance_id)
        if inst.vm_state not in _ATTACHABLE_VM_STATES or inst.task_state:
            raise exception.Conflict(
                reason="Cannot '%s' instance %s while it is in vm_state %s%s."
                       % (action.split(':')[1] + '_volume', instance_id, inst.vm_state,
                          ', task_state %s' % inst.task_state if inst.task_state
                          else ''))
        return inst

    def _record_action(self, session, server_id, volume_id, action, from_status,
                       to_status, **values):
        flow_uuid = str(uuid.uuid4())
        action_id = actions.record(session, self.context, server_id, action, flow_uuid)
        taken = session.execute(
            sa.update(models.Volume)
            .where(models.Volume.id == volume_id, models.Volume.status == from_status)
            .values(status=to_status, action_id=action_id,
                    updated_at=models.utcnow(), **values))
        if taken.rowcount != 1:
            raise exception.InvalidVolume(reason='volume %s changed meanwhile; try again'
                                                 % volume_id)
        return action_id

    def request_attach(self, instance_id, volume_id, tag=None, device=None):
        """Check and record an attachment (volume attaching, an attach action) with
        its device ``tag`` and its device name, reserved now (``device`` if the
        server does not hold it; provisioner.volume.devices): (the action's id,
        the device). The action's flow is built from it by whoever runs it."""
        with db_api.transaction() as session:
            inst = self._server(session, instance_id, 'volume:attach', lock=True)
            row = self._get(session, volume_id, 'volume:attach')
            if row.status != AVAILABLE:
                raise exception.InvalidVolume(
                    reason="volume %s status must be 'available', not '%s'"
                           % (volume_id, row.status))
            if row.host is not None and row.host != inst.host \
                    and not volumes.in_shared_storage():
                raise exception.Conflict(
                    reason='Volume %s is stored on host %s and server %s runs on host '
                           '%s; hosts share no storage, so it can only be attached to '
                           'servers on %s.' % (volume_id, row.host, instance_id,
                                               inst.host, row.host))
            device = devices.reserve(session, inst, device)
            return self._record_action(session, instance_id, volume_id, ATTACH,
                                       AVAILABLE, ATTACHING, instance_id=instance_id,
                                       attachment_tag=tag, device=device), device

    def request_detach(self, instance_id, volume_id):
        """Check and record a detachment; the action's id."""
        with db_api.transaction() as session:
            inst = self._server(session, instance_id, 'volume:detach')
            row = session.get(models.Volume, volume_id)
            if row is None or row.instance_id != instance_id:
                raise exception.NotFound(kind='Volume attachment',
                                         name='%s of server %s' % (volume_id,
                                                                   instance_id))
            self._get(session, volume_id, 'volume:detach')
            if row.index is not None:
                raise exception.InvalidVolume(
                    reason='volume %s was made with the server and is deleted with it; '
                           'it cannot be detached' % volume_id)
            if (inst.request_spec or {}).get('boot_volume', {}).get('id') == volume_id:
                raise exception.RootVolumeDetach()
            if row.status != IN_USE:
                raise exception.InvalidVolume(
                    reason="volume %s status must be 'in-use' to detach, not '%s'"
                           % (volume_id, row.status))
            return self._record_action(session, instance_id, volume_id, DETACH,
                                       IN_USE, DETACHING)


def forget(session, row):
    """Drop a volume row and give its gigabytes back, in the caller's transaction."""
    counters.uncount(session, row.project_id, {'volumes_gib': row.size_gib})
    session.delete(row)


def forget_volume(volume_id):
    """The delete flow's end: the row goes, its gigabytes go back; gone is fine."""
    with db_api.transaction() as session:
        row = session.get(models.Volume, volume_id)
        if row is not None:
            forget(session, row)
