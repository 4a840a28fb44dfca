"""The browser session: the token in an HttpOnly cookie, and its CSRF token.

A browser sends cookies with every request to the site, cross-site ones included
(SameSite=Strict stops most of them; it is not the only guard). So a request
authenticated by the cookie alone must prove it comes from provisioner's own
pages before it may change anything: every unsafe method carries
``X-CSRF-Token``, which a page learns from the session API (the response body,
never the cookie: the cookie is HttpOnly) and another site cannot read.

The CSRF token is derived from the session token (HMAC-SHA256 keyed by it), so it
is stateless: every provisioner-api process behind a load balancer agrees on it,
and it ends when the session does. API clients sending X-Auth-Token are not
browsers and are unaffected.
"""

import base64
import hashlib
import hmac

from provisioner.conf import CONF

COOKIE = 'provisioner_session'
CSRF_HEADER = 'X-CSRF-Token'
UNSAFE_METHODS = frozenset(('POST', 'PUT', 'PATCH', 'DELETE'))

_CSRF_PURPOSE = b'provisioner-csrf-v1'


def csrf_token(token):
    """The CSRF token of a session token (urlsafe base64, no padding)."""
    digest = hmac.new(token.encode(), _CSRF_PURPOSE, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip('=')


def csrf_matches(token, given):
    return bool(given) and hmac.compare_digest(csrf_token(token), given)


def _secure(req):
    public_url = CONF.api.public_url or ''
    return req.scheme == 'https' or public_url.lower().startswith('https:')


def set_cookie(req, response, token, max_age):
    """Put the session token in the response's Set-Cookie."""
    response.set_cookie(COOKIE, token, max_age=max(0, int(max_age)), path='/',
                        httponly=True, samesite='strict', secure=_secure(req))


def clear_cookie(req, response):
    response.set_cookie(COOKIE, '', max_age=0, path='/', httponly=True,
                        samesite='strict', secure=_secure(req))


def token_of(req):
    """The session token the request's cookie carries, or None."""
    return req.cookies.get(COOKIE) or None
