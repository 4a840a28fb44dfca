"""os-instance-actions: the requests made on a server and the steps each one ran.

An action's events are the steps of the flow that carried it out, so
``openstack server event show SERVER REQUEST_ID`` is the boot's step-by-step
timeline: each step's start, finish and result (a revert is its own event,
named ``<step> (revert)``). The failure message of a step is the event's
``traceback`` for admins, as Nova shows tracebacks only to them.
"""

from provisioner.api.compute.servers import compute
from provisioner.api.compute.service import SERVICE
from provisioner.api import wsgi


def _time(moment):
    # Nova serialises action and event times without a zone: 2018-04-25T01:26:29.000000
    return None if moment is None else moment.strftime('%Y-%m-%dT%H:%M:%S.%f')


def _action_view(action):
    return {'action': action['action'], 'instance_uuid': action['instance_id'],
            'request_id': action['request_id'], 'user_id': action['user_id'],
            'project_id': action['project_id'],
            'start_time': _time(action['start_time']), 'message': action['message']}


@SERVICE.route('GET', '/v2.1/servers/{server_id}/os-instance-actions')
def index(req, server_id):
    found = compute(req).actions(server_id)
    return wsgi.json_response({'instanceActions': [_action_view(a) for a in found]})


@SERVICE.route('GET', '/v2.1/servers/{server_id}/os-instance-actions/{request_id}')
def show(req, server_id, request_id):
    action = compute(req).action(server_id, request_id)
    view = _action_view(action)
    view['events'] = [{'event': e['event'], 'start_time': _time(e['start_time']),
                       'finish_time': _time(e['finish_time']), 'result': e['result'],
                       'traceback': e['message'] if req.context.is_admin else None}
                      for e in action['events']]
    return wsgi.json_response({'instanceAction': view})
