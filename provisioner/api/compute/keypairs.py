"""Key pairs (Nova's os-keypairs): the caller's own, by name.

Microversions: 2.2 adds ``type`` (ssh or x509) to requests and answers, creates
with 201 instead of 200 and deletes with 204 instead of 202; from 2.10 an admin
names another user's key pairs with ``user_id`` (in the create body, in the query
of the others); from 2.35 the list pages by name (``limit``, ``marker``). Nova's
key pair ``id`` is an integer; provisioner's is a uuid (the clients address key
pairs by name).
"""

from provisioner.api import common
from provisioner.api.compute import queries
from provisioner.api.compute.schemas import keypairs as schemas
from provisioner.api.compute.views import keypairs as views
from provisioner.api import urls
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.compute import keypairs


@wsgi.route('POST', '/v2.1/os-keypairs')
@validation.schema(schemas.CREATE, '2.1', '2.1')
@validation.schema(schemas.CREATE_V22, '2.2', '2.9')
@validation.schema(schemas.CREATE_V210, '2.10')
def create(req, body):
    params = body['keypair']
    key_type = params.get('type', keypairs.SSH)
    user_id = params.get('user_id')
    if 'public_key' in params:
        keypair = keypairs.import_public_key(req.context, params['name'],
                                             params['public_key'], key_type, user_id)
        view = views.created(req, keypair)
    else:
        keypair, private_key = keypairs.create(req.context, params['name'], key_type,
                                               user_id)
        view = views.created(req, keypair, private_key)
    return wsgi.json_response({'keypair': view}, 201 if views.typed(req) else 200)


def _user_id(req, *more):
    """The ``user_id`` of the query (2.10), which is checked from 2.75."""
    queries.check(req, ('user_id',) + more)
    return req.GET.get('user_id') if req.api_version >= (2, 10) else None


@wsgi.route('GET', '/v2.1/os-keypairs')
def index(req):
    found = keypairs.list_all(req.context, _user_id(req, 'limit', 'marker'))
    if req.api_version < (2, 35):
        return wsgi.json_response({'keypairs': [views.listed(req, k) for k in found]})
    shown, more = common.page(req, found, key='name')
    body = {'keypairs': [views.listed(req, k) for k in shown]}
    if more:
        body['keypairs_links'] = urls.next_link(req, req.path_info.strip('/').split('/'),
                                                shown[-1]['name'])
    return wsgi.json_response(body)


@wsgi.route('GET', '/v2.1/os-keypairs/{name}')
def show(req, name):
    return wsgi.json_response({'keypair': views.show(
        req, keypairs.show(req.context, name, _user_id(req)))})


@wsgi.route('DELETE', '/v2.1/os-keypairs/{name}')
def delete(req, name):
    keypairs.delete(req.context, name, _user_id(req))
    return wsgi.empty_response(204 if views.typed(req) else 202)
