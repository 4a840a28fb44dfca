"""os-instance-actions: the requests made on a server and the steps each one ran.

An action's events are the steps of the flow that carried it out, so
``openstack server event show SERVER REQUEST_ID`` is the boot's step-by-step
timeline: each step's start, finish and result (a revert is its own event,
named ``<step> (revert)``).
"""

from provisioner.api.compute.servers import compute
from provisioner.api.compute.views import instance_actions as views
from provisioner.api import wsgi


@wsgi.route('GET', '/v2.1/servers/{server_id}/os-instance-actions')
def index(req, server_id):
    found = compute(req).actions(server_id)
    return wsgi.json_response({'instanceActions': [views.action(a) for a in found]})


@wsgi.route('GET', '/v2.1/servers/{server_id}/os-instance-actions/{request_id}')
def show(req, server_id, request_id):
    found = compute(req).action(server_id, request_id)
    return wsgi.json_response({'instanceAction': views.detail(req, found)})
