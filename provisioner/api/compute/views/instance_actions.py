"""Nova's instance action and event shapes (2.1: no updated_at, links or hostId).

An action's events are the steps of the flow that carried it out; the failure
message of a step is the event's ``traceback``, shown to admins only, as Nova
shows tracebacks only to them.
"""

from provisioner.api import common


def action(found):
    return {'action': found['action'], 'instance_uuid': found['instance_id'],
            'request_id': found['request_id'], 'user_id': found['user_id'],
            'project_id': found['project_id'],
            'start_time': common.object_time(found['start_time']),
            'message': found['message']}


def detail(req, found):
    view = action(found)
    view['events'] = [{'event': e['event'],
                       'start_time': common.object_time(e['start_time']),
                       'finish_time': common.object_time(e['finish_time']),
                       'result': e['result'],
                       'traceback': e['message'] if req.context.is_admin else None}
                      for e in found['events']]
    return view
