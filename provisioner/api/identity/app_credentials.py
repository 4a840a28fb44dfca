"""Keystone's application credentials of a user: create (the secret shown once),
list (by name too), show, delete. A token is issued for one by the
``application_credential`` method of POST /v3/auth/tokens (tokens.py)."""

import datetime

from provisioner.api.identity import schemas
from provisioner.api.identity import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.identity import app_credentials

_PATH = '/v3/users/{user_id}/application_credentials'


def _expiry(value):
    """A naive UTC datetime of an ISO 8601 time (Keystone takes either form)."""
    if value is None:
        return None
    try:
        moment = datetime.datetime.fromisoformat(value.replace('Z', '+00:00'))
    except ValueError:
        raise wsgi.HTTPError(400, 'Invalid request: expires_at %r is not an ISO 8601 '
                                  'time.' % value) from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return moment


@wsgi.route('POST', _PATH)
@validation.schema(schemas.APPLICATION_CREDENTIAL_CREATE)
def create(req, user_id, body):
    body = body['application_credential']
    made = app_credentials.create(
        req.context, user_id, body['name'], body.get('description'), body.get('secret'),
        _expiry(body.get('expires_at')), body.get('roles'),
        bool(body.get('unrestricted')))
    return wsgi.json_response({'application_credential':
                               views.application_credential_view(req, made)}, 201)


@wsgi.route('GET', _PATH)
def list_credentials(req, user_id):
    found = app_credentials.list_credentials(req.context, user_id, req.GET.get('name'))
    return views.collection(req, 'application_credentials',
                            [views.application_credential_view(req, c) for c in found],
                            'users', user_id, 'application_credentials')


@wsgi.route('GET', _PATH + '/{credential_id}')
def show(req, user_id, credential_id):
    return wsgi.json_response({'application_credential': views.application_credential_view(
        req, app_credentials.show(req.context, user_id, credential_id))})


@wsgi.route('DELETE', _PATH + '/{credential_id}')
def delete(req, user_id, credential_id):
    app_credentials.delete(req.context, user_id, credential_id)
    return wsgi.empty_response(204)
