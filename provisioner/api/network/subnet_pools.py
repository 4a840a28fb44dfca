"""Subnet pools (Neutron's subnet_allocation extension): prefixes subnets are carved
from."""

from provisioner.api.network import common
from provisioner.api.network import schemas
from provisioner.api.network import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.network import subnet_pools as service


@wsgi.route('GET', '/v2.0/subnetpools')
def list_pools(req):
    return views.listing(req, 'subnetpools', [views.subnet_pool_view(p) for p in
                                              service.list_pools(req.context)])


@wsgi.route('GET', '/v2.0/subnetpools/{pool_id}')
def show_pool(req, pool_id):
    return views.one(req, 'subnetpool', views.subnet_pool_view(
        service.show_pool(req.context, pool_id)))


@wsgi.route('POST', '/v2.0/subnetpools')
@validation.schema(schemas.SUBNET_POOL_CREATE)
def create_pool(req, body):
    body = body['subnetpool']
    pool = service.create_pool(
        req.context, body['name'], body['prefixes'], common.description(body, ''),
        body.get('min_prefixlen'), body.get('default_prefixlen'),
        body.get('max_prefixlen'), body.get('default_quota'), body.get('shared', False),
        body.get('is_default', False), project_id=common.project(req, body))
    return views.one(req, 'subnetpool', views.subnet_pool_view(pool), 201)


@wsgi.route('PUT', '/v2.0/subnetpools/{pool_id}')
@validation.schema(schemas.SUBNET_POOL_UPDATE)
def update_pool(req, pool_id, body):
    return views.one(req, 'subnetpool', views.subnet_pool_view(
        service.update_pool(req.context, pool_id, body['subnetpool'])))


@wsgi.route('DELETE', '/v2.0/subnetpools/{pool_id}')
def delete_pool(req, pool_id):
    service.delete_pool(req.context, pool_id)
    return wsgi.empty_response(204)
