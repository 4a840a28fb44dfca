"""A server's rebuild (Nova's): a new root disk from an image, a new config drive.

The request changes the instance's row at once, as Nova's API does (the answer
and every read then show the new image, name, metadata ...), and keeps what it
replaced in the row's request spec (``previous``): a rebuild rolled back puts it
back, one that ends forgets it. Only an active, stopped or errored server with no
task under way is rebuilt (Nova's 409 otherwise), and a locked one by an admin
only. A stopped server ends stopped, as Nova's; any other ends active.
"""

import base64
import uuid


from provisioner.catalog import common
from provisioner.catalog import images
from provisioner.compute import actions
from provisioner.compute import instances
from provisioner.compute import locks
from provisioner.compute import server_metadata
from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception

REBUILDABLE = (states.ACTIVE, states.STOPPED, states.ERROR)
# The instance's columns a rebuild may change (user_data too, kept as base64), and
# those of later microversions (2.19 description, 2.63 trusted_certs, 2.90
# hostname) where the instance has them.
_LATER = ('description', 'trusted_certs', 'hostname')
_FIELDS = ('image_id', 'name', 'properties', 'access_ip_v4', 'access_ip_v6',
           'key_name', 'key_data') + tuple(
    field for field in _LATER if hasattr(models.Instance, field))
_PREVIOUS = 'rebuild_previous'
UNSET = object()


class ImageUnacceptable(exception.Invalid):
    msg_fmt = 'Image %(image)s is unacceptable: %(reason)s'


class ImageNotFound(exception.Invalid):
    msg_fmt = 'Cannot find image for rebuild'


def _image(session, context, image):
    """The image to rebuild from: Nova's 400s for a missing or unusable one."""
    try:
        row = common.find(session, models.Image, image, 'Image')
        images.check_bootable(context, row)
    except exception.NotFound:
        raise ImageNotFound() from None
    return row


def _check_volume_backed(row, image_id):
    # Before 2.93 Nova re-images no root volume: a different image is refused and
    # provisioner, which cannot rebuild the same one in place either, refuses both.
    if (row.request_spec or {}).get('boot_volume'):
        raise ImageUnacceptable(image=image_id, reason='Rebuilding volume-backed '
                                                       'servers is not supported')


def _previous(row):
    saved = {field: getattr(row, field) for field in _FIELDS}
    saved['user_data'] = (None if row.user_data is None
                          else base64.b64encode(row.user_data).decode('ascii'))
    saved['vm_state'] = row.vm_state
    return saved


def request(api, name_or_id, image, name=None, properties=None, access_ips=None,
            key_name=UNSET, user_data=UNSET, fields=None):
    """Record a rebuild; (instance id, action id). ``key_name`` and ``user_data``
    UNSET keep the server's, None drops them; ``access_ips`` {'v4', 'v6'}: the
    ones given replace the server's; ``fields``: description, trusted_certs,
    hostname to set."""
    if properties is not None:
        properties = server_metadata.updated({}, properties, replace=True)
    for field in fields or ():
        if field not in _FIELDS:
            raise exception.Invalid(reason='%s is not supported' % field)
    with db_api.transaction() as session:
        row = api._find(session, name_or_id, 'instance:rebuild')
        locks.check_unlocked(api.context, row)
        image_row = _image(session, api.context, image)
        _check_volume_backed(row, image_row.id)
        if row.host is None:  # a boot that failed before it had a host
            raise exception.Conflict(reason='Cannot rebuild instance %s: it was '
                                            'never built on a host.' % name_or_id)
        flavor_row = session.get(models.Flavor, row.flavor_id)
        api._validate_placement(session, flavor_row, image_row, None)
        key = api._key_pair(session, key_name) if key_name is not UNSET else UNSET
        instances.take_task(session, row, 'rebuild', REBUILDABLE, states.REBUILDING,
                            name_or_id)
        row.request_spec = dict(row.request_spec or {}, **{_PREVIOUS: _previous(row)})
        row.image_id = image_row.id
        if name is not None:
            row.name = name
        if properties is not None:
            row.properties = properties
        for version, address in (access_ips or {}).items():
            setattr(row, 'access_ip_' + version, address)
        if key is not UNSET:
            row.key_name, row.key_data = (key.name, key.public_key) if key else (None,
                                                                                 None)
        if user_data is not UNSET:
            row.user_data = user_data
        for field, value in (fields or {}).items():
            setattr(row, field, value)
        action_id = actions.record(session, api.context, row.id, actions.REBUILD,
                                   str(uuid.uuid4()))
        return row.id, action_id


def was_stopped(instance_id):
    """Whether the rebuild asked of the instance found it stopped (it ends so)."""
    with db_api.transaction() as session:
        spec = instances.get_row(session, instance_id).request_spec or {}
    return (spec.get(_PREVIOUS) or {}).get('vm_state') == states.STOPPED


def restore(instance_id):
    """A rolled back rebuild: the row as it was before it, no task."""
    with db_api.transaction() as session:
        row = instances.get_row(session, instance_id)
        spec = dict(row.request_spec or {})
        saved = spec.pop(_PREVIOUS, None)
        if saved is not None:
            for field in _FIELDS:
                setattr(row, field, saved[field])
            row.user_data = (None if saved['user_data'] is None
                             else base64.b64decode(saved['user_data']))
        row.request_spec = spec
        row.task_state = None


def conclude(instance_id, action_id, stopped):
    """A rebuild that ended: forget what it replaced, record the state and finish
    the action (one write: no crash leaves one without the other)."""
    with db_api.transaction() as session:
        spec = dict(instances.get_row(session, instance_id).request_spec or {})
    spec.pop(_PREVIOUS, None)
    vm_state, power_state = ((states.STOPPED, states.SHUTDOWN) if stopped
                             else (states.ACTIVE, states.RUNNING))
    instances.conclude_action(instance_id, action_id, vm_state=vm_state,
                              power_state=power_state, task_state=None, fault=None,
                              request_spec=spec)
