"""The dashboard's session API: log in, see who is logged in, log out.

    POST   /dashboard/session  {"username", "password", "project"} -> 201 + cookie
    GET    /dashboard/session  -> 200 (the cookie's session), 401 without one
    DELETE /dashboard/session  -> 204, the cookie cleared (needs X-CSRF-Token)

The body of POST and GET is ``{"session": {"user", "project", "roles",
"expires_at", "csrf_token"}}``: who is logged in and the CSRF token the page
sends with every change. The token itself lives only in the HttpOnly cookie,
never in a body. Logging in takes JSON only (415 otherwise): a cross-site HTML
form cannot send JSON, so no other site can log a browser in as someone else.
"""

import datetime

from provisioner.api import common
from provisioner.api import session
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner import exception
from provisioner.identity import fernet
from provisioner.identity import service as identity

# Every refusal says the same: a message quoting the body could quote the password.
_GIVE = 'Give {{"username", "password", "project"}}, each a string.'
_LOGIN = {'type': 'object', 'required': ['username', 'password', 'project'],
          'properties': {'username': {'type': 'string', 'minLength': 1,
                                      'maxLength': 255, 'errorMessage': _GIVE},
                         'password': {'type': 'string', 'maxLength': 4096,
                                      'errorMessage': _GIVE},
                         'project': {'type': 'string', 'minLength': 1,
                                     'maxLength': 255, 'errorMessage': _GIVE}},
          'additionalProperties': False, 'errorMessage': _GIVE}


def _session_body(token):
    """Who the token is, when it ends, and its CSRF token (never the token)."""
    context = identity.validate(token)
    expires_at = fernet.decode(token)[3]
    return {'session': {
        'user': {'id': context.user_id, 'name': context.user_name},
        'project': {'id': context.project_id, 'name': context.project_name},
        'roles': list(context.roles),
        'is_admin': context.is_admin,
        'expires_at': common.isotime(datetime.datetime.fromtimestamp(
            expires_at, datetime.timezone.utc)),
        'csrf_token': session.csrf_token(token)}}, expires_at


# What a browser user is told when their credentials are refused: identity's own
# message names the CLI's OS_* variables, which a browser user has never set.
WRONG_CREDENTIALS = ('Login failed: wrong user name, password or project. Check them '
                     'and try again.')


def _login_fields(req):
    if req.content_type != 'application/json':
        raise wsgi.HTTPError(415, 'Log in with a JSON body (Content-Type: '
                                  'application/json), not %s.'
                             % (req.content_type or 'no content type'))
    return validation.validate(req.json_body(), _LOGIN)


@wsgi.route('POST', '/session', public=True)
def login(req):
    fields = _login_fields(req)
    try:
        token = identity.authenticate(fields['username'], fields['password'],
                                      fields['project'])
    except exception.NotAuthenticated:
        raise wsgi.HTTPError(401, WRONG_CREDENTIALS) from None
    body, expires_at = _session_body(token)
    response = wsgi.json_response(body, 201)
    session.set_cookie(req, response, token, expires_at - _now())
    return response


def _now():
    return datetime.datetime.now(datetime.timezone.utc).timestamp()


def _cookie_token(req):
    token = session.token_of(req)
    if token is None:
        raise exception.NotAuthenticated(reason='not logged in')
    return token


@wsgi.route('GET', '/session', public=True)
def current(req):
    return wsgi.json_response(_session_body(_cookie_token(req))[0])


@wsgi.route('DELETE', '/session', public=True)
def logout(req):
    token = _cookie_token(req)
    if not session.csrf_matches(token, req.headers.get(session.CSRF_HEADER)):
        raise wsgi.HTTPError(403, 'Logging out needs the session\'s %s header.'
                             % session.CSRF_HEADER)
    response = wsgi.empty_response(204)
    session.clear_cookie(req, response)
    return response
