"""os-instance-actions: the requests made on a server and the steps each one ran.

An action's events are the steps of the flow that carried it out, so
``openstack server event show SERVER REQUEST_ID`` is the boot's step-by-step
timeline: each step's start, finish and result (a revert is its own event,
named ``<step> (revert)``).

Before 2.21 a deleted server's actions are a 404; from 2.58 the list pages
(``limit``, ``marker`` a request id) and filters by ``changes-since`` and
``changes-before`` (on the action's updated_at). The shapes per version are
views/instance_actions.py's.
"""

from oslo_utils import timeutils

from provisioner.api import common
from provisioner.api.compute import queries
from provisioner.api.compute.servers import compute
from provisioner.api.compute.views import instance_actions as views
from provisioner.api import urls
from provisioner.api import wsgi

_QUERY = ('limit', 'marker', 'changes-since', 'changes-before')


def _server(req, server_id):
    """Before 2.21 a deleted server has no actions to show (404, as Nova's)."""
    if req.api_version < (2, 21):
        compute(req).server_record(server_id)


def _time(req, name):
    value = req.GET.get(name)
    if value is None:
        return None
    try:
        return timeutils.normalize_time(timeutils.parse_isotime(value))
    except ValueError:
        raise wsgi.HTTPError(400, 'Invalid input for query parameters %s. Value: %s. '
                                  "'%s' is not a 'date-time'" % (name, value, value)
                             ) from None


def _filtered(req, found):
    since, before = _time(req, 'changes-since'), _time(req, 'changes-before')
    if since and before and before < since:
        raise wsgi.HTTPError(400, 'The value of changes-since must be less than or '
                                  'equal to changes-before.')
    return [a for a in found
            if (since is None or views.updated_at(a) >= since)
            and (before is None or views.updated_at(a) <= before)]


@wsgi.route('GET', '/v2.1/servers/{server_id}/os-instance-actions')
def index(req, server_id):
    _server(req, server_id)
    queries.check(req, _QUERY if req.api_version >= (2, 58) else ())
    found = compute(req).actions(server_id)
    if req.api_version < (2, 58):
        return wsgi.json_response({'instanceActions': [views.action(req, a)
                                                       for a in found]})
    shown, more = common.page(req, _filtered(req, found), key='request_id')
    body = {'instanceActions': [views.action(req, a) for a in shown]}
    if more:
        body['links'] = urls.next_link(req, req.path_info.strip('/').split('/'),
                                       shown[-1]['request_id'])
    return wsgi.json_response(body)


@wsgi.route('GET', '/v2.1/servers/{server_id}/os-instance-actions/{request_id}')
def show(req, server_id, request_id):
    _server(req, server_id)
    found = compute(req).action(server_id, request_id)
    return wsgi.json_response({'instanceAction': views.detail(req, found)})
