"""Ports (Neutron's): a fixed IP and a MAC on a network, made before a boot.

Ports made here are unbound until a boot takes one (``--nic port-id=``).
"""

from provisioner.api.network import common
from provisioner.api.network import schemas
from provisioner.api.network import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.network import ports
from provisioner.network import service


def _subnet_ids(req):
    return {n['id']: n['subnet_id'] for n in service.list_networks(req.context)}


def _port(req, port_id, status=200):
    return views.one(req, 'port', views.port_view(ports.show_port(req.context, port_id),
                                                  _subnet_ids(req)), status)


@wsgi.route('GET', '/v2.0/ports')
def list_ports(req):
    subnet_ids = _subnet_ids(req)
    return views.listing(req, 'ports', [views.port_view(p, subnet_ids)
                                        for p in ports.list_ports(req.context)])


@wsgi.route('GET', '/v2.0/ports/{port_id}')
def show_port(req, port_id):
    return _port(req, port_id)


@wsgi.route('POST', '/v2.0/ports')
@validation.schema(schemas.PORT_CREATE)
def create_port(req, body):
    body = body['port']
    if common.project(req, body) not in (None, req.context.project_id):
        raise wsgi.HTTPError(400, 'Invalid input: a port is made in the caller\'s '
                                  'project.')
    port = ports.create_port(req.context, body['network_id'], body.get('name') or '',
                             body.get('fixed_ips'), body.get('mac_address'),
                             description=common.description(body, ''))
    return _port(req, port['id'], 201)


@wsgi.route('PUT', '/v2.0/ports/{port_id}')
@validation.schema(schemas.PORT_UPDATE)
def update_port(req, port_id, body):
    body = body['port']
    ports.update_port(req.context, port_id, common.name_update(body),
                      common.description(body))
    return _port(req, port_id)


@wsgi.route('DELETE', '/v2.0/ports/{port_id}')
def delete_port(req, port_id):
    ports.delete_port(req.context, port_id)
    return wsgi.empty_response(204)
