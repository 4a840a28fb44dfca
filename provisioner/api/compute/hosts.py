"""Nova's os-hosts (2.1 - 2.42), for admins: the hosts of the cloud's services.

Each provisioner host runs the ``compute`` service in its availability zone; the
engine schedules and conducts, so this host (``[DEFAULT] host``) also shows the
``scheduler`` and ``conductor`` services in the ``internal`` zone, as Nova's control
plane does. A host's detail is its capacity, its use now, the most its servers may
use (their flavors) and that use per project. ``status`` enables or disables a
compute host as os-services does; maintenance mode and the power actions are what
Nova's libvirt driver cannot do either: 501.
"""

import collections

from provisioner.api.compute import hypervisors
from provisioner.api.compute import queries
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api
from provisioner.conf import CONF

_SWITCH = {'type': 'string', 'enum': ['enable', 'disable', 'Enable', 'Disable',
                                      'ENABLE', 'DISABLE']}
UPDATE = {'type': 'object',
          'properties': {'status': _SWITCH, 'maintenance_mode': _SWITCH},
          'anyOf': [{'required': ['status']}, {'required': ['maintenance_mode']}],
          'additionalProperties': False}


def _check(req):
    queries.removed_at(req, (2, 43))
    hypervisors.require_admin(req, 'os-hosts')


def _compute_host(req, name):
    for host in hypervisors.list_hosts(req):
        if host['name'] == name:
            return host
    raise wsgi.HTTPError(404, 'Compute host %s could not be found.' % name)


@wsgi.route('GET', '/v2.1/os-hosts')
def index(req):
    _check(req)
    services = [{'host_name': h['name'], 'service': 'compute',
                 'zone': h['availability_zone']} for h in hypervisors.list_hosts(req)]
    services += [{'host_name': CONF.host, 'service': name, 'zone': 'internal'}
                 for name in ('scheduler', 'conductor')]
    zone = req.GET.get('zone')
    if zone:
        services = [s for s in services if s['zone'] == zone]
    return wsgi.json_response({'hosts': services})


def _resource(host, project, vcpus, memory_mib, disk_gib):
    return {'resource': {'host': host, 'project': project, 'cpu': vcpus,
                         'memory_mb': memory_mib, 'disk_gb': disk_gib}}


@wsgi.route('GET', '/v2.1/os-hosts/{host_name}')
def show(req, host_name):
    _check(req)
    host = _compute_host(req, host_name)
    servers = [s for s in hypervisors.server_records(req) if s['host'] == host['name']]
    per_project = collections.defaultdict(lambda: [0, 0, 0])
    for server in servers:
        flavor = server.get('flavor') or {}
        used = per_project[server['project_id']]
        for index, key in enumerate(('vcpus', 'ram', 'disk')):
            used[index] += flavor.get(key) or 0
    most = [sum(used[i] for used in per_project.values()) for i in range(3)]
    resources = [
        _resource(host_name, '(total)', host['vcpus'], host['memory_mib'],
                  host['disk_gib']),
        _resource(host_name, '(used_now)', host['vcpus_used'], host['memory_mib_used'],
                  host['disk_gib_used']),
        _resource(host_name, '(used_max)', *most)]
    resources += [_resource(host_name, project, *used)
                  for project, used in sorted(per_project.items())]
    return wsgi.json_response({'host': resources})


@wsgi.route('PUT', '/v2.1/os-hosts/{host_name}')
@validation.schema(UPDATE)
def update(req, host_name, body):
    _check(req)
    _compute_host(req, host_name)
    result = {'host': host_name}
    if 'status' in body:
        enabled = body['status'].lower() == 'enable'
        catalog_api.CatalogAPI(req.context, None).update_host(host_name, enabled=enabled)
        result['status'] = 'enabled' if enabled else 'disabled'
    if 'maintenance_mode' in body:
        raise wsgi.HTTPError(501, 'Virt driver does not implement host maintenance '
                                  'mode.')
    return wsgi.json_response(result)


def _power_action(req, host_name):
    _check(req)
    _compute_host(req, host_name)
    raise wsgi.HTTPError(501, 'Virt driver does not implement host power management.')


@wsgi.route('GET', '/v2.1/os-hosts/{host_name}/startup')
def startup(req, host_name):
    _power_action(req, host_name)


@wsgi.route('GET', '/v2.1/os-hosts/{host_name}/shutdown')
def shutdown(req, host_name):
    _power_action(req, host_name)


@wsgi.route('GET', '/v2.1/os-hosts/{host_name}/reboot')
def reboot(req, host_name):
    _power_action(req, host_name)
