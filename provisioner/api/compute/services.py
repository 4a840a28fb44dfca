"""Compute services, for admins (Nova's os-services): one ``nova-compute`` per host.

Before 2.53 a service is updated by action and host (``enable``, ``disable``,
``disable-log-reason``, and from 2.11 ``force-down``); from 2.53 by its id (the
host's uuid) with ``status``, ``disabled_reason`` and ``forced_down``. A forced
down service is down (the scheduler passes its host by) until cleared.
"""

from oslo_utils import strutils
from oslo_utils import uuidutils

from provisioner.api.compute import hypervisors
from provisioner.api.compute import queries
from provisioner.api.compute.schemas import hypervisors as schemas
from provisioner.api.compute.views import hypervisors as views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api


@wsgi.route('GET', '/v2.1/os-services')
def services(req):
    hypervisors.require_admin(req, 'Listing compute services')
    queries.check(req, ('host', 'binary'))
    host, binary = req.GET.get('host'), req.GET.get('binary')
    found = [views.service(req, h) for h in hypervisors.list_hosts(req)
             if host in (None, h['name']) and binary in (None, views.BINARY)]
    return wsgi.json_response({'services': found})


def _update(req, name, **fields):
    return catalog_api.CatalogAPI(req.context, None).update_host(name, **fields)


def _by_action(req, action):
    """Nova 2.1 - 2.52: enable, disable, disable-log-reason (and 2.11's force-down),
    by host and binary."""
    if action == 'force-down' and req.api_version >= (2, 11):
        schema = schemas.FORCE_DOWN
    elif action in schemas.SERVICE_UPDATES:
        schema = schemas.SERVICE_UPDATES[action]
    else:
        raise wsgi.HTTPError(404, 'Unknown action')
    body = validation.validate(req.json_body(), schema)
    hypervisors.require_admin(req, 'Enabling or disabling a compute service')
    names = {h['name'] for h in hypervisors.list_hosts(req)}
    if body['binary'] != views.BINARY or body['host'] not in names:
        raise wsgi.HTTPError(404, 'Host %s could not be found, or it has no binary %s.'
                             % (body['host'], body['binary']))
    if action == 'force-down':
        forced = strutils.bool_from_string(body['forced_down'], strict=True)
        _update(req, body['host'], forced_down=forced)
        return wsgi.json_response({'service': {'host': body['host'],
                                               'binary': body['binary'],
                                               'forced_down': forced}})
    _update(req, body['host'], enabled=action == 'enable',
            disabled_reason=body.get('disabled_reason'))
    return wsgi.json_response(views.service_update(body, action))


def _by_id(req, service_id):
    """Nova 2.53: status, disabled_reason and forced_down of the service by id."""
    body = validation.validate(req.json_body(), schemas.SERVICE_UPDATE_V253)
    hypervisors.require_admin(req, 'Updating a compute service')
    if not uuidutils.is_uuid_like(service_id):
        raise wsgi.HTTPError(400, 'Invalid uuid %s' % service_id)
    hosts = [h for h in hypervisors.list_hosts(req) if h['id'] == service_id]
    if not hosts:
        raise wsgi.HTTPError(404, 'Service %s could not be found.' % service_id)
    status = body.get('status')
    if 'disabled_reason' in body and status != 'disabled':
        raise wsgi.HTTPError(400, "Specifying 'disabled_reason' with status "
                                  "'%s' is invalid." % status)
    if status is None and 'forced_down' not in body:
        raise wsgi.HTTPError(400, "No updates were requested. Fields 'status' or "
                                  "'forced_down' should be specified.")
    fields = {}
    if status is not None:
        fields.update(enabled=status == 'enabled',
                      disabled_reason=body.get('disabled_reason'))
    if 'forced_down' in body:
        fields['forced_down'] = strutils.bool_from_string(body['forced_down'],
                                                          strict=True)
    host = _update(req, service_id, **fields)
    return wsgi.json_response({'service': views.service(req, host)})


@wsgi.route('PUT', '/v2.1/os-services/{service_id}')
def update_service(req, service_id):
    if req.api_version >= (2, 53):
        return _by_id(req, service_id)
    return _by_action(req, service_id)
