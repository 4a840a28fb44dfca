"""Network v2.0 (a Neutron subset): networks, their one subnet, ports and quotas.

A network belongs to a project (``shared`` ones, and the operator's, serve every
project) and has at most one IPv4 subnet: on each host it is one isolated libvirt
network whose dnsmasq serves one range. A second subnet on a network is refused
(409): make another network for another range. Ports made here are unbound until a
boot takes one (``--nic port-id=``). Routers, floating IPs and security groups do
not exist (isolated networks): their lists are empty.
"""

import sqlalchemy as sa

from provisioner.api import app
from provisioner.api import common
from provisioner.api import network_views as views
from provisioner.api import wsgi
from provisioner.catalog import networks as catalog_networks
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import addressing
from provisioner.network import ports
from provisioner.network import quotas
from provisioner.network import service
from provisioner import policy
from provisioner import validation

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
# What this service takes on create; OSC and openstacksdk send these.
_NETWORK_FIELDS = ('name', 'shared', 'project_id', 'tenant_id', 'description')
_SUBNET_FIELDS = ('name', 'network_id', 'cidr', 'gateway_ip', 'allocation_pools',
                  'enable_dhcp', 'dns_nameservers', 'project_id', 'tenant_id',
                  'description')
_PORT_FIELDS = ('name', 'network_id', 'fixed_ips', 'mac_address', 'project_id',
                'tenant_id', 'description')
_ALWAYS = {'admin_state_up': True, 'ip_version': 4, 'host_routes': [],
           'port_security_enabled': False}

SERVICE = wsgi.Service('network', fault=views.neutron_fault)


def route(method, pattern, public=False):
    def register(handler):
        SERVICE.add(method, pattern, views.typed_errors(handler), public=public)
        return handler
    return register


@route('GET', '/', public=True)
def versions(req):
    return wsgi.json_response({'versions': [
        {'id': 'v2.0', 'status': 'CURRENT',
         'links': [{'rel': 'self',
                    'href': '%s/network/v2.0/' % app.public_base_url(req)}]}]})


@route('GET', '/v2.0')
def resources(req):
    return wsgi.json_response({'resources': [
        {'name': name, 'collection': name + 's',
         'links': [{'rel': 'self', 'href': common.service_url(req, 'v2.0', name + 's')}]}
        for name in ('network', 'subnet', 'port')]})


def _project(req, body):
    """The project a create is for: the caller's, or one an admin names."""
    wanted = body.get('project_id') or body.get('tenant_id')
    if wanted and wanted != req.context.project_id and not req.context.is_admin:
        raise exception.Forbidden(reason='only an admin makes resources of another '
                                         'project')
    return wanted


def _description(body, absent=None):
    """The ``description`` asked for: a string of at most 255 characters, kept
    verbatim; null is ''. Absent: ``absent`` (a create's '', an update's None:
    unchanged). Anything else is refused (400) before anything changes."""
    if 'description' not in body:
        return absent
    if body['description'] is None:
        return ''
    try:
        return validation.description(body['description'])
    except exception.Invalid as exc:
        raise wsgi.HTTPError(400, 'Invalid input for description. Reason: %s.'
                             % exc.kwargs.get('reason', exc)) from None


def _name_update(body):
    """A subnet's or port's new name: None (absent) leaves it; null clears it."""
    if 'name' not in body:
        return None
    return body['name'] or ''


# -- networks ---------------------------------------------------------------------

@route('GET', '/v2.0/networks')
def list_networks(req):
    return views.listing(req, 'networks', [views.network_view(n) for n in
                                           service.list_networks(req.context)])


@route('GET', '/v2.0/networks/{network_id}')
def show_network(req, network_id):
    return views.one(req, 'network', views.network_view(
        service.show_network(req.context, network_id)))


@route('POST', '/v2.0/networks')
def create_network(req):
    body = views.attributes(req.json_body(), 'network', _NETWORK_FIELDS, _ALWAYS)
    project_id = _project(req, body)
    net = service.create_network(req.context, body.get('name') or '',
                                 shared=body.get('shared', False),
                                 project_id=project_id,
                                 description=_description(body, ''))
    return views.one(req, 'network', views.network_view(net), 201)


@route('PUT', '/v2.0/networks/{network_id}')
def update_network(req, network_id):
    body = views.attributes(req.json_body(), 'network', ('name', 'shared', 'description'),
                            _ALWAYS)
    _project(req, body)
    net = service.update_network(req.context, network_id, body.get('name'),
                                 body.get('shared'), description=_description(body))
    return views.one(req, 'network', views.network_view(net))


def _unplug(req):
    """What removes a network from the hosts that have it: all-in-one this process
    is that host; distributed, the hosts' workers."""
    return lambda net: catalog_networks.remove_from_hosts(req.deployment.hypervisor,
                                                          net)


@route('DELETE', '/v2.0/networks/{network_id}')
def delete_network(req, network_id):
    service.delete_network(req.context, network_id, _unplug(req))
    return wsgi.empty_response(204)


# -- subnets (one per network) ------------------------------------------------------

@route('GET', '/v2.0/subnets')
def list_subnets(req):
    return views.listing(req, 'subnets', [views.subnet_view(n) for n in
                                          service.list_subnets(req.context)])


@route('GET', '/v2.0/subnets/{subnet}')
def show_subnet(req, subnet):
    return views.one(req, 'subnet', views.subnet_view(
        service.show_subnet(req.context, subnet)))


@route('POST', '/v2.0/subnets')
def create_subnet(req):
    body = views.attributes(req.json_body(), 'subnet', _SUBNET_FIELDS, _ALWAYS)
    _project(req, body)
    for required in ('network_id', 'cidr'):
        if not body.get(required):
            raise wsgi.HTTPError(400, 'Invalid input: %s is required (this service '
                                      'has no subnet pools).' % required)
    net = service.create_subnet(
        req.context, body['network_id'], body['cidr'], body.get('name') or '',
        body.get('gateway_ip', addressing.DEFAULT), body.get('allocation_pools'),
        body.get('enable_dhcp', True), body.get('dns_nameservers') or [],
        description=_description(body, ''))
    return views.one(req, 'subnet', views.subnet_view(net), 201)


@route('PUT', '/v2.0/subnets/{subnet}')
def update_subnet(req, subnet):
    request_body = req.json_body()
    fixed = sorted(set(request_body.get('subnet') or ()) & set(_SUBNET_FIELDS)
                   - {'name', 'description'})
    if fixed:
        raise wsgi.HTTPError(400, 'Invalid input: %s cannot change once the subnet '
                                  'exists (hosts already serve it); only its name '
                                  'and description can. Delete the subnet and make '
                                  'it again.' % ', '.join(fixed))
    body = views.attributes(request_body, 'subnet', ('name', 'description'))
    _project(req, body)
    return views.one(req, 'subnet', views.subnet_view(
        service.update_subnet(req.context, subnet, _name_update(body),
                              _description(body))))


@route('DELETE', '/v2.0/subnets/{subnet}')
def delete_subnet(req, subnet):
    service.delete_subnet(req.context, subnet, _unplug(req))
    return wsgi.empty_response(204)


# -- ports ----------------------------------------------------------------------------

def _subnet_ids(req):
    return {n['id']: n['subnet_id'] for n in service.list_networks(req.context)}


def _ports(req):
    subnet_ids = _subnet_ids(req)
    return [views.port_view(p, subnet_ids) for p in ports.list_ports(req.context)]


@route('GET', '/v2.0/ports')
def list_ports(req):
    return views.listing(req, 'ports', _ports(req))


def _port(req, port_id, status=200):
    return views.one(req, 'port', views.port_view(ports.show_port(req.context, port_id),
                                                  _subnet_ids(req)), status)


@route('GET', '/v2.0/ports/{port_id}')
def show_port(req, port_id):
    return _port(req, port_id)


@route('POST', '/v2.0/ports')
def create_port(req):
    body = views.attributes(req.json_body(), 'port', _PORT_FIELDS, _ALWAYS)
    if _project(req, body) not in (None, req.context.project_id):
        raise wsgi.HTTPError(400, 'Invalid input: a port is made in the caller\'s '
                                  'project.')
    if not body.get('network_id'):
        raise wsgi.HTTPError(400, 'Invalid input: network_id is required.')
    port = ports.create_port(req.context, body['network_id'], body.get('name') or '',
                             body.get('fixed_ips'), body.get('mac_address'),
                             description=_description(body, ''))
    return _port(req, port['id'], 201)


@route('PUT', '/v2.0/ports/{port_id}')
def update_port(req, port_id):
    body = views.attributes(req.json_body(), 'port', ('name', 'description'))
    _project(req, body)
    ports.update_port(req.context, port_id, _name_update(body), _description(body))
    return _port(req, port_id)


@route('DELETE', '/v2.0/ports/{port_id}')
def delete_port(req, port_id):
    ports.delete_port(req.context, port_id)
    return wsgi.empty_response(204)


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

def _quota_project(req, project_id, action='quota:show'):
    """Another project's quota reads as not found to anyone but an admin."""
    policy.authorize_owned(req.context, action, project_id, 'Project', project_id)


def _quota(project_id):
    """{resource: (limit, used)}: network, subnet, port counted; the rest (routers and
    the like, which do not exist here) unlimited and unused."""
    found = dict.fromkeys(QUOTA_RESOURCES, (-1, 0))
    with db_api.transaction() as session:
        limits = quotas.limits(session, project_id)
        used = quotas.usage(session, project_id)
    found.update({r: (limits[r], used[r]) for r in quotas.RESOURCES})
    return found


@route('GET', '/v2.0/quotas/{project_id}')
def show_quota(req, project_id):
    _quota_project(req, project_id)
    return wsgi.json_response({'quota': {
        resource: limit for resource, (limit, _used) in _quota(project_id).items()}})


@route('GET', '/v2.0/quotas/{project_id}/details')
def show_quota_details(req, project_id):
    _quota_project(req, project_id)
    return wsgi.json_response({'quota': {
        resource: {'limit': limit, 'used': used, 'reserved': 0}
        for resource, (limit, used) in _quota(project_id).items()}})


@route('PUT', '/v2.0/quotas/{project_id}')
def update_quota(req, project_id):
    _quota_project(req, project_id, 'quota:set')
    wanted = req.json_body().get('quota')
    if not isinstance(wanted, dict) or not wanted:
        raise wsgi.HTTPError(400, 'Resource body required: {"quota": {"network": N, '
                                  '"subnet": N, "port": N}}.')
    with db_api.transaction() as session:
        if session.get(models.Project, project_id) is None:
            raise exception.NotFound(kind='Project', name=project_id)
        quotas.set_limits(session, project_id, wanted)
    return show_quota(req, project_id)


@route('DELETE', '/v2.0/quotas/{project_id}')
def reset_quota(req, project_id):
    _quota_project(req, project_id, 'quota:set')
    with db_api.transaction() as session:
        session.execute(sa.delete(models.QuotaLimit).where(
            models.QuotaLimit.project_id == project_id,
            models.QuotaLimit.resource.in_(quotas.RESOURCES)))
    return wsgi.empty_response(204)


def _extension(alias, name, description, updated):
    return {'alias': alias, 'name': name, 'description': description,
            'updated': updated, 'links': []}


@route('GET', '/v2.0/extensions')
def list_extensions(req):
    return wsgi.json_response({'extensions': [_extension(*e) for e in EXTENSIONS]})


@route('GET', '/v2.0/extensions/{alias}')
def show_extension(req, alias):
    for extension in EXTENSIONS:
        if extension[0] == alias:
            return wsgi.json_response({'extension': _extension(*extension)})
    raise exception.NotFound(kind='Extension', name=alias)
