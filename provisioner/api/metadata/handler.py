"""The metadata service's one handler: who the request is for, from the headers the
proxy signed, then that instance's document at the path asked.

Only signed requests are answered (403 otherwise), signatures compared in constant
time; an instance is found by its id and tenant (Neutron's agent's headers) or by
the network and address the request came from (the proxy's), 404 when none holds
them. The secret, the signatures and user data are never logged.
"""

import logging
import posixpath

import webob

from provisioner.api.metadata import tree
from provisioner.api import wsgi
from provisioner.compute import guest_metadata
from provisioner.conf import CONF
from provisioner import exception
from provisioner import metadata_signing as signing
from provisioner import redact

LOG = logging.getLogger(__name__)


def _forbidden(reason, req):
    LOG.warning('Metadata request refused (403): %s; from %s', reason, req.remote_addr)
    return wsgi.HTTPError(403, 'Invalid proxy request signature.')


def _not_found(message):
    return wsgi.HTTPError(404, message)


def _by_instance_id(req, secret):
    """Neutron's metadata agent's request: the instance and tenant it names."""
    instance_id = req.headers.get(signing.INSTANCE_ID)
    tenant_id = req.headers.get(signing.TENANT_ID)
    if not signing.matches(secret, instance_id,
                           req.headers.get(signing.INSTANCE_ID_SIGNATURE)):
        raise _forbidden('no valid %s for instance %r'
                         % (signing.INSTANCE_ID_SIGNATURE, instance_id), req)
    if tenant_id is None:
        raise wsgi.HTTPError(400, '%s header is missing from request.'
                             % signing.TENANT_ID)
    return instance_id, tenant_id


def _by_source(req, secret):
    """The proxy's request: the network and the guest's address, found to a port."""
    network_id = req.headers.get(signing.NETWORK_ID)
    address = (req.headers.get(signing.FORWARDED_FOR) or '').split(',')[0].strip()
    if not signing.matches(secret, signing.source_message(network_id, address),
                           req.headers.get(signing.PROXY_SIGNATURE)):
        raise _forbidden('no valid %s for %r on network %r'
                         % (signing.PROXY_SIGNATURE, address, network_id), req)
    found = guest_metadata.instance_at(network_id, address)
    if found is None:
        LOG.info('No instance holds %r on network %r', address, network_id)
        raise _not_found('No instance has the address %s on this network.' % address)
    return found


def identify(req, secret):
    """(instance id, project id) the signed request is for; HTTPError 403 when it
    is not signed (or not rightly), 404 when no instance answers to it."""
    if req.headers.get(signing.INSTANCE_ID) is not None:
        return _by_instance_id(req, secret)
    if req.headers.get(signing.NETWORK_ID) is not None:
        return _by_source(req, secret)
    raise _forbidden('not signed (no %s nor %s)' % (signing.INSTANCE_ID,
                                                    signing.NETWORK_ID), req)


def serve(req):
    if posixpath.normpath('/' + req.path_info.lstrip('/')) == '/':
        return _response(*tree.root_listing())
    secret = CONF.metadata.proxy_shared_secret
    if not secret:
        raise wsgi.HTTPError(503, 'The metadata service is not configured '
                                  '([metadata] proxy_shared_secret is unset).')
    redact.register(secret)  # masked should anything ever print it
    instance_id, project_id = identify(req, secret)
    try:
        record = guest_metadata.load(instance_id)
    except exception.NotFound:
        raise _not_found('No such instance.') from None
    if record.request.project_id != project_id:
        LOG.warning('Metadata request for instance %s names tenant %r, not its own',
                    instance_id, project_id)
        raise _not_found('No such instance.')
    try:
        return _response(*tree.lookup(record, req.path_info))
    except tree.NotServed:
        raise _not_found('The resource could not be found.') from None


def _response(body, content_type):
    response = webob.Response(body=body, content_type=content_type)
    if content_type.startswith('text/'):
        response.charset = 'utf-8'
    return response


class MetadataService(wsgi.Service):
    """Every path GET (or HEAD) by the one handler, errors in plain text."""

    _ROUTE = wsgi.Route('GET', None, serve, public=True)

    def __init__(self):
        super().__init__('metadata')

    def match(self, method, path):
        if method not in ('GET', 'HEAD'):
            raise wsgi.HTTPError(405, 'Method %s is not allowed here (allowed: GET).'
                                 % method, headers={'Allow': 'GET, HEAD'})
        return self._ROUTE, {}

    def error_response(self, exc):
        status, message = wsgi.status_of(exc)
        response = webob.Response(status=status, content_type=tree.TEXT,
                                  charset='utf-8', text=message + '\n')
        for name, value in (getattr(exc, 'headers', None) or {}).items():
            response.headers[name] = value
        return response
