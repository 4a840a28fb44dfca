"""Nova's os-server-password: GET answers the encrypted password the server's guest
posted to the metadata service ("" when none); DELETE clears it (204)."""

from provisioner.api.compute.servers import compute
from provisioner.api import wsgi


@wsgi.route('GET', '/v2.1/servers/{server_id}/os-server-password')
def show_password(req, server_id):
    api = compute(req)
    return wsgi.json_response({'password': api.password(
        api.server_record(server_id)['id'])})


@wsgi.route('DELETE', '/v2.1/servers/{server_id}/os-server-password')
def clear_password(req, server_id):
    api = compute(req)
    api.clear_password(api.server_record(server_id)['id'])
    return wsgi.empty_response(204)
