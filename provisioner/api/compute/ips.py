"""A server's addresses by network (Nova's ips controller: GET /servers/{id}/ips)."""

from provisioner.api.compute.servers import compute
from provisioner.api.compute.views import servers as views
from provisioner.api import wsgi
from provisioner import exception


@wsgi.route('GET', '/v2.1/servers/{server_id}/ips')
def index(req, server_id):
    server = compute(req).server_record(server_id)
    return wsgi.json_response({'addresses': views.addresses(server)})


@wsgi.route('GET', '/v2.1/servers/{server_id}/ips/{network_label}')
def show(req, server_id, network_label):
    addresses = views.addresses(compute(req).server_record(server_id))
    if network_label not in addresses:
        raise exception.NotFound('Instance is not a member of specified network',
                                 kind='Network', name=network_label)
    return wsgi.json_response({network_label: addresses[network_label]})
