"""Key pairs (Nova's os-keypairs): the caller's own, by name.

Microversions: 2.2 adds ``type`` (ssh or x509) to requests and answers, creates
with 201 instead of 200 and deletes with 204 instead of 202. Nova's key pair ``id``
is an integer; provisioner's is a uuid (the clients address key pairs by name).
"""

from provisioner.api.compute.schemas import keypairs as schemas
from provisioner.api.compute.views import keypairs as views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.compute import keypairs


@wsgi.route('POST', '/v2.1/os-keypairs')
@validation.schema(schemas.CREATE, '2.1', '2.1')
@validation.schema(schemas.CREATE_V22, '2.2')
def create(req, body):
    params = body['keypair']
    key_type = params.get('type', keypairs.SSH)
    if 'public_key' in params:
        keypair = keypairs.import_public_key(req.context, params['name'],
                                             params['public_key'], key_type)
        view = views.created(req, keypair)
    else:
        keypair, private_key = keypairs.create(req.context, params['name'], key_type)
        view = views.created(req, keypair, private_key)
    return wsgi.json_response({'keypair': view}, 201 if views.typed(req) else 200)


@wsgi.route('GET', '/v2.1/os-keypairs')
def index(req):
    return wsgi.json_response({'keypairs': [
        views.listed(req, k) for k in keypairs.list_all(req.context)]})


@wsgi.route('GET', '/v2.1/os-keypairs/{name}')
def show(req, name):
    return wsgi.json_response({'keypair': views.show(req, keypairs.show(req.context,
                                                                        name))})


@wsgi.route('DELETE', '/v2.1/os-keypairs/{name}')
def delete(req, name):
    keypairs.delete(req.context, name)
    return wsgi.empty_response(204 if views.typed(req) else 202)
