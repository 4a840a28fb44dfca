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


_SECURITY = {'security_groups', 'port_security_enabled', 'allowed_address_pairs'}


def _subnet_ids(req):
    """{network id: [(CIDR, subnet id)]} of the networks the caller sees."""
    return {n['id']: [(s['cidr'], s['id']) for s in n['subnets']]
            for n in service.list_networks(req.context)}


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


def _spec(req, body):
    if common.project(req, body) not in (None, req.context.project_id):
        raise wsgi.HTTPError(400, 'Invalid input: a port is made in the caller\'s '
                                  'project.')
    return dict(body, description=common.description(body, ''))


@wsgi.route('POST', '/v2.0/ports')
def create_port(req):
    """One port, or Neutron's bulk create: all of them or none."""
    bodies, bulk = common.creates(req, 'port', schemas.PORT_CREATE)
    made = ports.create_ports(req.context, [_spec(req, body) for body in bodies])
    subnet_ids = _subnet_ids(req)
    return common.created(req, 'port', [
        views.port_view(ports.show_port(req.context, port_id), subnet_ids)
        for port_id in made], bulk)


@wsgi.route('PUT', '/v2.0/ports/{port_id}')
@validation.schema(schemas.PORT_UPDATE)
def update_port(req, port_id, body):
    body = body['port']
    held = ports.show_port(req.context, port_id)['security_groups']
    ports.update_port(req.context, port_id, common.name_update(body),
                      common.description(body), body.get('admin_state_up'),
                      body.get('security_groups'), body.get('port_security_enabled'),
                      body.get('allowed_address_pairs'), body.get('fixed_ips'))
    if _SECURITY.intersection(body):  # its filter, and its old groups' members
        common.sync_filters(req, port_ids=[port_id], group_ids=held)
    return _port(req, port_id)


@wsgi.route('DELETE', '/v2.0/ports/{port_id}')
def delete_port(req, port_id):
    ports.delete_port(req.context, port_id)
    return wsgi.empty_response(204)
