"""POST/GET/HEAD/DELETE /v3/auth/tokens and the catalog: Keystone's token API on
Fernet tokens.

A request without a scope gets an unscoped token, as Keystone gives one to a user
without a default project: it names the user, has no project, roles or catalog,
and is good only for getting a project-scoped token (the token method), which
every other request needs. There are no domain or system scopes. The token method
re-scopes or renews a valid token; the new token expires when the old one does. The
application_credential method gives a token of the credential's project and roles.
"""

import datetime

from provisioner.api import common
from provisioner.api.identity import schemas
from provisioner.api.identity import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner import exception
from provisioner.identity import admin
from provisioner.identity import app_credentials
from provisioner.identity import domains
from provisioner.identity import endpoints
from provisioner.identity import fernet
from provisioner.identity import service as identity
from provisioner import policy

UNSUPPORTED_SCOPE = ('provisioner scopes tokens to a project, to the system or to '
                     'nothing (no domain scope): give a project in the scope '
                     '(OS_PROJECT_NAME and OS_PROJECT_DOMAIN_NAME, or OS_PROJECT_ID).')


def _system_scope(auth):
    """Whether the request asks for Keystone's system scope ({"system": {"all":
    true}})."""
    scope = auth.get('scope')
    return isinstance(scope, dict) and (scope.get('system') or {}).get('all') is True


def _project_scope(auth):
    """(project_id, project_name, project's domain) of the scope; None when the
    request names none."""
    scope = auth.get('scope')
    if scope is None or _system_scope(auth):
        return None
    if not isinstance(scope, dict) or 'project' not in scope:
        raise exception.NotAuthenticated(reason=UNSUPPORTED_SCOPE)
    project = scope['project']
    if not (project.get('id') or project.get('name')):
        raise wsgi.HTTPError(400, 'The project scope needs an id or a name.')
    return project.get('id'), project.get('name'), project.get('domain')


def _issue(auth):
    identity_part = auth['identity']
    methods = identity_part['methods']
    scope = _project_scope(auth)
    if 'password' in methods:
        user = (identity_part.get('password') or {}).get('user')
        if not user or not (user.get('id') or user.get('name')):
            raise wsgi.HTTPError(400, 'The password method needs a user with an id or '
                                      'a name, and a password.')
        project_id, project_name, domain = scope or (None, None, None)
        token = identity.authenticate(user.get('name'), user['password'], project_name,
                                      user_id=user.get('id'), project_id=project_id,
                                      user_domain=user.get('domain'),
                                      project_domain=domain, system=_system_scope(auth))
        return token, ['password']
    if 'token' in methods:
        given = (identity_part.get('token') or {}).get('id')
        if not given:
            raise wsgi.HTTPError(400, 'The token method needs the token\'s id.')
        try:
            identity.inspect(given)
        except exception.NotAuthenticated:  # Keystone's: the token is not found
            raise wsgi.HTTPError(404, 'Could not find token: it is malformed, expired '
                                      'or revoked.') from None
        if scope is None:  # renew: the same project, or unscoped again
            scope = (identity.inspect(given).project_id, None, None)
        first = ('application_credential' if fernet.decode_all(given)[4]
                 else 'password')
        return identity.rescope(given, project_id=scope[0], project_name=scope[1],
                                project_domain=scope[2]), [first, 'token']
    if 'application_credential' in methods:
        return _from_credential(identity_part.get('application_credential') or {},
                                scope), ['application_credential']
    raise exception.NotAuthenticated(
        reason='unsupported authentication method %s; provisioner accepts password, '
               'token and application_credential' % ', '.join(methods))


def _from_credential(given, scope):
    """A token for an application credential, by id, or by name and its user; it is
    scoped to the credential's project: a request may not name another scope."""
    if scope is not None:
        raise wsgi.HTTPError(400, 'Invalid request: a token of an application '
                                  'credential is scoped to its project; give no scope.')
    user = given.get('user') or {}
    if not (given.get('id') or (given.get('name') and (user.get('id')
                                                       or user.get('name')))):
        raise wsgi.HTTPError(400, 'The application_credential method needs the '
                                  'credential\'s id, or its name and its user, and its '
                                  'secret.')
    return app_credentials.authenticate(given['secret'], given.get('id'),
                                        given.get('name'), user.get('id'),
                                        user.get('name'))


def _moment(epoch):
    return datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc)


def token_body(req, token, methods, with_catalog=True):
    """Keystone's {"token": {...}} for a valid token (an unscoped one has no project,
    roles or catalog)."""
    context = identity.inspect(token)
    details = identity.token_details(context)
    _user_id, _project_id, issued_at, expires_at = fernet.decode(token)
    body = {
        'methods': methods,
        'user': {'id': context.user_id, 'name': context.user_name,
                 'domain': details['user_domain'], 'password_expires_at': None},
        'expires_at': common.isotime_us(_moment(expires_at)),
        'issued_at': common.isotime_us(_moment(issued_at)),
        'audit_ids': [fernet.audit_id(token)],
    }
    if context.system_scope:
        body.update({'system': {'all': True}, 'roles': details['roles']})
        if with_catalog:
            body['catalog'] = views.catalog(req, None, endpoints.catalog_entries())
        return {'token': body}
    if context.project_id is None:
        return {'token': body}
    body.update({
        'project': {'id': context.project_id, 'name': context.project_name,
                    'domain': details['project_domain']},
        'roles': details['roles'],
        'is_domain': False,
    })
    if context.application_credential is not None:
        body['application_credential'] = dict(context.application_credential)
    if with_catalog:
        body['catalog'] = views.catalog(req, context.project_id,
                                        endpoints.catalog_entries())
    return {'token': body}


@wsgi.route('POST', '/v3/auth/tokens', public=True)
@validation.schema(schemas.AUTH_REQUEST)
def issue(req, body):
    token, methods = _issue(body['auth'])
    return wsgi.json_response(token_body(req, token, methods, 'nocatalog' not in req.GET),
                              201, {'X-Subject-Token': token})


def _subject(req, action):
    """The X-Subject-Token, once the caller may act on it (an admin on anyone's, a
    user on their own); 404 when it is not valid, as Keystone answers."""
    subject = req.headers.get('X-Subject-Token')
    if not subject:
        raise wsgi.HTTPError(400, 'Give the subject token in X-Subject-Token.')
    try:
        user_id = fernet.decode(subject)[0]
        policy.authorize(req.context, action, {'user_id': user_id})
        identity.inspect(subject)
    except exception.NotAuthenticated:
        raise wsgi.HTTPError(404, 'The subject token is not valid: it is malformed, '
                                  'expired or revoked.') from None
    return subject


@wsgi.route('GET', '/v3/auth/tokens')
def validate(req):
    """The subject token's body (an admin's, or the caller's own); 404 if invalid."""
    subject = _subject(req, 'identity:token_validate')
    method = ('application_credential' if fernet.decode_all(subject)[4]
              else 'password')
    body = token_body(req, subject, [method], 'nocatalog' not in req.GET)
    return wsgi.json_response(body, 200, {'X-Subject-Token': subject})


@wsgi.route('DELETE', '/v3/auth/tokens')
def revoke(req):
    """204: the subject token no longer validates anywhere; 404 if it already did not."""
    identity.revoke(_subject(req, 'identity:token_revoke'))
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v3/auth/catalog')
def auth_catalog(req):
    return wsgi.json_response({'catalog': views.catalog(req, req.context.project_id,
                                                        endpoints.catalog_entries()),
                               'links': {'self': views.url(req, 'auth', 'catalog'),
                                         'previous': None, 'next': None}})


@wsgi.route('GET', '/v3/auth/projects')
def auth_projects(req):
    """The projects the caller may scope a token to."""
    projects = admin.user_projects(req.context, req.context.user_id)
    return views.collection(req, 'projects', [views.project_view(req, p) for p in projects],
                           'auth', 'projects')


@wsgi.route('GET', '/v3/auth/domains')
def auth_domains(req):
    """The domains the caller holds a role on (directly or by a group)."""
    found = domains.user_domains(req.context.user_id)
    return views.collection(req, 'domains', [views.domain_view(req, d) for d in found],
                            'auth', 'domains')


@wsgi.route('GET', '/v3/auth/system')
def auth_system(req):
    """[{"all": true}] when the caller holds a role on the system."""
    found = [{'all': True}] if domains.has_system_role(req.context.user_id) else []
    return wsgi.json_response({'system': found, 'links': {
        'self': views.url(req, 'auth', 'system'), 'previous': None, 'next': None}})
