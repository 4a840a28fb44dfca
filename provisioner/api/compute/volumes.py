"""Nova's volume proxy (os-volumes, os-snapshots; 2.1 - 2.35): the volume service's
volumes and snapshots in Nova's shapes, made, listed, shown and deleted as the
volume API does (its flows, its rules). From 2.36 every path is 404.
"""

from provisioner.api.compute import queries
from provisioner.api import validation
from provisioner.api.volume import views as cinder_views
from provisioner.api import wsgi
from provisioner import exception
from provisioner import policy
from provisioner.volume import api as volume_api
from provisioner.volume import snapshots
from provisioner.volume import volumes

_TEXT = {'type': ['string', 'null'], 'maxLength': 255}
CREATE = {'type': 'object', 'required': ['volume'], 'additionalProperties': False,
          'properties': {'volume': {
              'type': 'object', 'required': ['size'], 'additionalProperties': False,
              'properties': {
                  'size': {'type': ['integer', 'string'], 'pattern': '^[0-9]+$',
                           'minimum': 1},
                  'display_name': _TEXT, 'display_description': _TEXT,
                  'volume_type': _TEXT, 'availability_zone': _TEXT,
                  'snapshot_id': _TEXT,
                  'metadata': {'type': 'object', 'additionalProperties': {
                      'type': 'string', 'maxLength': 255}}}}}}
SNAPSHOT_CREATE = {
    'type': 'object', 'required': ['snapshot'], 'additionalProperties': False,
    'properties': {'snapshot': {
        'type': 'object', 'required': ['volume_id'], 'additionalProperties': False,
        'properties': {'volume_id': {'type': 'string'},
                       'force': {'type': ['boolean', 'string']},
                       'display_name': _TEXT, 'display_description': _TEXT}}}}


def _time(moment):
    return None if moment is None else moment.isoformat()


def _volume_view(req, volume):
    cinder = cinder_views.detail(req, volume, extended=False)
    attachments = [{'id': a['attachment_id'], 'volumeId': volume['id'],
                    'serverId': a['server_id'], 'device': a['device']}
                   for a in cinder['attachments']] or [{}]
    return {'id': volume['id'], 'status': volume['status'], 'size': volume['size_gib'],
            'availabilityZone': cinder['availability_zone'],
            'createdAt': _time(volume['created_at']), 'attachments': attachments,
            'displayName': volume['name'], 'displayDescription': volume['description'],
            'volumeType': None, 'snapshotId': volume['snapshot_id'],
            'metadata': dict(volume['metadata'])}


def _found_volume(req, volume_id):
    queries.removed_at(req, (2, 36))
    found = volumes.describe(volume_id=volume_id)
    if not found:
        raise wsgi.HTTPError(404, 'Volume %s could not be found.' % volume_id)
    policy.authorize_owned(req.context, 'instance:show', found[0]['project_id'],
                           'Volume', volume_id)
    return found[0]


def _no_id(req):
    """Nova routes no ``/os-volumes/`` (an id left empty): 404, not the list."""
    if req.path_info.endswith('/'):
        queries.not_routed()


def _volumes(req):
    queries.removed_at(req, (2, 36))
    _no_id(req)
    policy.authorize(req.context, 'instance:list')
    found = volumes.describe(project_id=req.context.project_id)
    offset = req.int_param('offset', minimum=0) or 0
    limit = req.int_param('limit', minimum=0)
    page = found[offset:None if limit is None else offset + limit]
    return wsgi.json_response({'volumes': [_volume_view(req, v) for v in page]})


@wsgi.route('GET', '/v2.1/os-volumes')
def index(req):
    return _volumes(req)


@wsgi.route('GET', '/v2.1/os-volumes/detail')
def detail(req):
    return _volumes(req)


@wsgi.route('GET', '/v2.1/os-volumes/{volume_id}')
def show(req, volume_id):
    return wsgi.json_response({'volume': _volume_view(req, _found_volume(req,
                                                                         volume_id))})


@wsgi.route('POST', '/v2.1/os-volumes')
def create(req):
    queries.removed_at(req, (2, 36))
    body = validation.validate(req.json_body(), CREATE)['volume']
    volume_id, copy = volume_api.VolumeAPI(req.context).create(
        int(body['size']), name=body.get('display_name'),
        description=body.get('display_description'),
        availability_zone=body.get('availability_zone'), metadata=body.get('metadata'),
        volume_type=body.get('volume_type'), snapshot_id=body.get('snapshot_id'))
    if copy:
        req.deployment.dispatcher.volume_flow('copy-volume', volume_id)
    return wsgi.json_response({'volume': _volume_view(req, _found_volume(req,
                                                                         volume_id))})


@wsgi.route('DELETE', '/v2.1/os-volumes')
def delete_without_id(req):
    queries.not_routed()


@wsgi.route('DELETE', '/v2.1/os-volumes/{volume_id}')
def delete(req, volume_id):
    _found_volume(req, volume_id)
    flow, _snapshot_flows = volume_api.VolumeAPI(req.context).request_delete(volume_id)
    if flow:
        req.deployment.dispatcher.volume_delete(volume_id)
    return wsgi.empty_response(202)


# -- snapshots ----------------------------------------------------------------------

def _snapshot_view(snap):
    return {'id': snap['id'], 'volumeId': snap['volume_id'], 'status': snap['status'],
            'size': snap['size_gib'], 'createdAt': _time(snap['created_at']),
            'displayName': snap['name'], 'displayDescription': snap['description']}


def _found_snapshot(req, snapshot_id):
    queries.removed_at(req, (2, 36))
    found = snapshots.describe(snapshot_id=snapshot_id)
    if not found:
        raise exception.NotFound(kind='Snapshot', name=snapshot_id)
    policy.authorize_owned(req.context, 'instance:show', found[0]['project_id'],
                           'Snapshot', snapshot_id)
    return found[0]


def _snapshots(req):
    queries.removed_at(req, (2, 36))
    policy.authorize(req.context, 'instance:list')
    return wsgi.json_response({'snapshots': [
        _snapshot_view(s) for s in snapshots.describe(project_id=req.context.project_id)]})


@wsgi.route('GET', '/v2.1/os-snapshots')
def snapshot_index(req):
    return _snapshots(req)


@wsgi.route('GET', '/v2.1/os-snapshots/detail')
def snapshot_detail(req):
    return _snapshots(req)


@wsgi.route('GET', '/v2.1/os-snapshots/{snapshot_id}')
def show_snapshot(req, snapshot_id):
    return wsgi.json_response({'snapshot': _snapshot_view(
        _found_snapshot(req, snapshot_id))})


@wsgi.route('POST', '/v2.1/os-snapshots')
def create_snapshot(req):
    queries.removed_at(req, (2, 36))
    body = validation.validate(req.json_body(), SNAPSHOT_CREATE)['snapshot']
    snapshot_id, copy = snapshots.SnapshotAPI(req.context).create(
        body['volume_id'], name=body.get('display_name'),
        description=body.get('display_description'), force=body.get('force', False))
    if copy:
        req.deployment.dispatcher.volume_flow('create-snapshot', snapshot_id)
    return wsgi.json_response({'snapshot': _snapshot_view(
        _found_snapshot(req, snapshot_id))})


@wsgi.route('DELETE', '/v2.1/os-snapshots/{snapshot_id}')
def delete_snapshot(req, snapshot_id):
    _found_snapshot(req, snapshot_id)
    if snapshots.SnapshotAPI(req.context).request_delete(snapshot_id):
        req.deployment.dispatcher.volume_flow('delete-snapshot', snapshot_id)
    return wsgi.empty_response(202)
