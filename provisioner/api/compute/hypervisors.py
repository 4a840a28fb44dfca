"""Hypervisors and compute services, for admins (Nova's os-hypervisors, os-services).

Each provisioner host is one hypervisor and one ``nova-compute`` service. Before
2.53 Nova numbers both with integers; provisioner's hosts have uuids, so the
number shown is derived from the uuid (CRC-32, 31 bits): stable for the host's
life and the same in both APIs, with no column to keep. A host is ``up`` while it
reports its capacity (``[scheduler] host_down_time``); all-in-one, provisioner-api
is the compute service, and reports this host whenever the hosts are listed.
"""

import json
import logging
import os
import time
import zlib

from provisioner.api import common
from provisioner.api.compute.service import SERVICE
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api
from provisioner.compute import api as compute_api
from provisioner.conf import CONF
from provisioner import exception
from provisioner import policy

LOG = logging.getLogger(__name__)
BINARY = 'nova-compute'


def require_admin(req, what):
    if not policy.check(req.context, 'admin'):
        raise exception.Forbidden(reason='%s is for the cloud administrator (role admin)'
                                         % what)


def number(host):
    """The integer id of a host's hypervisor and service (Nova's before 2.53)."""
    return zlib.crc32(host['id'].encode()) & 0x7fffffff


def list_hosts(req):
    """Every host; all-in-one, this one reports its capacity first (it is up)."""
    driver = req.deployment.hypervisor
    try:
        return catalog_api.CatalogAPI(req.context, driver).list('host')
    except exception.HypervisorUnavailable as exc:
        LOG.warning('Listing hosts without this one\'s report: %s', exc)
        return catalog_api.CatalogAPI(req.context, None).list('host')


def service_time(moment):
    """Nova's services serialise times as its objects do: no zone, microseconds."""
    return None if moment is None else moment.strftime('%Y-%m-%dT%H:%M:%S.%f')


# -- hypervisors -----------------------------------------------------------------

def _summary(host):
    return {'id': number(host), 'hypervisor_hostname': host['name'],
            'state': 'up' if host['alive'] else 'down',
            'status': 'enabled' if host['enabled'] else 'disabled'}


def _hypervisor_type(host):
    kind = host['hypervisor_type'] or ''
    return 'QEMU' if kind.lower() in ('qemu', 'kvm') else kind  # as libvirt names it


def _detail(host, servers):
    on_host = [s for s in servers if s['host'] == host['name']]
    free_disk = host['disk_gib'] - host['disk_gib_used']
    view = _summary(host)
    view.update({
        'vcpus': host['vcpus'], 'vcpus_used': host['vcpus_used'],
        'memory_mb': host['memory_mib'], 'memory_mb_used': host['memory_mib_used'],
        'free_ram_mb': host['memory_mib'] - host['memory_mib_used'],
        'local_gb': host['disk_gib'], 'local_gb_used': host['disk_gib_used'],
        'free_disk_gb': free_disk, 'disk_available_least': free_disk,
        'hypervisor_type': _hypervisor_type(host),
        'hypervisor_version': 0,  # not reported by provisioner's hosts
        'host_ip': None,          # idem
        'running_vms': len(on_host),
        'current_workload': sum(1 for s in on_host if s['task_state'] is not None),
        'cpu_info': json.dumps({'arch': host['arch']}),
        'service': {'host': host['name'], 'id': number(host),
                    'disabled_reason': host['disabled_reason']},
    })
    return view


def _servers(req):
    return compute_api.ComputeAPI(req.context, req.deployment).server_records(
        all_projects=True)


def _find(req, hypervisor_id):
    for host in list_hosts(req):
        if str(number(host)) == hypervisor_id:
            return host
    raise wsgi.HTTPError(404, "Hypervisor with ID '%s' could not be found."
                         % hypervisor_id)


@SERVICE.route('GET', '/v2.1/os-hypervisors')
def index(req):
    require_admin(req, 'Listing hypervisors')
    return wsgi.json_response({'hypervisors': [_summary(h) for h in list_hosts(req)]})


@SERVICE.route('GET', '/v2.1/os-hypervisors/detail')
def detail(req):
    require_admin(req, 'Listing hypervisors')
    servers = _servers(req)
    return wsgi.json_response({'hypervisors': [_detail(h, servers)
                                               for h in list_hosts(req)]})


@SERVICE.route('GET', '/v2.1/os-hypervisors/statistics')
def statistics(req):
    require_admin(req, 'Hypervisor statistics')
    servers = _servers(req)
    views = [_detail(h, servers) for h in list_hosts(req)]
    totals = {field: sum(v[field] for v in views) for field in (
        'current_workload', 'disk_available_least', 'free_disk_gb', 'free_ram_mb',
        'local_gb', 'local_gb_used', 'memory_mb', 'memory_mb_used', 'running_vms',
        'vcpus', 'vcpus_used')}
    return wsgi.json_response({'hypervisor_statistics': dict(totals, count=len(views))})


@SERVICE.route('GET', '/v2.1/os-hypervisors/{hypervisor_id}')
def show(req, hypervisor_id):
    require_admin(req, 'Showing a hypervisor')
    host = _find(req, hypervisor_id)
    return wsgi.json_response({'hypervisor': _detail(host, _servers(req))})


def _uptime():
    """This machine's uptime(1) line, which Nova's libvirt driver returns."""
    with open('/proc/uptime') as uptime_file:
        seconds = int(float(uptime_file.read().split()[0]))
    days, rest = divmod(seconds, 86400)
    load = ', '.join('%.2f' % value for value in os.getloadavg())
    return ' %s up %d days, %d:%02d,  0 users,  load average: %s\n' % (
        time.strftime('%H:%M:%S'), days, rest // 3600, rest % 3600 // 60, load)


@SERVICE.route('GET', '/v2.1/os-hypervisors/{hypervisor_id}/uptime')
def uptime(req, hypervisor_id):
    require_admin(req, 'A hypervisor\'s uptime')
    host = _find(req, hypervisor_id)
    if host['name'] != CONF.host or req.deployment.hypervisor is None:
        raise wsgi.HTTPError(501, 'provisioner-api knows the uptime of its own host '
                                  'only (all-in-one).')
    return wsgi.json_response({'hypervisor': dict(_summary(host), uptime=_uptime())})


@SERVICE.route('GET', '/v2.1/os-aggregates')
def aggregates(req):
    """No host aggregates: zones are a host's own attribute. (`openstack hypervisor
    show` lists the aggregates to name a hypervisor's.)"""
    require_admin(req, 'Listing host aggregates')
    return wsgi.json_response({'aggregates': []})


@SERVICE.route('GET', '/v2.1/os-hypervisors/{pattern}/search')
def search(req, pattern):
    require_admin(req, 'Searching hypervisors')
    found = [_summary(h) for h in list_hosts(req) if pattern in h['name']]
    if not found:
        raise wsgi.HTTPError(404, 'No hypervisor matching \'%s\' could be found.'
                             % pattern)
    return wsgi.json_response({'hypervisors': found})


# -- compute services ------------------------------------------------------------

def _service(host):
    return {'id': number(host), 'binary': BINARY, 'host': host['name'],
            'zone': host['availability_zone'],
            'status': 'enabled' if host['enabled'] else 'disabled',
            'state': 'up' if host['alive'] else 'down',
            'updated_at': service_time(host['updated_at']),
            'disabled_reason': host['disabled_reason']}


@SERVICE.route('GET', '/v2.1/os-services')
def services(req):
    require_admin(req, 'Listing compute services')
    host, binary = req.GET.get('host'), req.GET.get('binary')
    found = [_service(h) for h in list_hosts(req)
             if host in (None, h['name']) and binary in (None, BINARY)]
    return wsgi.json_response({'services': found})


SERVICE_UPDATE = {
    'type': 'object',
    'properties': {
        'host': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'binary': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'disabled_reason': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    },
    'required': ['host', 'binary'],
    'additionalProperties': False,
}


@SERVICE.route('PUT', '/v2.1/os-services/{action}')
def update_service(req, action):
    """Nova 2.1 - 2.52: enable, disable or disable-log-reason, by host and binary."""
    if action not in ('enable', 'disable', 'disable-log-reason'):
        raise wsgi.HTTPError(404, 'Unknown action')
    body = common.validate(req.json_body(), SERVICE_UPDATE)
    require_admin(req, 'Enabling or disabling a compute service')
    reason = body.get('disabled_reason')
    if action == 'disable-log-reason' and reason is None:
        raise wsgi.HTTPError(400, 'Missing disabled reason field')
    names = {h['name'] for h in list_hosts(req)}
    if body['binary'] != BINARY or body['host'] not in names:
        raise wsgi.HTTPError(404, 'Host %s could not be found, or it has no binary %s.'
                             % (body['host'], body['binary']))
    enabled = action == 'enable'
    catalog_api.CatalogAPI(req.context, None).update_host(
        body['host'], enabled=enabled, disabled_reason=reason)
    view = {'host': body['host'], 'binary': body['binary'],
            'status': 'enabled' if enabled else 'disabled'}
    if action == 'disable-log-reason':
        view['disabled_reason'] = reason
    return wsgi.json_response({'service': view})

