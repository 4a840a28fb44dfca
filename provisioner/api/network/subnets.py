"""Subnets (Neutron's), one per network.

A second subnet on a network is refused (409): make another network for another
range. A subnet's addressing is fixed once made (hosts carry it already): only its
name and description change.
"""

from provisioner.api.network import common
from provisioner.api.network import schemas
from provisioner.api.network import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.network import addressing
from provisioner.network import service


@wsgi.route('GET', '/v2.0/subnets')
def list_subnets(req):
    return views.listing(req, 'subnets', [views.subnet_view(n) for n in
                                          service.list_subnets(req.context)])


@wsgi.route('GET', '/v2.0/subnets/{subnet}')
def show_subnet(req, subnet):
    return views.one(req, 'subnet', views.subnet_view(
        service.show_subnet(req.context, subnet)))


@wsgi.route('POST', '/v2.0/subnets')
@validation.schema(schemas.SUBNET_CREATE)
def create_subnet(req, body):
    body = body['subnet']
    common.project(req, body)
    net = service.create_subnet(
        req.context, body['network_id'], body['cidr'], body.get('name') or '',
        body.get('gateway_ip', addressing.DEFAULT), body.get('allocation_pools'),
        body.get('enable_dhcp', True), body.get('dns_nameservers') or [],
        description=common.description(body, ''))
    return views.one(req, 'subnet', views.subnet_view(net), 201)


@wsgi.route('PUT', '/v2.0/subnets/{subnet}')
@validation.schema(schemas.SUBNET_UPDATE)
def update_subnet(req, subnet, body):
    body = body['subnet']
    return views.one(req, 'subnet', views.subnet_view(
        service.update_subnet(req.context, subnet, common.name_update(body),
                              common.description(body))))


@wsgi.route('DELETE', '/v2.0/subnets/{subnet}')
def delete_subnet(req, subnet):
    service.delete_subnet(req.context, subnet, common.unplug(req))
    return wsgi.empty_response(204)
