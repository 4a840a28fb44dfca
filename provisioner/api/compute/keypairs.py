"""Key pairs (Nova's os-keypairs): the caller's own, by name.

Microversions: 2.2 adds ``type`` (ssh or x509) to requests and answers, creates
with 201 instead of 200 and deletes with 204 instead of 202. Nova's key pair ``id``
is an integer; provisioner's is a uuid (the clients address key pairs by name).
"""

from provisioner.api.compute.service import SERVICE
from provisioner.api import common
from provisioner.api import wsgi
from provisioner.compute import keypairs

_name = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^(?!\s)[\s\S]*(?<!\s)$'}

CREATE = {
    'type': 'object',
    'properties': {
        'keypair': {
            'type': 'object',
            'properties': {'name': _name, 'public_key': {'type': 'string'}},
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['keypair'],
    'additionalProperties': False,
}

CREATE_V22 = {
    'type': 'object',
    'properties': {
        'keypair': {
            'type': 'object',
            'properties': {'name': _name, 'type': {'type': 'string',
                                                   'enum': list(keypairs.TYPES)},
                           'public_key': {'type': 'string'}},
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['keypair'],
    'additionalProperties': False,
}

_INDEX_FIELDS = ('name', 'public_key', 'fingerprint')
_CREATE_FIELDS = _INDEX_FIELDS + ('user_id',)


def _typed(req):
    return req.api_version >= (2, 2)


def _view(keypair, fields, typed):
    view = {field: keypair[field] for field in fields}
    if typed:
        view['type'] = keypair['type']
    return view


def show_view(req, keypair):
    view = _view(keypair, _CREATE_FIELDS, _typed(req))
    # Nova serialises these times as its objects do: no zone, microseconds.
    view.update({'id': keypair['id'], 'deleted': False, 'deleted_at': None,
                 'updated_at': None,
                 'created_at': keypair['created_at'].strftime('%Y-%m-%dT%H:%M:%S.%f')})
    return view


@SERVICE.route('POST', '/v2.1/os-keypairs')
def create(req):
    typed = _typed(req)
    params = common.validate(req.json_body(), CREATE_V22 if typed else CREATE)['keypair']
    key_type = params.get('type', keypairs.SSH)
    if 'public_key' in params:
        keypair = keypairs.import_public_key(req.context, params['name'],
                                             params['public_key'], key_type)
        view = _view(keypair, _CREATE_FIELDS, typed)
    else:
        keypair, private_key = keypairs.create(req.context, params['name'], key_type)
        view = _view(keypair, _CREATE_FIELDS, typed)
        view['private_key'] = private_key
    return wsgi.json_response({'keypair': view}, 201 if typed else 200)


@SERVICE.route('GET', '/v2.1/os-keypairs')
def index(req):
    typed = _typed(req)
    return wsgi.json_response({'keypairs': [
        {'keypair': _view(k, _INDEX_FIELDS, typed)}
        for k in keypairs.list_all(req.context)]})


@SERVICE.route('GET', '/v2.1/os-keypairs/{name}')
def show(req, name):
    return wsgi.json_response({'keypair': show_view(req, keypairs.show(req.context,
                                                                       name))})


@SERVICE.route('DELETE', '/v2.1/os-keypairs/{name}')
def delete(req, name):
    keypairs.delete(req.context, name)
    return wsgi.empty_response(204 if _typed(req) else 202)
