"""Volume snapshots (Cinder v3 at 3.0): create, list, detail, show, update, delete;
their metadata is served by volume_metadata.

A snapshot of an attached (in-use) volume needs ``force`` (Cinder's rule); its
bytes are copied on the volume's host by the snapshot flow (creating ->
available), run as every flow is (provisioner.engine.volume_flows). Lists filter
on ``name``, ``status``, ``volume_id`` and ``metadata`` and page as volumes do.
"""

from provisioner.api import common
from provisioner.api import validation
from provisioner.api.volume import filters
from provisioner.api.volume import views
from provisioner.api.volume import volumes
from provisioner.api.volume.volumes import check_url_project
from provisioner.api import wsgi
from provisioner import exception
from provisioner import policy
from provisioner.volume import snapshots

_SNAPSHOTS = '/v3/{project_id}/snapshots'

# Cinder's: volume_id required but may be null (then 404, as a volume not found).
CREATE = validation.wrapped('snapshot', {
    'type': 'object', 'required': ['volume_id'], 'additionalProperties': False,
    'properties': {'volume_id': {'type': ['string', 'null']}, 'name': {},
                   'description': {}, 'display_name': {}, 'display_description': {},
                   'metadata': {}, 'force': {}},
    'errorMessage': {'additionalProperties': 'A snapshot takes volume_id, name, '
                                             'description, metadata and force, not '
                                             '{names}.'}})
UPDATE = validation.wrapped('snapshot', {
    'type': 'object', 'additionalProperties': False,
    'properties': {'name': {}, 'description': {}, 'display_name': {},
                   'display_description': {}, 'metadata': {}},
    'errorMessage': {'additionalProperties': "Only a snapshot's name, description "
                                             "and metadata can be set, not {names}."}})


def _list(req, project_id):
    found = snapshots.describe(project_id=volumes.listed_project(req, project_id))
    if req.GET.get('volume_id') is not None:
        found = [s for s in found if s['volume_id'] == req.GET['volume_id']]
    return filters.sorted_as_asked(req, filters.matching(req, found))


@wsgi.route('GET', _SNAPSHOTS)
def list_snapshots(req, project_id):
    return common.paged_response(req, 'snapshots', _list(req, project_id),
                                 views.snapshot, after_full_page=True)


@wsgi.route('GET', _SNAPSHOTS + '/detail')
def list_snapshots_detail(req, project_id):
    return common.paged_response(req, 'snapshots', _list(req, project_id),
                                 views.snapshot_detail, after_full_page=True)


def _found(snapshot_id):
    found = snapshots.describe(snapshot_id=snapshot_id)
    if not found:
        raise exception.NotFound(kind='Snapshot', name=snapshot_id)
    return found[0]


@wsgi.route('GET', _SNAPSHOTS + '/{snapshot_id}')
def show_snapshot(req, project_id, snapshot_id):
    check_url_project(req, project_id)
    snap = _found(snapshot_id)
    policy.authorize_owned(req.context, 'instance:show', snap['project_id'],
                           'Snapshot', snapshot_id)
    return wsgi.json_response({'snapshot': views.snapshot_detail(req, snap)})


def _text(body, key):
    return body.get(key, body.get('display_' + key))


@wsgi.route('POST', _SNAPSHOTS)
@validation.schema(CREATE)
def create_snapshot(req, project_id, body):
    """202 with the snapshot, creating while its bytes are copied."""
    check_url_project(req, project_id)
    body = body['snapshot']
    if body['volume_id'] is None:
        raise exception.NotFound(kind='Volume', name=None)
    snapshot_id, copy = snapshots.SnapshotAPI(req.context).create(
        body['volume_id'], name=_text(body, 'name'),
        description=_text(body, 'description'), metadata=body.get('metadata'),
        force=body.get('force', False))
    if copy:
        req.deployment.dispatcher.volume_flow('create-snapshot', snapshot_id)
    return wsgi.json_response({'snapshot': views.snapshot(req, _found(snapshot_id))},
                              202)


@wsgi.route('PUT', _SNAPSHOTS + '/{snapshot_id}')
@validation.schema(UPDATE)
def update_snapshot(req, project_id, snapshot_id, body):
    check_url_project(req, project_id)
    body = body['snapshot']
    fields = {key: _text(body, key) for key in ('name', 'description')
              if key in body or 'display_' + key in body}
    if 'metadata' in body:
        fields['metadata'] = body['metadata']
    snapshots.SnapshotAPI(req.context).update(snapshot_id, **fields)
    return wsgi.json_response({'snapshot': views.snapshot(req, _found(snapshot_id))})


@wsgi.route('DELETE', _SNAPSHOTS + '/{snapshot_id}')
def delete_snapshot(req, project_id, snapshot_id):
    check_url_project(req, project_id)
    if snapshots.SnapshotAPI(req.context).request_delete(snapshot_id):
        req.deployment.dispatcher.volume_flow('delete-snapshot', snapshot_id)
    return wsgi.empty_response(202)
