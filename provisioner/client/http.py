"""A small HTTP client for provisioner-api: authenticate, find endpoints, map errors.

Plain http.client, not requests or keystoneauth: the CLI imports this only when
OS_AUTH_URL is set, and every command pays for what it imports.

* Authentication is Keystone's: ``POST {auth}/v3/auth/tokens`` with a password
  (user and project in the Default domain, project scope), or an existing token
  checked with ``GET /v3/auth/tokens``. The token's catalog names each service's
  public endpoint.
* The token is cached like the all-in-one CLI's (provisioner.cmd.token_cache): one
  owner-only file per (auth URL, user, project) holding the token, its catalog and
  a verifier of the password, so a wrong or changed OS_PASSWORD never reuses it. A
  token the API refuses (revoked, keys rotated out) is replaced once.
* Errors become provisioner's exceptions with the server's message, so the CLI
  prints one line and exits with the same code as all-in-one: 404 NotFound (3),
  400/413 Invalid (2), 409 Conflict (4), 401 NotAuthenticated (5), 403 Forbidden (6).
* GETs are retried on connection errors for a few seconds (an API restarting);
  nothing else is sent twice.
"""

import datetime
import http.client
import json
import logging
import os
import re
import time
import urllib.parse

from provisioner import exception
from provisioner import redact
from provisioner import token_files

LOG = logging.getLogger(__name__)

TIMEOUT = 60            # seconds for one request's connect and each read
GET_RETRY_SECONDS = 5   # how long a GET is retried while the API does not answer
DOMAIN = {'name': 'Default'}
USER_AGENT = 'provisioner-cli'


class APIUnavailable(exception.ProvisionerError):
    msg_fmt = ('No provisioner-api answered at %(url)s: %(reason)s. Is it running, '
               'and is OS_AUTH_URL (--os-auth-url) right?')


class NotAvailable(exception.ProvisionerError):
    msg_fmt = ('%(what)s is not available through the REST API yet; run it with a '
               'configuration that reaches the database (without OS_AUTH_URL).')


class MethodNotAllowed(exception.Invalid):
    """405: the API serves this path, but not this method."""


class BadResponse(exception.ProvisionerError):
    msg_fmt = 'provisioner-api at %(url)s answered %(what)s; is OS_AUTH_URL right?'


_ERRORS = {400: exception.Invalid, 401: exception.NotAuthenticated,
           403: exception.Forbidden, 404: exception.NotFound,
           405: MethodNotAllowed, 409: exception.Conflict, 413: exception.Invalid}


def error_message(body, status, reason):
    """The message in an error body of any service, else the status line.

    Nova/Cinder ``{"itemNotFound": {"code", "message"}}``, Keystone ``{"error":
    {"message"}}``, Neutron ``{"NeutronError": {"message"}}``, Glance's plain text.
    """
    message = None
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        data = None
    if isinstance(data, dict):
        if isinstance(data.get('message'), str):
            message = data['message']
        for value in data.values():
            if message is None and isinstance(value, dict) \
                    and isinstance(value.get('message'), str):
                message = value['message']
    elif body:
        message = body.decode('utf-8', errors='replace')
    message = ' '.join((message or '').split())  # one line
    if len(message) > 1000:
        message = message[:1000] + '...'
    return message or 'HTTP %d %s' % (status, reason)


def error_for(status, body, reason):
    kind = _ERRORS.get(status)
    if kind is None:
        kind = (exception.Invalid if 400 <= status < 500
                else exception.ProvisionerError)
    return kind(error_message(body, status, reason))


def identity_base(auth_url):
    """``.../identity`` or ``.../identity/v3`` -> ``.../identity/v3``."""
    base = auth_url.rstrip('/')
    return base if re.search(r'/v3$', base) else base + '/v3'


def token_expiry(token_body):
    text = token_body.get('expires_at') or ''
    for fmt in ('%Y-%m-%dT%H:%M:%S.%fZ', '%Y-%m-%dT%H:%M:%SZ'):
        try:
            moment = datetime.datetime.strptime(text, fmt)
        except ValueError:
            continue
        return moment.replace(tzinfo=datetime.timezone.utc).timestamp()
    return time.time() + 300  # unknown: trust it for a short while


def connection(url):
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == 'https':
        import ssl
        context = ssl.create_default_context(cafile=os.environ.get('OS_CACERT') or None)
        return http.client.HTTPSConnection(parts.hostname, parts.port, timeout=TIMEOUT,
                                           context=context)
    if parts.scheme != 'http':
        raise exception.Invalid(reason='OS_AUTH_URL must be an http:// or https:// '
                                       'URL, not %r' % url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT)


def send(method, url, body=None, headers=None):
    """One request on a new connection: (status, reason, headers, body bytes).

    Raises OSError or http.client.HTTPException when the server does not answer.
    """
    parts = urllib.parse.urlsplit(url)
    target = parts.path or '/'
    if parts.query:
        target += '?' + parts.query
    all_headers = {'Accept': 'application/json', 'User-Agent': USER_AGENT}
    payload = None
    if isinstance(body, bytes) or hasattr(body, 'read'):
        payload = body  # raw data (an image upload): the caller names its type
    elif body is not None:
        payload = json.dumps(body).encode('utf-8')
        all_headers['Content-Type'] = 'application/json'
    all_headers.update(headers or {})
    conn = connection(url)
    try:
        conn.request(method, target, body=payload, headers=all_headers)
        response = conn.getresponse()
        data = response.read()
        return response.status, response.reason, response.headers, data
    finally:
        conn.close()


# -- the token cache (provisioner.token_files) -------------------------------------

def _cache_path(auth_url, username, project_name):
    return token_files.path_for('rest', identity_base(auth_url), username, project_name)


def _load_cached(path, password):
    entry = token_files.load(path, password)
    if entry is None or 'body' not in entry:
        return None
    return entry['token'], entry['body']


def _save_cached(path, password, token, body):
    token_files.save(path, password, token, token_expiry(body), body=body)


_forget_cached = token_files.forget


# -- the session -----------------------------------------------------------------

class Session:
    """An authenticated caller of provisioner-api: one per CLI command."""

    def __init__(self, auth_url, username=None, password=None, project_name=None,
                 token=None):
        self.auth_url = identity_base(auth_url)
        self._username = username
        self._password = password
        self._project_name = project_name
        self._given_token = token
        self._token = None
        self._body = None       # the token's body: user, project, roles, catalog
        self._cached = False    # the token came from the cache (it may be stale)
        redact.register(password, token)

    # -- authentication ----------------------------------------------------------

    def _authenticate(self):
        if self._given_token:
            self._token = self._given_token
            self._body = self._call('GET', self.auth_url + '/auth/tokens',
                                    headers={'X-Auth-Token': self._given_token,
                                             'X-Subject-Token': self._given_token}
                                    )[1]['token']
            return
        path = _cache_path(self.auth_url, self._username, self._project_name)
        cached = _load_cached(path, self._password)
        if cached is not None:
            self._token, self._body = cached
            self._cached = True
            redact.register(self._token)
            return
        self._token, self._body = self._password_token()
        self._cached = False
        _save_cached(path, self._password, self._token, self._body)

    def _password_token(self):
        request = {'auth': {
            'identity': {'methods': ['password'], 'password': {'user': {
                'name': self._username, 'password': self._password,
                'domain': DOMAIN}}},
            'scope': {'project': {'name': self._project_name, 'domain': DOMAIN}}}}
        headers, body = self._call('POST', self.auth_url + '/auth/tokens', request)
        token = headers.get('X-Subject-Token')
        if not token or not isinstance(body, dict) or 'token' not in body:
            raise BadResponse(url=self.auth_url, what='a token request without a token')
        redact.register(token)
        return token, body['token']

    def _ensure_token(self):
        if self._token is None:
            self._authenticate()

    def _renew(self):
        """The cached token was refused: authenticate with the password again."""
        _forget_cached(_cache_path(self.auth_url, self._username, self._project_name))
        self._token = self._body = None
        self._authenticate()

    @property
    def project_id(self):
        self._ensure_token()
        return self._body['project']['id']

    @property
    def user_id(self):
        self._ensure_token()
        return self._body['user']['id']

    def endpoint(self, service_type):
        """The public URL of ``service_type`` in the token's catalog.

        Identity is the v3 API at OS_AUTH_URL: the catalog's identity URL is the
        unversioned one.
        """
        if service_type == 'identity':
            return self.auth_url
        self._ensure_token()
        for service in self._body.get('catalog') or ():
            if service.get('type') != service_type:
                continue
            for endpoint in service.get('endpoints') or ():
                if endpoint.get('interface') == 'public':
                    return endpoint['url'].rstrip('/')
        raise BadResponse(url=self.auth_url, what='a catalog without a public %s '
                                                  'endpoint' % service_type)

    # -- requests ----------------------------------------------------------------

    def _call(self, method, url, body=None, headers=None, retry_for=None):
        """(headers, parsed body or None); provisioner's exceptions for failures.

        A GET the server did not answer is sent again for ``retry_for`` seconds
        (default GET_RETRY_SECONDS); other methods are sent once.
        """
        deadline = time.monotonic() + (GET_RETRY_SECONDS if retry_for is None
                                       else retry_for)
        delay = 0.2
        while True:
            try:
                status, reason, response_headers, data = send(method, url, body,
                                                              headers)
                break
            except (OSError, http.client.HTTPException) as exc:
                if method != 'GET' or time.monotonic() + delay > deadline:
                    raise APIUnavailable(url=_without_query(url),
                                         reason=failure_reason(exc)) from None
                LOG.debug('%s %s: %s; trying again', method, url, failure_reason(exc))
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
        LOG.debug('%s %s: %d', method, url, status)
        if status >= 400:
            raise error_for(status, data, reason)
        if not data.strip():
            return response_headers, None
        try:
            return response_headers, json.loads(data)
        except ValueError:
            raise BadResponse(url=_origin(url),
                              what='HTTP %d with a body that is not JSON' % status) \
                from None

    def request(self, method, service_type, path, body=None, params=None,
                retry_for=None, headers=None):
        """Call ``path`` under a catalogued service; its parsed JSON body or None.

        ``body`` is JSON, or bytes or a file to send as they are (give their
        Content-Type in ``headers``).
        """
        self._ensure_token()
        url = self.endpoint(service_type) + path
        if params:
            url += '?' + urllib.parse.urlencode(params)
        try:
            return self._call(method, url, body,
                              dict(headers or {}, **{'X-Auth-Token': self._token}),
                              retry_for)[1]
        except exception.NotAuthenticated:
            if not self._cached:
                raise
        self._renew()
        if hasattr(body, 'seek'):
            body.seek(0)  # a file sent once already
        return self._call(method, url, body,
                          dict(headers or {}, **{'X-Auth-Token': self._token}),
                          retry_for)[1]

    def get(self, service_type, path, params=None, retry_for=None):
        return self.request('GET', service_type, path, params=params,
                            retry_for=retry_for)

    def post(self, service_type, path, body):
        return self.request('POST', service_type, path, body)

    def put(self, service_type, path, body=None):
        return self.request('PUT', service_type, path, body)

    def patch(self, service_type, path, body):
        return self.request('PATCH', service_type, path, body)

    def delete(self, service_type, path):
        return self.request('DELETE', service_type, path)


def quote(value):
    """A name or id as one path segment."""
    return urllib.parse.quote(str(value), safe='')


def unwrap(body):
    """The value of a one-key envelope (``{"flavor": {...}}``), else the body."""
    if isinstance(body, dict) and len(body) == 1:
        return next(iter(body.values()))
    return body


def _origin(url):
    parts = urllib.parse.urlsplit(url)
    return '%s://%s' % (parts.scheme, parts.netloc)


def _without_query(url):
    return url.split('?', 1)[0]


def failure_reason(exc):
    if isinstance(exc, ConnectionRefusedError):
        return 'connection refused'
    if isinstance(exc, TimeoutError):
        return 'no answer within %d s' % TIMEOUT
    return getattr(exc, 'strerror', None) or str(exc) or type(exc).__name__
