"""A volume's or a snapshot's metadata (Cinder's /volumes/{id}/metadata and
/snapshots/{id}/metadata, one shape): all of it or one item.

POST adds or changes pairs, PUT replaces them all, each answering the metadata
after; PUT and GET of one key take and give ``{"meta": {key: value}}``; DELETE
of a key the volume has not is 404. All 200, as Cinder's.
"""

from provisioner.api import validation
from provisioner.api.volume import schemas
from provisioner.api.volume.volumes import check_url_project
from provisioner.api import wsgi
from provisioner import exception
from provisioner.volume import api as volume_api
from provisioner.volume import snapshots

_METADATA = '/v3/{project_id}/volumes/{volume_id}/metadata'
# A snapshot's: the same handlers, its id in the same place.
_SNAPSHOT_METADATA = '/v3/{project_id}/snapshots/{volume_id}/metadata'


def _api(req, project_id):
    check_url_project(req, project_id)
    if '/snapshots/' in req.path_info:
        return snapshots.SnapshotAPI(req.context)
    return volume_api.VolumeAPI(req.context)


def route(method, suffix=''):
    """Both routes of a handler: the volume's and the snapshot's."""
    def mark(handler):
        wsgi.route(method, _METADATA + suffix)(handler)
        return wsgi.route(method, _SNAPSHOT_METADATA + suffix)(handler)
    return mark


@route('GET')
def show_metadata(req, project_id, volume_id):
    return wsgi.json_response({'metadata': _api(req, project_id).metadata(volume_id)})


@route('POST')
@validation.schema(schemas.METADATA)
def create_metadata(req, project_id, volume_id, body):
    found = _api(req, project_id).set_metadata(volume_id, body['metadata'])
    return wsgi.json_response({'metadata': found})


@route('PUT')
@validation.schema(schemas.METADATA)
def replace_metadata(req, project_id, volume_id, body):
    found = _api(req, project_id).set_metadata(volume_id, body['metadata'],
                                               replace=True)
    return wsgi.json_response({'metadata': found})


@route('GET', '/{key}')
def show_metadata_item(req, project_id, volume_id, key):
    found = _api(req, project_id).metadata(volume_id)
    if key not in found:
        raise exception.NotFound(kind='Metadata item', name=key)
    return wsgi.json_response({'meta': {key: found[key]}})


@route('PUT', '/{key}')
@validation.schema(schemas.METADATA_ITEM)
def update_metadata_item(req, project_id, volume_id, key, body):
    if key not in body['meta']:
        raise wsgi.HTTPError(400, 'Request body and URI mismatch: the body sets %s, '
                                  'the URI names %s.' % (', '.join(body['meta']), key))
    found = _api(req, project_id).set_metadata(volume_id, body['meta'])
    return wsgi.json_response({'meta': {key: found[key]}})


@route('DELETE', '/{key}')
def delete_metadata_item(req, project_id, volume_id, key):
    _api(req, project_id).delete_metadata(volume_id, key)
    return wsgi.empty_response(200)
