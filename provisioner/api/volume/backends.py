"""What admins read of the volume service's parts (Cinder's os-services, os-hosts,
scheduler-stats/get_pools and capabilities), as provisioner has them: one
``cinder-volume`` backend on each host, ``<host>@<backend>#volumes`` (the
``[volume] backend``: qcow2 files of the host, or RBD images), whose pool is
the host's disk. There is no scheduler service: a volume gets its host at its
first attachment (or boot). A host's volume service follows its compute service:
enable or disable it with Nova's os-services (here: 400 saying so; Cinder's 404
for a host or binary that does not exist first).
"""

from provisioner.api import validation
from provisioner.api.volume.views import backend_of
from provisioner.api.volume.volumes import check_url_project
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api
from provisioner.conf import CONF
from provisioner import exception
from provisioner import policy
from provisioner.volume import snapshots
from provisioner.volume import volumes

BINARY = 'cinder-volume'
VENDOR = 'Open Source'
_PROTOCOLS = {'file': 'file', 'rbd': 'ceph'}

SERVICE_UPDATE = {'type': 'object', 'required': ['host'],
                  'properties': {'host': {'type': 'string'},
                                 'binary': {'type': 'string'},
                                 'disabled_reason': {'type': ['string', 'null']}}}


def _hosts(req, project_id):
    check_url_project(req, project_id)
    policy.authorize(req.context, 'volume:admin')
    try:  # all-in-one, this host reports itself first (as Nova's os-hypervisors)
        return catalog_api.CatalogAPI(req.context, req.deployment.hypervisor) \
            .list('host')
    except exception.HypervisorUnavailable:
        return catalog_api.CatalogAPI(req.context, None).list('host')


def _service(host):
    return {'binary': BINARY, 'host': backend_of(host['name']).split('#')[0],
            'zone': host['availability_zone'] or 'nova',
            'status': 'enabled' if host['enabled'] else 'disabled',
            'state': 'up' if host['alive'] else 'down',
            'updated_at': host['updated_at'], 'disabled_reason':
            host['disabled_reason']}


def _name(host):
    return host.split('@')[0].split('#')[0]


@wsgi.route('GET', '/v3/{project_id}/os-services')
def list_services(req, project_id):
    host, binary = req.GET.get('host'), req.GET.get('binary')
    return wsgi.json_response({'services': [
        _service(h) for h in _hosts(req, project_id)
        if host in (None, h['name'], _service(h)['host'])
        and binary in (None, BINARY)]})


@wsgi.route('PUT', '/v3/{project_id}/os-services/{action}')
@validation.schema(SERVICE_UPDATE)
def update_service(req, project_id, action, body):
    names = {h['name'] for h in _hosts(req, project_id)}
    if action in ('freeze', 'thaw'):
        if _name(body['host']) not in names:
            raise wsgi.HTTPError(400, 'Invalid host: %s is no volume host.'
                                 % body['host'])
        raise wsgi.HTTPError(400, 'provisioner has no replication: a host cannot be '
                                  'frozen or thawed.')
    if action not in ('enable', 'disable', 'disable-log-reason'):
        raise wsgi.HTTPError(404, 'Unknown action')
    if _name(body['host']) not in names or body.get('binary', BINARY) != BINARY:
        raise wsgi.HTTPError(404, 'Service %s of host %s could not be found.'
                             % (body.get('binary'), body['host']))
    if action == 'disable-log-reason' and not (body.get('disabled_reason') or '')\
            .strip():
        raise wsgi.HTTPError(400, 'Disabled reason contains invalid characters or is '
                                  'too long')
    raise wsgi.HTTPError(400, "A host's volume service follows its compute service: "
                              "enable or disable it with Nova's os-services.")


def _usage():
    """{host: (volume count, their GiB, snapshot count, their GiB)}."""
    found = {}
    for vol in volumes.describe():
        count = found.setdefault(vol['host'], [0, 0, 0, 0])
        count[0] += 1
        count[1] += vol['size_gib']
    for snap in snapshots.describe():
        count = found.setdefault(snap['host'], [0, 0, 0, 0])
        count[2] += 1
        count[3] += snap['size_gib']
    return found


@wsgi.route('GET', '/v3/{project_id}/os-hosts')
def list_hosts(req, project_id):
    return wsgi.json_response({'hosts': [
        {'service-status': 'available' if h['alive'] else 'unavailable',
         'service': BINARY, 'zone': h['availability_zone'] or 'nova',
         'service-state': 'enabled' if h['enabled'] else 'disabled',
         'host_name': _service(h)['host'], 'last-update': h['updated_at']}
        for h in _hosts(req, project_id)]})


@wsgi.route('GET', '/v3/{project_id}/os-hosts/{host_name}')
def show_host(req, project_id, host_name):
    hosts = {h['name'] for h in _hosts(req, project_id)}
    if _name(host_name) not in hosts:
        raise wsgi.HTTPError(404, 'Host %s could not be found.' % host_name)
    vols, vol_gib, snaps, snap_gib = _usage().get(_name(host_name), (0, 0, 0, 0))
    return wsgi.json_response({'host': [{'resource': {
        'host': host_name, 'project': '(total)', 'volume_count': str(vols),
        'total_volume_gb': str(vol_gib), 'snapshot_count': str(snaps),
        'total_snapshot_gb': str(snap_gib)}}]})


def _capabilities(host, usage):
    allocated = sum(usage.get(host['name'], (0, 0, 0, 0))[1::2])
    total = int(host['disk_gib_capacity'])
    return {'pool_name': 'volumes', 'volume_backend_name': CONF.volume.backend,
            'vendor_name': VENDOR, 'driver_version': '1.0',
            'storage_protocol': _PROTOCOLS[CONF.volume.backend],
            'total_capacity_gb': total, 'allocated_capacity_gb': allocated,
            'provisioned_capacity_gb': allocated,
            'free_capacity_gb': max(total - allocated, 0), 'reserved_percentage': 0,
            'QoS_support': False, 'thin_provisioning_support': True,
            'thick_provisioning_support': False, 'multiattach': False,
            'max_over_subscription_ratio': '1.0', 'timestamp': host['updated_at']}


@wsgi.route('GET', '/v3/{project_id}/scheduler-stats/get_pools')
def list_pools(req, project_id):
    detail = str(req.GET.get('detail', 'false')).lower() in ('1', 'true', 'yes')
    hosts, usage = _hosts(req, project_id), _usage()
    pools = []
    for host in hosts:
        pool = {'name': backend_of(host['name'])}
        if detail:
            pool['capabilities'] = _capabilities(host, usage)
        pools.append(pool)
    return wsgi.json_response({'pools': pools})


@wsgi.route('GET', '/v3/{project_id}/capabilities/{backend}')
def show_capabilities(req, project_id, backend):
    hosts = {h['name']: h for h in _hosts(req, project_id)}
    host = hosts.get(_name(backend))
    if host is None:
        raise wsgi.HTTPError(404, 'Host %s could not be found.' % backend)
    found = _capabilities(host, _usage())
    return wsgi.json_response({
        'namespace': 'OS::Storage::Capabilities::%s' % backend_of(host['name'])
        .split('#')[0], 'vendor_name': VENDOR, 'volume_backend_name':
        found['volume_backend_name'], 'pool_name': '', 'driver_version': '1.0',
        'storage_protocol': found['storage_protocol'], 'display_name': None,
        'description': None, 'visibility': None, 'replication_targets': [],
        'properties': {'thin_provisioning': {
            'title': 'Thin Provisioning', 'description': 'Sets thin provisioning.',
            'type': 'boolean'}}})
