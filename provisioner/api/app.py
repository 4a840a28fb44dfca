"""provisioner-api's WSGI application: every service on one port, by path prefix.

Each request gets a request id (``x-openstack-request-id``, in every log line
written while it is served), its body size limit, its service's token check and
error format; anything unexpected becomes a 500 in that format with no traceback
in the response (the traceback goes to the log, under the request id).
"""

import contextvars
import logging

from provisioner.api import session
from provisioner.api import wsgi
from provisioner.conf import CONF
from provisioner.identity import service as identity

LOG = logging.getLogger(__name__)

_request_id = contextvars.ContextVar('request_id', default='-')


class RequestIdFilter(logging.Filter):
    """Puts the request id being served (or '-') on every log record."""

    def filter(self, record):
        record.request_id = _request_id.get()
        return True


class Application:
    """Dispatch by path prefix to the service mounted there.

    Every request carries the process's deployment (``req.deployment``,
    provisioner.deployment.Deployment): the services it calls run their flows and
    reach hosts through it.
    """

    def __init__(self, deployment, mounts):
        self.deployment = deployment
        # Longest prefix first, so /volume/v3 is not taken for /volume.
        self._mounts = sorted(mounts.items(), key=lambda item: -len(item[0]))

    def __call__(self, environ, start_response):
        req = wsgi.Request(environ)
        req.deployment = self.deployment
        req.request_id = identity.new_request_id()
        token = _request_id.set(req.request_id)
        try:
            response = self._serve(req)
        finally:
            _request_id.reset(token)
        response.headers['x-openstack-request-id'] = req.request_id
        return response(environ, start_response)

    def _mount(self, path):
        for prefix, service in self._mounts:
            if path == prefix or path.startswith(prefix + '/'):
                return prefix, service
        return None, None

    def _serve(self, req):
        prefix, service = self._mount(req.path_info)
        if service is None:
            return wsgi.json_response(
                {'error': {'code': 404, 'title': 'Not Found',
                           'message': 'Nothing is served at %s; services: %s.'
                                      % (req.path_info, ', '.join(
                                          sorted(p for p, _ in self._mounts)))}}, 404)
        req.script_name += prefix
        req.path_info = req.path_info[len(prefix):] or '/'
        req.max_body_size = CONF.api.max_request_body_size
        try:
            route, params = service.match(req.method, req.path_info)
            if not route.public:
                req.context = authenticate(req)
                if req.context.system_scope and service.name != 'identity':
                    raise wsgi.HTTPError(403, 'A system-scoped token is for the '
                                              'identity API only here: get a '
                                              'project-scoped one.')
            service.before(req)
            response = route.handler(req, **params)
        except Exception as exc:
            status, message = wsgi.status_of(exc)
            if status >= 500:
                LOG.exception('%s %s failed', req.method, req.path)
            else:
                LOG.info('%s %s: %d %s', req.method, req.path, status, message)
            response = service.error_response(exc)
        else:
            LOG.info('%s %s: %s', req.method, req.path_qs, response.status_code)
        service.after(req, response)
        return response


def authenticate(req):
    """The caller of a request, from its X-Auth-Token; 401 without a valid one.

    Without X-Auth-Token, the browser session's cookie stands in for it; then an
    unsafe method must also carry the session's X-CSRF-Token (403 otherwise).
    """
    token = req.headers.get('X-Auth-Token')
    if not token:
        token = session.token_of(req)
        if not token:
            raise wsgi.HTTPError(401, 'The request you have made requires '
                                      'authentication (no X-Auth-Token).')
        context = identity.validate(token)
        if req.method in session.UNSAFE_METHODS and not session.csrf_matches(
                token, req.headers.get(session.CSRF_HEADER)):
            raise wsgi.HTTPError(403, 'This request comes with the session cookie but '
                                      'without its %s header (or with a wrong one): '
                                      'reload the page and try again.'
                                 % session.CSRF_HEADER)
    else:
        context = identity.validate(token)
    return context.__class__(**dict(context.__dict__, request_id=req.request_id))


def build_app(deployment, extra=None):
    """The application of ``deployment`` with every REST service mounted, and
    ``extra`` mounts ({prefix: service}): provisioner-api adds the dashboard, which is
    built on this package and so is handed in. Services are imported here: CLI
    start-up."""
    from provisioner.api import compute
    from provisioner.api import identity as identity_api
    from provisioner.api import image
    from provisioner.api import metadata
    from provisioner.api import network
    from provisioner.api import volume
    return Application(deployment, dict(extra or {}, **{
        '/identity': identity_api.SERVICE,
        '/compute': compute.SERVICE,
        '/image': image.SERVICE,
        '/metadata': metadata.SERVICE,
        '/network': network.SERVICE,
        '/volume': volume.SERVICE,
    }))
