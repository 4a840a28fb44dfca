"""Floating IPs (Neutron's L3 floatingips): create from an external network,
associate with a port through a router (``port_id``), disassociate (null), list,
show, delete. The records: the NAT is the routers' datapath."""

from provisioner.api.network import common
from provisioner.api.network import schemas
from provisioner.api.network import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.network import floating_ips as service


@wsgi.route('GET', '/v2.0/floatingips')
def list_floating_ips(req):
    return views.listing(req, 'floatingips', [views.floating_ip_view(f) for f in
                                              service.list_floating_ips(req.context)])


@wsgi.route('GET', '/v2.0/floatingips/{fip_id}')
def show_floating_ip(req, fip_id):
    return views.one(req, 'floatingip', views.floating_ip_view(
        service.show_floating_ip(req.context, fip_id)))


@wsgi.route('POST', '/v2.0/floatingips')
@validation.schema(schemas.FLOATINGIP_CREATE)
def create_floating_ip(req, body):
    body = body['floatingip']
    fip = service.create_floating_ip(
        req.context, body['floating_network_id'], project_id=common.project(req, body),
        port_id=body.get('port_id'), fixed_ip_address=body.get('fixed_ip_address'),
        floating_ip_address=body.get('floating_ip_address'),
        subnet_id=body.get('subnet_id'), description=common.description(body, ''))
    return views.one(req, 'floatingip', views.floating_ip_view(fip), 201)


@wsgi.route('PUT', '/v2.0/floatingips/{fip_id}')
@validation.schema(schemas.FLOATINGIP_UPDATE)
def update_floating_ip(req, fip_id, body):
    body = body['floatingip']
    fip = service.update_floating_ip(
        req.context, fip_id, body.get('port_id', service.UNCHANGED),
        body.get('fixed_ip_address'), common.description(body))
    return views.one(req, 'floatingip', views.floating_ip_view(fip))


@wsgi.route('DELETE', '/v2.0/floatingips/{fip_id}')
def delete_floating_ip(req, fip_id):
    service.delete_floating_ip(req.context, fip_id)
    return wsgi.empty_response(204)
