"""Routers (Neutron's router extension, with ext-gw-mode, extraroute and
extraroute-atomic), recorded: forwarding and NAT are the routers' datapath."""

from provisioner.api.network import common
from provisioner.api.network import schemas
from provisioner.api.network import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.network import routers as service


@wsgi.route('GET', '/v2.0/routers')
def list_routers(req):
    return views.listing(req, 'routers', [views.router_view(r) for r in
                                          service.list_routers(req.context)])


@wsgi.route('GET', '/v2.0/routers/{router_id}')
def show_router(req, router_id):
    return views.one(req, 'router', views.router_view(
        service.show_router(req.context, router_id)))


@wsgi.route('POST', '/v2.0/routers')
@validation.schema(schemas.ROUTER_CREATE)
def create_router(req, body):
    body = body['router']
    router = service.create_router(
        req.context, body.get('name') or '', common.description(body, ''),
        body.get('admin_state_up', True), body.get('external_gateway_info'),
        project_id=common.project(req, body))
    return views.one(req, 'router', views.router_view(router), 201)


@wsgi.route('PUT', '/v2.0/routers/{router_id}')
@validation.schema(schemas.ROUTER_UPDATE)
def update_router(req, router_id, body):
    body = body['router']
    router = service.update_router(req.context, router_id, common.name_update(body),
                                   common.description(body), body.get('admin_state_up'),
                                   body.get('external_gateway_info', service.UNCHANGED),
                                   body.get('routes', service.UNCHANGED))
    return views.one(req, 'router', views.router_view(router))


@wsgi.route('PUT', '/v2.0/routers/{router_id}/add_extraroutes')
@validation.schema(schemas.ROUTER_ROUTES)
def add_extraroutes(req, router_id, body):
    return views.one(req, 'router', views.router_view(service.change_routes(
        req.context, router_id, body['router']['routes'], add=True)))


@wsgi.route('PUT', '/v2.0/routers/{router_id}/remove_extraroutes')
@validation.schema(schemas.ROUTER_ROUTES)
def remove_extraroutes(req, router_id, body):
    return views.one(req, 'router', views.router_view(service.change_routes(
        req.context, router_id, body['router']['routes'], add=False)))


@wsgi.route('DELETE', '/v2.0/routers/{router_id}')
def delete_router(req, router_id):
    service.delete_router(req.context, router_id)
    return wsgi.empty_response(204)


def _interface(found):
    """Neutron's answer to an interface change: the router, port and subnet."""
    return wsgi.json_response(dict(found, tenant_id=found['project_id']))


@wsgi.route('PUT', '/v2.0/routers/{router_id}/add_router_interface')
@validation.schema(schemas.ROUTER_INTERFACE)
def add_router_interface(req, router_id, body):
    return _interface(service.add_interface(req.context, router_id,
                                            body.get('subnet_id'), body.get('port_id')))


@wsgi.route('PUT', '/v2.0/routers/{router_id}/remove_router_interface')
@validation.schema(schemas.ROUTER_INTERFACE)
def remove_router_interface(req, router_id, body):
    return _interface(service.remove_interface(
        req.context, router_id, body.get('subnet_id'), body.get('port_id')))
