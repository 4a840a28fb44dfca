"""A volume type's extra specs (/types/{id}/extra_specs) and encryption
(/types/{id}/encryption), as Cinder serves them to admins. Extra specs are
recorded, not acted on (provisioner.volume.types); a volume of an encrypted type
is refused."""

from provisioner.api import validation
from provisioner.api.volume.types import TYPES
from provisioner.api.volume.volumes import check_url_project
from provisioner.api import wsgi
from provisioner import exception
from provisioner.volume import types

_SPECS = TYPES + '/{type_id}/extra_specs'
_ENCRYPTION = TYPES + '/{type_id}/encryption'

SPECS = validation.wrapped('extra_specs', {'type': 'object'})
ENCRYPTION = validation.wrapped('encryption', {'type': 'object'})
ONE = {'type': 'object', 'minProperties': 1, 'maxProperties': 1,
       'errorMessage': {'minProperties': 'Request body empty.',
                        'maxProperties': 'Request body contains too many items.',
                        'type': 'Request body must be an object.'}}


def _api(req, project_id):
    check_url_project(req, project_id)
    return types.TypeAPI(req.context)


@wsgi.route('GET', _SPECS)
def list_specs(req, project_id, type_id):
    api = _api(req, project_id)
    api.encryption(type_id)  # the admin check and the 404, as for every change
    return wsgi.json_response({'extra_specs': api.show(type_id)['extra_specs']})


@wsgi.route('POST', _SPECS)
@validation.schema(SPECS)
def create_specs(req, project_id, type_id, body):
    return wsgi.json_response({'extra_specs': _api(req, project_id).set_specs(
        type_id, body['extra_specs'])})


@wsgi.route('GET', _SPECS + '/{key}')
def show_spec(req, project_id, type_id, key):
    api = _api(req, project_id)
    api.encryption(type_id)
    specs = api.show(type_id)['extra_specs']
    if key not in specs:
        raise exception.NotFound(kind='Volume Type extra spec', name=key)
    return wsgi.json_response({key: specs[key]})


@wsgi.route('PUT', _SPECS + '/{key}')
@validation.schema(ONE)
def update_spec(req, project_id, type_id, key, body):
    if key not in body:
        raise wsgi.HTTPError(400, 'Request body and URI mismatch')
    return wsgi.json_response(_api(req, project_id).set_specs(type_id, body))


@wsgi.route('DELETE', _SPECS + '/{key}')
def delete_spec(req, project_id, type_id, key):
    _api(req, project_id).delete_spec(type_id, key)
    return wsgi.empty_response(202)


@wsgi.route('GET', _ENCRYPTION)
def show_encryption(req, project_id, type_id):
    """The type's encryption spec, or {} (Cinder's answer for none)."""
    return wsgi.json_response(_api(req, project_id).encryption(type_id) or {})


@wsgi.route('GET', _ENCRYPTION + '/{key}')
def show_encryption_item(req, project_id, type_id, key):
    found = _api(req, project_id).encryption(type_id) or {}
    if key not in found:
        raise exception.NotFound(kind='Volume type encryption spec', name=key)
    return wsgi.json_response({key: found[key]})


@wsgi.route('POST', _ENCRYPTION)
@validation.schema(ENCRYPTION)
def create_encryption(req, project_id, type_id, body):
    return wsgi.json_response({'encryption': _api(req, project_id).set_encryption(
        type_id, body['encryption'], create=True)})


@wsgi.route('PUT', _ENCRYPTION + '/{encryption_id}')
@validation.schema(ENCRYPTION)
def update_encryption(req, project_id, type_id, encryption_id, body):
    _api(req, project_id).set_encryption(type_id, body['encryption'], create=False)
    return wsgi.json_response({'encryption': body['encryption']})


@wsgi.route('DELETE', _ENCRYPTION + '/{encryption_id}')
def delete_encryption(req, project_id, type_id, encryption_id):
    _api(req, project_id).delete_encryption(type_id)
    return wsgi.empty_response(202)
