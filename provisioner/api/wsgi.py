"""The small WSGI toolkit every service of provisioner-api is built from.

A ``Service`` is one OpenStack service (identity, compute, image, network, volume):
a router of ``(method, path pattern) -> handler``, its microversions if it has
any, and the error body format of the real service, since each client parses its
own service's errors. Every service is a package ``provisioner.api.<service>``
shaped alike: controller modules whose handlers are marked with ``@route``, its
request ``schemas`` and its ``views``; its ``__init__`` makes ``SERVICE`` from
the controllers. A handler takes the Request and the path's parameters and returns
a Response (``json_response``) or raises: ``HTTPError`` for protocol faults, or
provisioner's own exceptions, which map to statuses in one place (``STATUS_OF``),
as Nova's ``Fault`` does.
"""

import dataclasses
import json
import logging
import re

import webob

from provisioner import exception

LOG = logging.getLogger(__name__)

# provisioner's exceptions, as HTTP statuses (most specific first).
STATUS_OF = ((exception.NotFound, 404), (exception.Invalid, 400),
             (exception.Conflict, 409), (exception.NotAuthenticated, 401),
             (exception.Forbidden, 403), (exception.NoValidHost, 400),
             (exception.ImageInvalid, 400), (exception.HypervisorUnavailable, 503))

TITLES = {400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
          405: 'Method Not Allowed', 406: 'Not Acceptable', 409: 'Conflict',
          413: 'Request Entity Too Large', 415: 'Unsupported Media Type',
          500: 'Internal Server Error', 501: 'Not Implemented',
          503: 'Service Unavailable'}


class HTTPError(Exception):
    """A fault the API reports with a status and a message (and maybe headers)."""

    def __init__(self, status, message, headers=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def status_of(exc):
    """(status, message) for an exception a handler raised; 500 for the unexpected."""
    if isinstance(exc, HTTPError):
        return exc.status, exc.message
    if getattr(exc, 'http_status', None):  # an error that knows its own status
        return exc.http_status, str(exc)
    for kind, status in STATUS_OF:
        if isinstance(exc, kind):
            return status, str(exc)
    return 500, ('The server could not complete the request (%s); its log has the '
                 'details.' % type(exc).__name__)


class Request(webob.Request):
    """A request, with what the middleware learned about it."""

    deployment = None       # the process's provisioner.deployment.Deployment
    context = None          # identity.service.RequestContext once authenticated
    request_id = None       # req-<uuid>, also the x-openstack-request-id header
    api_version = None      # the negotiated microversion (compute), as (2, 1)
    max_body_size = None    # bytes; larger bodies are refused with 413

    def json_body(self, required=True):
        """The body parsed as a JSON object; 400 when it is not one."""
        if self.max_body_size is not None and self.content_length is not None \
                and self.content_length > self.max_body_size:
            raise HTTPError(413, 'Request is too large: %d bytes; the limit is %d.'
                                 % (self.content_length, self.max_body_size))
        raw = self.body_file.read(self.max_body_size + 1 if self.max_body_size
                                  else -1)
        if self.max_body_size is not None and len(raw) > self.max_body_size:
            raise HTTPError(413, 'Request is too large; the limit is %d bytes.'
                                 % self.max_body_size)
        if not raw.strip():
            if required:
                raise HTTPError(400, 'The request has no body; a JSON object is '
                                     'expected.')
            return {}
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise HTTPError(400, 'Malformed request body: %s' % exc) from None
        if not isinstance(body, dict):
            raise HTTPError(400, 'The request body must be a JSON object.')
        return body

    def int_param(self, name, minimum=0):
        value = self.GET.get(name)
        if value is None:
            return None
        try:
            number = int(value)
        except ValueError:
            raise HTTPError(400, '%s must be an integer, not %r' % (name, value)) \
                from None
        if number < minimum:
            raise HTTPError(400, '%s must be at least %d' % (name, minimum))
        return number


def _json_default(value):
    if hasattr(value, 'isoformat'):
        return value.isoformat()
    raise TypeError('%s is not JSON serialisable' % type(value).__name__)


def json_response(body, status=200, headers=None):
    response = webob.Response(status=status, content_type='application/json',
                              charset='utf-8')
    if body is not None:
        response.text = json.dumps(body, default=_json_default)
    else:
        response.content_type = None
        response.body = b''
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def empty_response(status):
    response = webob.Response(status=status)
    response.content_type = None
    response.body = b''
    return response


@dataclasses.dataclass
class Route:
    method: str
    regex: re.Pattern
    handler: object
    public: bool  # served without a token (version discovery, authentication)


def _compile(pattern, trailing_slash=True):
    """'/servers/{server_id}/action' -> a regex with named groups (no slashes in them);
    ``trailing_slash``: the path may end with a '/' the pattern does not have."""
    if not trailing_slash:
        return re.compile('^%s$' % re.sub(r'\{(\w+)\}', r'(?P<\1>[^/]+)', pattern))
    regex = re.sub(r'\{(\w+)\}', r'(?P<\1>[^/]+)', pattern.rstrip('/') or '/')
    return re.compile('^%s/?$' % regex)


def nova_fault(status, message, exc=None):
    """Nova's and Cinder's error body: {"itemNotFound": {"code": 404, "message"}}."""
    names = {400: 'badRequest', 401: 'unauthorized', 403: 'forbidden',
             404: 'itemNotFound', 405: 'badMethod', 409: 'conflictingRequest',
             413: 'overLimit', 415: 'badMediaType', 429: 'overLimit',
             501: 'notImplemented', 503: 'serviceUnavailable'}
    return {names.get(status, 'computeFault'): {'code': status, 'message': message}}


def route(method, pattern, public=False):
    """Decorator: the handler serves ``method pattern`` (relative to its service's
    prefix; ``public``: without a token). A Service collects its controllers'
    handlers so marked, in the order they are defined (``/servers/detail`` before
    ``/servers/{server_id}``)."""
    def mark(handler):
        handler.__dict__.setdefault('routes', []).append((method, pattern, public))
        return handler
    return mark


class Service:
    """One OpenStack service under its path prefix: the routes of its controllers,
    its microversions (a provisioner.api.microversions.Microversions, or None) and
    its error format: ``fault(status, message, exc)`` -> the error body;
    ``request_id_header``: the service's own name for the request id, sent besides
    x-openstack-request-id (Nova's x-compute-request-id); ``trailing_slash`` false:
    a path is served only as its route spells it (Cinder: ``/volumes/`` is a volume
    of no id, 404, not the list)."""

    def __init__(self, name, controllers=(), fault=nova_fault, microversions=None,
                 request_id_header=None, trailing_slash=True):
        self.name = name
        self.fault = fault
        self.microversions = microversions
        self.request_id_header = request_id_header
        self.trailing_slash = trailing_slash
        self.routes = []
        for controller in controllers:
            self.add_controller(controller)

    def before(self, req):
        """Called before the handler: the request's microversion is negotiated."""
        if self.microversions is not None:
            req.api_version = self.microversions.negotiate(req)

    def after(self, req, response):
        """Called with every response, errors included: the version served and the
        request id under the service's own name."""
        if self.request_id_header is not None and req.request_id is not None:
            response.headers[self.request_id_header] = req.request_id
        if self.microversions is not None:
            response.headers.update(self.microversions.headers(req.api_version))

    def add_controller(self, module):
        """Serve every handler of ``module`` marked with ``@route``."""
        for handler in vars(module).values():
            if getattr(handler, '__module__', None) != module.__name__:
                continue  # imported from elsewhere: served by its own controller
            for method, pattern, public in getattr(handler, 'routes', ()):
                self.routes.append(Route(method, _compile(pattern, self.trailing_slash),
                                         handler, public))

    def match(self, method, path):
        """(route, params) for the request; HTTPError 404/405 when none fits."""
        allowed = []
        for route in self.routes:
            found = route.regex.match(path)
            if found is None:
                continue
            if route.method == method or (method == 'HEAD' and route.method == 'GET'):
                return route, found.groupdict()
            allowed.append(route.method)
        if allowed:
            raise HTTPError(405, 'Method %s is not allowed here (allowed: %s).'
                                 % (method, ', '.join(sorted(set(allowed)))),
                            headers={'Allow': ', '.join(sorted(set(allowed)))})
        raise HTTPError(404, 'The resource could not be found.')

    def error_response(self, exc):
        """The response to what a handler raised, in this service's error format."""
        status, message = status_of(exc)
        return json_response(self.fault(status, message, exc), status,
                             getattr(exc, 'headers', None))
