"""Nova's instance action and event shapes per microversion.

An action's events are the steps of the flow that carried it out. Admins see the
events with each step's failure message as ``traceback`` (and, from 2.62, the
``host``; from 2.84 the failure as ``details``); the others see the events from
2.51 only, without those. 2.58 adds the action's ``updated_at``, 2.62 the
events' ``hostId``.
"""

from provisioner.api import common
from provisioner.api.compute.views import servers as server_views


def updated_at(found):
    """Nova's: the last time one of the action's events started or finished."""
    return found.get('finish_time') or found['start_time']


def action(req, found):
    view = {'action': found['action'], 'instance_uuid': found['instance_id'],
            'request_id': found['request_id'], 'user_id': found['user_id'],
            'project_id': found['project_id'],
            'start_time': common.object_time(found['start_time']),
            'message': found['message']}
    if req.api_version >= (2, 58):
        view['updated_at'] = common.object_time(updated_at(found))
    return view


def _event(req, event, project_id, is_admin):
    view = {'event': event['event'],
            'start_time': common.object_time(event['start_time']),
            'finish_time': common.object_time(event['finish_time']),
            'result': event['result']}
    if is_admin:
        view['traceback'] = event['message']
        if req.api_version >= (2, 62):
            view['host'] = event.get('host')
    if req.api_version >= (2, 62):
        view['hostId'] = server_views.host_id(project_id, event.get('host'))
    if is_admin and req.api_version >= (2, 84):
        view['details'] = event['message'] if event['result'] == 'Error' else None
    return view


def detail(req, found):
    view = action(req, found)
    is_admin = req.context.is_admin
    if is_admin or req.api_version >= (2, 51):
        view['events'] = [_event(req, e, found['project_id'], is_admin)
                          for e in found['events']]
    return view
