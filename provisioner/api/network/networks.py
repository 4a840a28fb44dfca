"""Networks (Neutron's), and the collections that exist here only empty.

A network belongs to a project (``shared`` ones, and the operator's, serve every
project; external ones, router:external, give routers their gateways and floating
IPs) and has any number of IPv4 subnets, all served by one dnsmasq in its DHCP
namespace.
"""

from provisioner.api.network import common
from provisioner.api.network import schemas
from provisioner.api.network import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.network import service
from provisioner import policy


def _view(req, net):
    """The network; with its segment (Neutron's provider attributes) for admins."""
    found = views.network_view(net)
    if policy.check(req.context, 'network:show:provider',
                    {'project_id': net['project_id']}):
        found.update({'provider:network_type': net['network_type'],
                      'provider:segmentation_id': net['segmentation_id'],
                      'provider:physical_network': net['physical_network']})
    return found


@wsgi.route('GET', '/v2.0/networks')
def list_networks(req):
    return views.listing(req, 'networks', [_view(req, n) for n in
                                           service.list_networks(req.context)])


@wsgi.route('GET', '/v2.0/networks/{network_id}')
def show_network(req, network_id):
    return views.one(req, 'network', _view(
        req, service.show_network(req.context, network_id)))


def _segment(body):
    """The segment the body names ({} when none: the default type's next)."""
    keys = {'provider:network_type': 'network_type',
            'provider:segmentation_id': 'segmentation_id'}
    return {ours: body[theirs] for theirs, ours in keys.items()
            if body.get(theirs) is not None}


def _create(req, body):
    return service.create_network(req.context, body.get('name') or '',
                                  shared=body.get('shared', False),
                                  project_id=common.project(req, body),
                                  description=common.description(body, ''),
                                  segment=_segment(body),
                                  external=body.get('router:external', False))


@wsgi.route('POST', '/v2.0/networks')
def create_network(req):
    """One network, or Neutron's bulk create: all of them or none."""
    bodies, bulk = common.creates(req, 'network', schemas.NETWORK_CREATE)
    made = common.all_or_nothing(
        bodies, lambda body: _create(req, body),
        lambda net: service.delete_network(req.context, net['id'], common.unplug(req)))
    return common.created(req, 'network', [_view(req, n) for n in made], bulk)


@wsgi.route('PUT', '/v2.0/networks/{network_id}')
@validation.schema(schemas.NETWORK_UPDATE)
def update_network(req, network_id, body):
    body = body['network']
    net = service.update_network(req.context, network_id, body.get('name'),
                                 body.get('shared'),
                                 description=common.description(body),
                                 external=body.get('router:external'))
    return views.one(req, 'network', _view(req, net))


@wsgi.route('DELETE', '/v2.0/networks/{network_id}')
def delete_network(req, network_id):
    service.delete_network(req.context, network_id, common.unplug(req))
    return wsgi.empty_response(204)
