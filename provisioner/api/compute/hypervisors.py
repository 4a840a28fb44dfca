"""Hypervisors, for admins (Nova's os-hypervisors); services.py has os-services.

A host is ``up`` while it reports its capacity (``[scheduler] host_down_time``)
and is not forced down; all-in-one, provisioner-api is the compute service, and
reports this host whenever the hosts are listed. The shapes are
views/hypervisors.py's. From 2.33 the lists page (``limit``, ``marker``); from
2.53 ids are uuids, ``hypervisor_hostname_pattern`` and ``with_servers`` replace
``/{pattern}/search`` and ``/{id}/servers``; from 2.88 ``/statistics`` and
``/{id}/uptime`` are gone (the uptime is in the detail).
"""

import logging
import os
import time

from oslo_utils import strutils
from oslo_utils import uuidutils

from provisioner.api import common
from provisioner.api.compute import queries
from provisioner.api.compute.views import hypervisors as views
from provisioner.api import urls
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


def server_records(req):
    return compute_api.ComputeAPI(req.context, req.deployment).server_records(
        all_projects=True)


def _find(req, hypervisor_id):
    if req.api_version >= (2, 53) and not uuidutils.is_uuid_like(hypervisor_id):
        raise wsgi.HTTPError(400, 'Invalid uuid %s' % hypervisor_id)
    for host in list_hosts(req):
        if str(views.host_id(req, host)) == hypervisor_id:
            return host
    raise wsgi.HTTPError(404, "Hypervisor with ID '%s' could not be found."
                         % hypervisor_id)


def _with_servers(req):
    if req.api_version < (2, 53):
        return False
    value = req.GET.get('with_servers', 'false')
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise wsgi.HTTPError(400, 'Invalid input for query parameters with_servers. '
                                  'Value: %s.' % value) from None


def _hosts(req):
    """The hosts a list shows: those matching the pattern (2.53), or a page (2.33)."""
    found = list_hosts(req)
    pattern = (req.GET.get('hypervisor_hostname_pattern')
               if req.api_version >= (2, 53) else None)
    if pattern is not None:
        if 'limit' in req.GET or req.GET.get('marker'):
            raise wsgi.HTTPError(400, 'Paging over hypervisors with the '
                                      'hypervisor_hostname_pattern query parameter '
                                      'is not supported.')
        found = [h for h in found if pattern in h['name']]
        if not found:
            raise wsgi.HTTPError(404, "No hypervisor matching '%s' could be found."
                                 % pattern)
        return found, False
    if req.api_version < (2, 33):
        return found, False
    found = [dict(h, id_shown=views.host_id(req, h)) for h in found]
    return common.page(req, found, key='id_shown')


def _list(req, detailed):
    # Nova's query schema is strict from 2.53 (before 2.75, as no other is).
    queries.check(req, ('limit', 'marker', 'hypervisor_hostname_pattern',
                        'with_servers'), since=(2, 53))
    hosts, more = _hosts(req)
    with_servers = _with_servers(req)
    servers = server_records(req) if with_servers or detailed else []
    shown = []
    for host in hosts:
        shown.append(_detail_view(req, host, servers) if detailed
                     else views.summary(req, host))
        _add_servers(req, shown[-1], host, servers, with_servers)
    body = {'hypervisors': shown}
    if more:
        body['hypervisors_links'] = urls.next_link(
            req, req.path_info.strip('/').split('/'), shown[-1]['id'])
    return wsgi.json_response(body)


def _add_servers(req, view, host, servers, with_servers):
    """Nova lists a hypervisor's servers when asked (2.53), [] for none from 2.75."""
    if not with_servers:
        return
    found = views.servers_of(host, servers)
    if found or req.api_version >= (2, 75):
        view['servers'] = found


def _uptime_of(req, host):
    if host['name'] != CONF.host or req.deployment.hypervisor is None:
        return None
    return _uptime()


@wsgi.route('GET', '/v2.1/os-hypervisors')
def index(req):
    require_admin(req, 'Listing hypervisors')
    return _list(req, False)


def _detail_view(req, host, servers):
    uptime = _uptime_of(req, host) if req.api_version >= (2, 88) else None
    return views.detail(req, host, servers, uptime)


@wsgi.route('GET', '/v2.1/os-hypervisors/detail')
def detail(req):
    require_admin(req, 'Listing hypervisors')
    return _list(req, True)


def _gone_at_2_88(req):
    queries.removed_at(req, (2, 88))


@wsgi.route('GET', '/v2.1/os-hypervisors/statistics')
def statistics(req):
    _gone_at_2_88(req)
    require_admin(req, 'Hypervisor statistics')
    servers = server_records(req)
    return wsgi.json_response(views.statistics(
        [views.detail(req, h, servers) for h in list_hosts(req)]))


@wsgi.route('GET', '/v2.1/os-hypervisors/{hypervisor_id}')
def show(req, hypervisor_id):
    require_admin(req, 'Showing a hypervisor')
    queries.check(req, ('with_servers',), since=(2, 53))
    host = _find(req, hypervisor_id)
    servers = server_records(req)
    view = _detail_view(req, host, servers)
    _add_servers(req, view, host, servers, _with_servers(req))
    return wsgi.json_response({'hypervisor': view})


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
    _gone_at_2_88(req)
    require_admin(req, 'A hypervisor\'s uptime')
    host = _find(req, hypervisor_id)
    found = _uptime_of(req, host)
    if found is None:
        raise wsgi.HTTPError(501, 'provisioner-api knows the uptime of its own host '
                                  'only (all-in-one).')
    return wsgi.json_response({'hypervisor': dict(views.summary(req, host),
                                                  uptime=found)})


@wsgi.route('GET', '/v2.1/os-aggregates')
def aggregates(req):
    """No host aggregates: zones are a host's own attribute. (`openstack hypervisor
    show` lists the aggregates to name a hypervisor's.)"""
    require_admin(req, 'Listing host aggregates')
    return wsgi.json_response({'aggregates': []})


@wsgi.route('GET', '/v2.1/os-hypervisors/{pattern}/search')
def search(req, pattern):
    queries.removed_at(req, (2, 53))
    require_admin(req, 'Searching hypervisors')
    found = [views.summary(req, h) for h in list_hosts(req) if pattern in h['name']]
    if not found:
        raise wsgi.HTTPError(404, 'No hypervisor matching \'%s\' could be found.'
                             % pattern)
    return wsgi.json_response({'hypervisors': found})


@wsgi.route('GET', '/v2.1/os-hypervisors/{pattern}/servers')
def servers(req, pattern):
    """Before 2.53: the hypervisors matching a pattern, each with its servers."""
    queries.removed_at(req, (2, 53))
    require_admin(req, 'Listing a hypervisor\'s servers')
    hosts = [h for h in list_hosts(req) if pattern in h['name']]
    if not hosts:
        raise wsgi.HTTPError(404, 'No hypervisor matching \'%s\' could be found.'
                             % pattern)
    records = server_records(req)
    found = []
    for host in hosts:
        found.append(views.summary(req, host))
        _add_servers(req, found[-1], host, records, True)
    return wsgi.json_response({'hypervisors': found})
