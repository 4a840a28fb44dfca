"""A server's metadata (Nova's server_metadata controller): the key/value pairs a
user keeps on it, read and changed whole or one key at a time.

PUT replaces them all, POST merges into them; more than the metadata_items quota
(128) is Nova's 403. While the server is locked only an admin changes them.
"""

from provisioner.api.compute.schemas import server_metadata as schemas
from provisioner.api.compute.servers import compute
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner import exception

_PATH = '/v2.1/servers/{server_id}/metadata'


def _metadata(req, server_id):
    return compute(req).server_record(server_id)['metadata']


@wsgi.route('GET', _PATH)
def index(req, server_id):
    return wsgi.json_response({'metadata': _metadata(req, server_id)})


def _write(req, server_id, items, replace):
    api = compute(req)
    return wsgi.json_response({'metadata': api.update_metadata(
        api.server_record(server_id)['id'], items, replace=replace)})


@wsgi.route('PUT', _PATH)
@validation.schema(schemas.UPDATE_ALL)
def update_all(req, server_id, body):
    return _write(req, server_id, body['metadata'], replace=True)


@wsgi.route('POST', _PATH)
@validation.schema(schemas.UPDATE_ALL)
def update(req, server_id, body):
    return _write(req, server_id, body['metadata'], replace=False)


@wsgi.route('GET', _PATH + '/{key}')
def show(req, server_id, key):
    metadata = _metadata(req, server_id)
    if key not in metadata:
        raise exception.NotFound('Metadata item was not found', kind='Metadata item',
                                 name=key)
    return wsgi.json_response({'meta': {key: metadata[key]}})


@wsgi.route('PUT', _PATH + '/{key}')
@validation.schema(schemas.UPDATE_ONE)
def update_one(req, server_id, key, body):
    if key not in body['meta']:
        raise wsgi.HTTPError(400, 'Request body and URI mismatch')
    api = compute(req)
    api.update_metadata(api.server_record(server_id)['id'], body['meta'])
    return wsgi.json_response({'meta': body['meta']})


@wsgi.route('DELETE', _PATH + '/{key}')
def delete(req, server_id, key):
    api = compute(req)
    api.delete_metadata_item(api.server_record(server_id)['id'], key)
    return wsgi.empty_response(204)
