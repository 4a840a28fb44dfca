"""Subnets (Neutron's), any number per network, no two of one network overlapping
(400; two networks may share a range).

A subnet's CIDR is given, or carved from a subnet pool (``subnetpool_id``,
``prefixlen``, ``use_default_subnetpool``). Its addressing changes only while no port
uses it (hosts carry it then).
"""

from provisioner.api.network import common
from provisioner.api.network import schemas
from provisioner.api.network import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.network import addressing
from provisioner.network import service
from provisioner.network import subnet_pools


@wsgi.route('GET', '/v2.0/subnets')
def list_subnets(req):
    return views.listing(req, 'subnets', [views.subnet_view(n) for n in
                                          service.list_subnets(req.context)])


@wsgi.route('GET', '/v2.0/subnets/{subnet}')
def show_subnet(req, subnet):
    return views.one(req, 'subnet', views.subnet_view(
        service.show_subnet(req.context, subnet)))


def _allocator(req, body):
    """What carves the subnet's CIDR from a subnet pool, if the body asks for one;
    Neutron's 400 when it gives neither a CIDR nor a pool."""
    pool_id = body.get('subnetpool_id')
    if pool_id is None and not body.get('use_default_subnetpool'):
        if not body.get('cidr'):
            raise wsgi.HTTPError(400, 'Bad subnets request: a subnetpool must be '
                                      'specified in the absence of a cidr.')
        return None
    return lambda project_id: subnet_pools.allocate(
        req.context, project_id, pool_id, body.get('prefixlen'), body.get('cidr'))


def _create(req, body):
    common.project(req, body)
    return service.create_subnet(
        req.context, body['network_id'], body.get('cidr'), body.get('name') or '',
        body.get('gateway_ip', addressing.DEFAULT), body.get('allocation_pools'),
        body.get('enable_dhcp', True), body.get('dns_nameservers') or [],
        description=common.description(body, ''),
        host_routes=body.get('host_routes') or [], allocate=_allocator(req, body))


@wsgi.route('POST', '/v2.0/subnets')
def create_subnet(req):
    """One subnet, or Neutron's bulk create: all of them or none."""
    bodies, bulk = common.creates(req, 'subnet', schemas.SUBNET_CREATE)
    made = common.all_or_nothing(
        bodies, lambda body: _create(req, body),
        lambda net: service.delete_subnet(req.context, net['subnet_id'],
                                          common.unplug(req)))
    return common.created(req, 'subnet', [views.subnet_view(n) for n in made], bulk)


@wsgi.route('PUT', '/v2.0/subnets/{subnet}')
@validation.schema(schemas.SUBNET_UPDATE)
def update_subnet(req, subnet, body):
    body = body['subnet']
    changes = {k: body[k] for k in service.ADDRESSING if k in body}
    for key in ('dns_nameservers', 'host_routes'):
        if key in changes and changes[key] is None:
            changes[key] = []
    return views.one(req, 'subnet', views.subnet_view(
        service.update_subnet(req.context, subnet, common.name_update(body),
                              common.description(body), changes,
                              common.unplug(req))))


@wsgi.route('DELETE', '/v2.0/subnets/{subnet}')
def delete_subnet(req, subnet):
    service.delete_subnet(req.context, subnet, common.unplug(req))
    return wsgi.empty_response(204)
