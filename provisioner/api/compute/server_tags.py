"""/servers/{id}/tags: a server's tags (Nova's server tags, from 2.26).

Nova's answers: GET lists them, PUT of the list replaces them all (200 with the
list), PUT of one adds it (201 with its Location, 204 if the server had it),
GET of one is 204 or 404, DELETE of one or all 204. A change waits until the
server is ACTIVE or SHUTOFF (409, as Nova's while it builds).
"""

import jsonschema

from provisioner.api.compute.schemas import parameter_types
from provisioner.api.compute.schemas import servers as schemas
from provisioner.api.compute.servers import compute
from provisioner.api import urls
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.compute import server_tags


def _server(req, server_id):
    if req.api_version < (2, 26):
        raise wsgi.HTTPError(404, 'The resource could not be found.')
    return compute(req).server_record(server_id)


@wsgi.route('GET', '/v2.1/servers/{server_id}/tags')
def index(req, server_id):
    return wsgi.json_response({'tags': _server(req, server_id)['tags']})


@wsgi.route('PUT', '/v2.1/servers/{server_id}/tags')
@validation.schema(schemas.TAGS, '2.26')
def update_all(req, server_id, body):
    instance_id = _server(req, server_id)['id']
    tags = compute(req).change_tags(instance_id, 'update tags', lambda session, i:
                                    server_tags.replace(session, i, body['tags']))
    return wsgi.json_response({'tags': tags})


@wsgi.route('DELETE', '/v2.1/servers/{server_id}/tags')
def delete_all(req, server_id):
    instance_id = _server(req, server_id)['id']
    compute(req).change_tags(instance_id, 'delete tags',
                             lambda session, i: server_tags.replace(session, i, ()))
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v2.1/servers/{server_id}/tags/{tag}')
def show(req, server_id, tag):
    server = _server(req, server_id)
    if tag not in server['tags']:
        raise wsgi.HTTPError(404, "Server %s has no tag '%s'" % (server['id'], tag))
    return wsgi.empty_response(204)


@wsgi.route('PUT', '/v2.1/servers/{server_id}/tags/{tag}')
def update(req, server_id, tag):
    instance_id = _server(req, server_id)['id']
    api = compute(req)
    api.change_tags(instance_id, 'update tag', lambda session, i: None)
    try:
        jsonschema.validate(tag, parameter_types.TAG)
    except jsonschema.ValidationError as exc:
        raise wsgi.HTTPError(400, "Tag '%s' is invalid. It must be a non empty string "
                                  "without characters '/' and ','. Validation error "
                                  "message: %s" % (tag, exc.message)) from None
    if not api.change_tags(instance_id, None, lambda session, i:
                           server_tags.add(session, i, tag)):
        return wsgi.empty_response(204)
    response = wsgi.empty_response(201)
    response.headers['Location'] = urls.service_url(req, 'v2.1', 'servers',
                                                    instance_id, 'tags', tag)
    return response


@wsgi.route('DELETE', '/v2.1/servers/{server_id}/tags/{tag}')
def delete(req, server_id, tag):
    instance_id = _server(req, server_id)['id']
    compute(req).change_tags(instance_id, 'delete tag', lambda session, i:
                             server_tags.remove(session, i, tag))
    return wsgi.empty_response(204)
