"""Keystone's /v3/credentials (a user's, or any for an admin) and /v3/policies
(stored blobs, served and not enforced)."""

from provisioner.api.identity import schemas
from provisioner.api.identity import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.identity import credentials


def _credential(req, credential, status=200):
    return wsgi.json_response({'credential': views.credential_view(req, credential)},
                              status)


@wsgi.route('GET', '/v3/credentials')
def list_credentials(req):
    found = credentials.list_credentials(req.context, req.GET.get('user_id'),
                                         req.GET.get('type'))
    return views.collection(req, 'credentials',
                            [views.credential_view(req, c) for c in found],
                            'credentials')


@wsgi.route('POST', '/v3/credentials')
@validation.schema(schemas.CREDENTIAL_CREATE)
def create_credential(req, body):
    values = {k: v for k, v in body['credential'].items() if v is not None}
    return _credential(req, credentials.create_credential(req.context, values), 201)


@wsgi.route('GET', '/v3/credentials/{credential_id}')
def show_credential(req, credential_id):
    return _credential(req, credentials.show_credential(req.context, credential_id))


@wsgi.route('PATCH', '/v3/credentials/{credential_id}')
@validation.schema(schemas.CREDENTIAL_UPDATE)
def update_credential(req, credential_id, body):
    return _credential(req, credentials.update_credential(req.context, credential_id,
                                                          body['credential']))


@wsgi.route('DELETE', '/v3/credentials/{credential_id}')
def delete_credential(req, credential_id):
    credentials.delete_credential(req.context, credential_id)
    return wsgi.empty_response(204)


# -- policies ------------------------------------------------------------------------

def _policy(req, stored, status=200):
    return wsgi.json_response({'policy': views.policy_view(req, stored)}, status)


@wsgi.route('GET', '/v3/policies')
def list_policies(req):
    found = credentials.list_policies(req.context, {'type': req.GET.get('type')})
    return views.collection(req, 'policies', [views.policy_view(req, p) for p in found],
                            'policies')


@wsgi.route('POST', '/v3/policies')
@validation.schema(schemas.POLICY_CREATE)
def create_policy(req, body):
    body = body['policy']
    return _policy(req, credentials.create_policy(req.context, body['type'],
                                                  body['blob']), 201)


@wsgi.route('GET', '/v3/policies/{policy_id}')
def show_policy(req, policy_id):
    return _policy(req, credentials.show_policy(req.context, policy_id))


@wsgi.route('PATCH', '/v3/policies/{policy_id}')
@validation.schema(schemas.POLICY_UPDATE)
def update_policy(req, policy_id, body):
    return _policy(req, credentials.update_policy(req.context, policy_id,
                                                  body['policy']))


@wsgi.route('DELETE', '/v3/policies/{policy_id}')
def delete_policy(req, policy_id):
    credentials.delete_policy(req.context, policy_id)
    return wsgi.empty_response(204)
