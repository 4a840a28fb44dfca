"""Network v2.0 (a read-only Neutron subset) over provisioner's networks.

A provisioner network is a shared, admin-made network with exactly one IPv4
subnet: its CIDR, gateway and DHCP range. Neutron keeps the subnet as a resource
of its own, so it is served with a stable id derived from the network's
(``subnet_id``). Networks have no owner project (``project_id`` null) and no
network quotas (every limit -1, unlimited).
"""

import uuid

import sqlalchemy as sa

from provisioner.api import app
from provisioner.api import common
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import ipam
from provisioner import policy

_SUBNET_NAMESPACE = uuid.UUID('0b8a4d1e-7c6f-4e8e-9a9d-3f1c2b5e6a70')
MTU = 1500  # libvirt's default for the bridges it makes
NEUTRON_TYPES = {400: 'HTTPBadRequest', 401: 'HTTPUnauthorized', 403: 'HTTPForbidden',
                 404: 'HTTPNotFound', 405: 'HTTPMethodNotAllowed', 409: 'HTTPConflict',
                 413: 'HTTPRequestEntityTooLarge', 501: 'HTTPNotImplemented',
                 503: 'HTTPServiceUnavailable'}
QUOTA_RESOURCES = ('network', 'subnet', 'port', 'router', 'floatingip', 'security_group',
                   'security_group_rule', 'rbac_policy', 'subnetpool')
EXTENSIONS = (
    ('quotas', 'Quota management support',
     'Expose functions for quotas management per project', '2012-07-29T10:00:00-00:00'),
    ('quota_details', 'Quota details management support',
     'Expose functions for quotas usage statistics per project',
     '2017-02-10T10:00:00-00:00'),
    ('net-mtu', 'Network MTU', 'Provides MTU attribute for a network resource.',
     '2015-03-25T10:00:00-00:00'),
    ('external-net', 'Neutron external network',
     'Adds external network attribute to network resource.',
     '2013-01-14T10:00:00-00:00'),
)
# Query parameters that are not attribute filters.
_NOT_FILTERS = ('fields', 'limit', 'marker', 'page_reverse', 'sort_key', 'sort_dir')


def neutron_fault(status, message):
    """Neutron's error body: {"NeutronError": {"type", "message", "detail"}}."""
    return {'NeutronError': {'type': NEUTRON_TYPES.get(status, 'HTTPError'),
                             'message': message, 'detail': ''}}


SERVICE = wsgi.Service('network', fault=neutron_fault)


@SERVICE.route('GET', '/', public=True)
def versions(req):
    return wsgi.json_response({'versions': [
        {'id': 'v2.0', 'status': 'CURRENT',
         'links': [{'rel': 'self',
                    'href': '%s/network/v2.0/' % app.public_base_url(req)}]}]})


@SERVICE.route('GET', '/v2.0')
def resources(req):
    return wsgi.json_response({'resources': [
        {'name': name, 'collection': name + 's',
         'links': [{'rel': 'self', 'href': common.service_url(req, 'v2.0', name + 's')}]}
        for name in ('network', 'subnet', 'port')]})


def subnet_id(network_id):
    """The id of a network's one subnet: derived, so it is the same on every call."""
    return str(uuid.uuid5(_SUBNET_NAMESPACE, network_id))


def _common(row):
    created = common.isotime(row['created_at'])
    return {'project_id': None, 'tenant_id': None, 'description': '', 'tags': [],
            'created_at': created, 'updated_at': created, 'revision_number': 0}


def network_view(row):
    return dict(_common(row), **{
        'id': row['id'], 'name': row['name'], 'admin_state_up': True, 'status': 'ACTIVE',
        'subnets': [subnet_id(row['id'])], 'shared': True, 'router:external': False,
        'mtu': MTU, 'port_security_enabled': False, 'availability_zones': ['nova'],
        'availability_zone_hints': [], 'ipv4_address_scope': None,
        'ipv6_address_scope': None, 'is_default': False, 'l2_adjacency': True})


def subnet_view(row):
    return dict(_common(row), **{
        'id': subnet_id(row['id']), 'name': row['name'], 'network_id': row['id'],
        'cidr': row['cidr'], 'ip_version': 4, 'gateway_ip': row['gateway'],
        'enable_dhcp': True,
        'allocation_pools': [{'start': row['dhcp_start'], 'end': row['dhcp_end']}],
        'dns_nameservers': [], 'host_routes': [], 'ipv6_address_mode': None,
        'ipv6_ra_mode': None, 'subnetpool_id': None, 'segment_id': None,
        'service_types': []})


def _networks(req):
    return catalog_api.CatalogAPI(req.context, None).list('network')


def _as_text(value):
    return str(value).lower() if isinstance(value, bool) else str(value)


def _filtered(req, items):
    """Neutron's attribute filters: ?name=a&name=b matches either; unknown ones pass."""
    for key in set(req.GET.keys()) - set(_NOT_FILTERS):
        wanted = {v.lower() if v.lower() in ('true', 'false') else v
                  for v in req.GET.getall(key)}
        items = [i for i in items if key not in i or _as_text(i[key]) in wanted]
    return items


def _listing(req, collection, items):
    """The page, with the ``fields`` asked for and a ``<collection>_links`` next link."""
    shown, more = common.page(req, _filtered(req, items))
    fields = req.GET.getall('fields')
    if fields:
        shown = [{k: v for k, v in item.items() if k in fields} for item in shown]
    body = {collection: shown}
    if more and shown and 'id' in shown[-1]:
        body[collection + '_links'] = common.next_link(req, ['v2.0', collection],
                                                       shown[-1]['id'])
    return wsgi.json_response(body)


def _one(req, key, item):
    fields = req.GET.getall('fields')
    if fields:
        item = {k: v for k, v in item.items() if k in fields}
    return wsgi.json_response({key: item})


@SERVICE.route('GET', '/v2.0/networks')
def list_networks(req):
    return _listing(req, 'networks', [network_view(row) for row in _networks(req)])


@SERVICE.route('GET', '/v2.0/networks/{network_id}')
def show_network(req, network_id):
    row = catalog_api.CatalogAPI(req.context, None).show('network', network_id)
    if row['id'] != network_id:  # a name: 404, so clients go on to ?name=
        raise exception.NotFound(kind='Network', name=network_id)
    return _one(req, 'network', network_view(row))


@SERVICE.route('GET', '/v2.0/subnets')
def list_subnets(req):
    return _listing(req, 'subnets', [subnet_view(row) for row in _networks(req)])


@SERVICE.route('GET', '/v2.0/subnets/{subnet}')
def show_subnet(req, subnet):
    for row in _networks(req):
        if subnet_id(row['id']) == subnet:
            return _one(req, 'subnet', subnet_view(row))
    raise exception.NotFound(kind='Subnet', name=subnet)


# -- ports (read-only: a boot allocates them) and what isolated networks lack ---------

def port_view(port):
    return dict(_common(port), **{
        'id': port['id'], 'name': '', 'network_id': port['network_id'],
        'mac_address': port['mac'], 'admin_state_up': True, 'status': 'ACTIVE',
        'device_id': port['instance_id'], 'device_owner': 'compute:nova',
        'fixed_ips': [{'subnet_id': subnet_id(port['network_id']),
                       'ip_address': port['ip']}],
        'project_id': port['project_id'], 'tenant_id': port['project_id'],
        'security_groups': [], 'allowed_address_pairs': [], 'extra_dhcp_opts': [],
        'port_security_enabled': False, 'dns_name': '', 'dns_assignment': [],
        'binding:host_id': port['host'] or '', 'binding:vif_type': 'bridge',
        'binding:vnic_type': 'normal'})


def _ports(req):
    policy.authorize(req.context, 'network:list')
    project = None if req.context.is_admin else req.context.project_id
    return [port_view(p) for p in ipam.list_ports(project)]


@SERVICE.route('GET', '/v2.0/ports')
def list_ports(req):
    return _listing(req, 'ports', _ports(req))


@SERVICE.route('GET', '/v2.0/ports/{port_id}')
def show_port(req, port_id):
    for port in _ports(req):
        if port['id'] == port_id:
            return _one(req, 'port', port)
    raise exception.NotFound(kind='Port', name=port_id)


def _none_here(collection):
    """Guest networks are isolated: no routers, floating IPs or security groups. The
    lists exist (empty) because clients such as openstacksdk look them up."""
    def handler(req):
        policy.authorize(req.context, 'network:list')
        return wsgi.json_response({collection.replace('-', '_'): []})
    return handler


for _collection in ('routers', 'floatingips', 'security-groups'):
    SERVICE.add('GET', '/v2.0/' + _collection, _none_here(_collection))


# -- quotas and extensions ------------------------------------------------------------

def _ports_used(project_id):
    with db_api.transaction() as session:
        return session.execute(
            sa.select(sa.func.count()).select_from(models.Port)
            .join(models.Instance, models.Instance.id == models.Port.instance_id)
            .where(models.Instance.project_id == project_id)).scalar()


def _quota_project(req, project_id):
    """Another project's quota reads as not found to anyone but an admin."""
    policy.authorize_owned(req.context, 'quota:show', project_id, 'Project', project_id)


@SERVICE.route('GET', '/v2.0/quotas/{project_id}')
def show_quota(req, project_id):
    _quota_project(req, project_id)
    return wsgi.json_response({'quota': dict.fromkeys(QUOTA_RESOURCES, -1)})


@SERVICE.route('GET', '/v2.0/quotas/{project_id}/details')
def show_quota_details(req, project_id):
    _quota_project(req, project_id)
    used = dict.fromkeys(QUOTA_RESOURCES, 0)
    used['port'] = _ports_used(project_id)
    return wsgi.json_response({'quota': {
        resource: {'limit': -1, 'used': used[resource], 'reserved': 0}
        for resource in QUOTA_RESOURCES}})


def _extension(alias, name, description, updated):
    return {'alias': alias, 'name': name, 'description': description,
            'updated': updated, 'links': []}


@SERVICE.route('GET', '/v2.0/extensions')
def list_extensions(req):
    return wsgi.json_response({'extensions': [_extension(*e) for e in EXTENSIONS]})


@SERVICE.route('GET', '/v2.0/extensions/{alias}')
def show_extension(req, alias):
    for extension in EXTENSIONS:
        if extension[0] == alias:
            return wsgi.json_response({'extension': _extension(*extension)})
    raise exception.NotFound(kind='Extension', name=alias)
