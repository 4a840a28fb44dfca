"""Volume types (Cinder's /types at 3.0): list, show (``default``: Cinder's 404
when no default type is configured, as here), create, update, delete (admins),
and the access list of a private type (``addProjectAccess``,
``removeProjectAccess``, os-volume-type-access). Extra specs and encryption:
type_specs. The service's rules: provisioner.volume.types.
"""

from provisioner.api import validation
from provisioner.api.volume import filters
from provisioner.api.volume.volumes import check_url_project
from provisioner.api import wsgi
from provisioner import exception
from provisioner.volume import types

TYPES = '/v3/{project_id}/types'
_PUBLIC = 'os-volume-type-access:is_public'
# What a user who is no admin sees of the extra specs (Cinder's user-visible ones).
_USER_VISIBLE = ('multiattach', 'RESKEY:availability_zones', 'replication_enabled')

CREATE = validation.wrapped('volume_type', {'type': 'object'})
UPDATE = validation.wrapped('volume_type', {
    'type': 'object', 'minProperties': 1,
    'errorMessage': {'minProperties': 'Specify volume type name, description, '
                                      'is_public or a combination thereof.'}})
ACTION = {'type': 'object', 'minProperties': 1, 'maxProperties': 1,
          'additionalProperties': {
              'type': 'object', 'required': ['project'],
              'properties': {'project': {'type': 'string', 'minLength': 1}},
              'errorMessage': 'give {{"project": <project id>}}'},
          'errorMessage': 'Give one of addProjectAccess and removeProjectAccess.'}


def view(req, found, access=True):
    """Cinder's volume type; ``access``: with os-volume-type-access:is_public (not
    in its update answer)."""
    specs = found['extra_specs']
    if not req.context.is_admin:
        specs = {key: value for key, value in specs.items() if key in _USER_VISIBLE}
    body = {'id': found['id'], 'name': found['name'],
            'description': found['description'], 'is_public': found['is_public'],
            'extra_specs': specs}
    if access:
        body[_PUBLIC] = found['is_public']
    return body


def _api(req, project_id):
    check_url_project(req, project_id)
    return types.TypeAPI(req.context)


@wsgi.route('GET', TYPES)
def list_types(req, project_id):
    public = req.GET.get('is_public')
    public = None if public is None or public.lower() == 'none' \
        else filters.boolean(public)
    return wsgi.json_response({'volume_types': [
        view(req, found) for found in _api(req, project_id).list(public)]})


@wsgi.route('GET', TYPES + '/{type_id}')
def show_type(req, project_id, type_id):
    api = _api(req, project_id)
    if type_id == 'default':
        raise exception.NotFound(kind='Default volume type', name='(none is set)')
    return wsgi.json_response({'volume_type': view(req, api.show(type_id))})


def _public(body, default=None):
    value = body.get(_PUBLIC, body.get('is_public', default))
    return value if value is None or isinstance(value, bool) else \
        filters.boolean(value)


@wsgi.route('POST', TYPES)
@validation.schema(CREATE)
def create_type(req, project_id, body):
    body = body['volume_type']
    found = _api(req, project_id).create(
        body.get('name'), description=body.get('description'),
        is_public=_public(body, True), extra_specs=body.get('extra_specs'))
    return wsgi.json_response({'volume_type': view(req, found)})


@wsgi.route('PUT', TYPES + '/{type_id}')
@validation.schema(UPDATE)
def update_type(req, project_id, type_id, body):
    body = body['volume_type']
    fields = {key: body[key] for key in ('name', 'description') if key in body}
    if _public(body) is not None:
        fields['is_public'] = _public(body)
    return wsgi.json_response({'volume_type': view(
        req, _api(req, project_id).update(type_id, **fields), access=False)})


@wsgi.route('DELETE', TYPES + '/{type_id}')
def delete_type(req, project_id, type_id):
    _api(req, project_id).delete(type_id)
    return wsgi.empty_response(202)


@wsgi.route('POST', TYPES + '/{type_id}/action')
@validation.schema(ACTION)
def type_action(req, project_id, type_id, body):
    (action, args), = body.items()
    if action not in ('addProjectAccess', 'removeProjectAccess'):
        raise wsgi.HTTPError(400, 'There is no such action: %s' % action)
    _api(req, project_id).set_access(type_id, args['project'],
                                     add=action == 'addProjectAccess')
    return wsgi.empty_response(202)


@wsgi.route('GET', TYPES + '/{type_id}/os-volume-type-access')
def list_type_access(req, project_id, type_id):
    found = _api(req, project_id).access(type_id)
    return wsgi.json_response({'volume_type_access': [
        {'volume_type_id': type_id, 'project_id': project} for project in found]})
