"""Nova's network proxies (2.1 - 2.35): os-tenant-networks (the networks the
caller's project may use) and os-networks (for admins: every network), both
Nova-with-Neutron's shapes of the network service's networks. Networks are made
with the network API (any other method here: 405); every path is 404 from 2.36.
"""

from provisioner.api.compute import hypervisors
from provisioner.api.compute import queries
from provisioner.api import wsgi
from provisioner import exception
from provisioner.network import service as networks

# nova-network's fields; with Neutron Nova fills only id, label and cidr.
_FIELDS = ('cidr', 'netmask', 'gateway', 'broadcast', 'dns1', 'dns2', 'cidr_v6',
           'gateway_v6', 'netmask_v6')
_ADMIN_FIELDS = ('created_at', 'updated_at', 'deleted_at', 'deleted', 'injected',
                 'bridge', 'vlan', 'vpn_public_address', 'vpn_public_port',
                 'vpn_private_address', 'dhcp_start', 'project_id', 'host',
                 'bridge_interface', 'multi_host', 'priority', 'rxtx_base', 'mtu',
                 'dhcp_server', 'enable_dhcp', 'share_address')


def _tenant_view(net):
    return {'id': net['id'], 'label': net['name'], 'cidr': net.get('cidr')}


def _admin_view(net):
    view = dict.fromkeys(_FIELDS + _ADMIN_FIELDS)
    view.update(id=net['id'], label=net['name'], cidr=net.get('cidr'))
    return view


def _show(req, network_id, view):
    queries.removed_at(req, (2, 36))
    try:
        net = networks.show_network(req.context, network_id)
    except exception.NotFound:
        raise wsgi.HTTPError(404, 'Network %s could not be found.' % network_id) \
            from None
    return wsgi.json_response({'network': view(net)})


@wsgi.route('GET', '/v2.1/os-tenant-networks')
def tenant_networks(req):
    queries.removed_at(req, (2, 36))
    return wsgi.json_response({'networks': [
        _tenant_view(n) for n in networks.list_networks(req.context)]})


@wsgi.route('GET', '/v2.1/os-tenant-networks/{network_id}')
def tenant_network(req, network_id):
    return _show(req, network_id, _tenant_view)


@wsgi.route('GET', '/v2.1/os-networks')
def all_networks(req):
    queries.removed_at(req, (2, 36))
    hypervisors.require_admin(req, 'Listing every network through Nova')
    return wsgi.json_response({'networks': [
        _admin_view(n) for n in networks.list_networks(req.context)]})


@wsgi.route('GET', '/v2.1/os-networks/{network_id}')
def network(req, network_id):
    hypervisors.require_admin(req, 'Showing a network through Nova')
    return _show(req, network_id, _admin_view)
