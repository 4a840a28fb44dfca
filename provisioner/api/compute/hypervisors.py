"""Hypervisors and compute services, for admins (Nova's os-hypervisors, os-services).

A host is ``up`` while it reports its capacity (``[scheduler] host_down_time``);
all-in-one, provisioner-api is the compute service, and reports this host whenever
the hosts are listed. The shapes are views/hypervisors.py's.
"""

import logging
import os
import time

from provisioner.api.compute.schemas import hypervisors as schemas
from provisioner.api.compute.views import hypervisors as views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api
from provisioner.compute import api as compute_api
from provisioner.conf import CONF
from provisioner import exception
from provisioner import policy

LOG = logging.getLogger(__name__)


def require_admin(req, what):
    if not policy.check(req.context, 'admin'):
        raise exception.Forbidden(reason='%s is for the cloud administrator (role admin)'
                                         % what)


def list_hosts(req):
    """Every host; all-in-one, this one reports its capacity first (it is up)."""
    driver = req.deployment.hypervisor
    try:
        return catalog_api.CatalogAPI(req.context, driver).list('host')
    except exception.HypervisorUnavailable as exc:
        LOG.warning('Listing hosts without this one\'s report: %s', exc)
        return catalog_api.CatalogAPI(req.context, None).list('host')


def _servers(req):
    return compute_api.ComputeAPI(req.context, req.deployment).server_records(
        all_projects=True)


def _find(req, hypervisor_id):
    for host in list_hosts(req):
        if str(views.number(host)) == hypervisor_id:
            return host
    raise wsgi.HTTPError(404, "Hypervisor with ID '%s' could not be found."
                         % hypervisor_id)


@wsgi.route('GET', '/v2.1/os-hypervisors')
def index(req):
    require_admin(req, 'Listing hypervisors')
    return wsgi.json_response({'hypervisors': [views.summary(h)
                                               for h in list_hosts(req)]})


@wsgi.route('GET', '/v2.1/os-hypervisors/detail')
def detail(req):
    require_admin(req, 'Listing hypervisors')
    servers = _servers(req)
    return wsgi.json_response({'hypervisors': [views.detail(h, servers)
                                               for h in list_hosts(req)]})


@wsgi.route('GET', '/v2.1/os-hypervisors/statistics')
def statistics(req):
    require_admin(req, 'Hypervisor statistics')
    servers = _servers(req)
    return wsgi.json_response(views.statistics([views.detail(h, servers)
                                                for h in list_hosts(req)]))


@wsgi.route('GET', '/v2.1/os-hypervisors/{hypervisor_id}')
def show(req, hypervisor_id):
    require_admin(req, 'Showing a hypervisor')
    host = _find(req, hypervisor_id)
    return wsgi.json_response({'hypervisor': views.detail(host, _servers(req))})


def _uptime():
    """This machine's uptime(1) line, which Nova's libvirt driver returns."""
    with open('/proc/uptime') as uptime_file:
        seconds = int(float(uptime_file.read().split()[0]))
    days, rest = divmod(seconds, 86400)
    load = ', '.join('%.2f' % value for value in os.getloadavg())
    return ' %s up %d days, %d:%02d,  0 users,  load average: %s\n' % (
        time.strftime('%H:%M:%S'), days, rest // 3600, rest % 3600 // 60, load)


@wsgi.route('GET', '/v2.1/os-hypervisors/{hypervisor_id}/uptime')
def uptime(req, hypervisor_id):
    require_admin(req, 'A hypervisor\'s uptime')
    host = _find(req, hypervisor_id)
    if host['name'] != CONF.host or req.deployment.hypervisor is None:
        raise wsgi.HTTPError(501, 'provisioner-api knows the uptime of its own host '
                                  'only (all-in-one).')
    return wsgi.json_response({'hypervisor': dict(views.summary(host),
                                                  uptime=_uptime())})


@wsgi.route('GET', '/v2.1/os-aggregates')
def aggregates(req):
    """No host aggregates: zones are a host's own attribute. (`openstack hypervisor
    show` lists the aggregates to name a hypervisor's.)"""
    require_admin(req, 'Listing host aggregates')
    return wsgi.json_response({'aggregates': []})


@wsgi.route('GET', '/v2.1/os-hypervisors/{pattern}/search')
def search(req, pattern):
    require_admin(req, 'Searching hypervisors')
    found = [views.summary(h) for h in list_hosts(req) if pattern in h['name']]
    if not found:
        raise wsgi.HTTPError(404, 'No hypervisor matching \'%s\' could be found.'
                             % pattern)
    return wsgi.json_response({'hypervisors': found})


# -- compute services ------------------------------------------------------------

@wsgi.route('GET', '/v2.1/os-services')
def services(req):
    require_admin(req, 'Listing compute services')
    host, binary = req.GET.get('host'), req.GET.get('binary')
    found = [views.service(h) for h in list_hosts(req)
             if host in (None, h['name']) and binary in (None, views.BINARY)]
    return wsgi.json_response({'services': found})


@wsgi.route('PUT', '/v2.1/os-services/{action}')
def update_service(req, action):
    """Nova 2.1 - 2.52: enable, disable or disable-log-reason, by host and binary."""
    if action not in schemas.SERVICE_UPDATES:
        raise wsgi.HTTPError(404, 'Unknown action')
    body = validation.validate(req.json_body(), schemas.SERVICE_UPDATES[action])
    require_admin(req, 'Enabling or disabling a compute service')
    names = {h['name'] for h in list_hosts(req)}
    if body['binary'] != views.BINARY or body['host'] not in names:
        raise wsgi.HTTPError(404, 'Host %s could not be found, or it has no binary %s.'
                             % (body['host'], body['binary']))
    catalog_api.CatalogAPI(req.context, None).update_host(
        body['host'], enabled=action == 'enable',
        disabled_reason=body.get('disabled_reason'))
    return wsgi.json_response(views.service_update(body, action))

