"""Nova's os-simple-tenant-usage: every project's usage for admins, one project's
for its members (provisioner.compute.usage counts it). ``start`` and ``end`` are
UTC times (now when left out; an end in the future is now); ``detailed=1`` lists
each server in the list of every project (one project's usage always does). From
2.40 ``limit`` and ``marker`` page over the servers.
"""

import datetime

from provisioner.api.compute import hypervisors
from provisioner.api.compute import queries
from provisioner.api import urls
from provisioner.api import wsgi
from provisioner.compute import usage
from provisioner.conf import CONF
from provisioner import exception

_FORMATS = ('%Y-%m-%dT%H:%M:%S', '%Y-%m-%dT%H:%M:%S.%f', '%Y-%m-%d %H:%M:%S.%f')


def _moment(text, now):
    if not text:
        return now
    for form in _FORMATS:
        try:
            return datetime.datetime.strptime(text, form).replace(
                tzinfo=datetime.timezone.utc)
        except ValueError:
            continue
    raise wsgi.HTTPError(400, 'Invalid input for query parameters: Datetime is in '
                              'invalid format')


def _period(req):
    start = _moment(req.GET.get('start'), datetime.datetime.now(datetime.timezone.utc))
    now = datetime.datetime.now(datetime.timezone.utc)  # Nova's: a later "now"
    stop = _moment(req.GET.get('end'), now)
    if not start < stop:
        raise wsgi.HTTPError(400, 'Invalid start time. The start time cannot occur '
                                  'after the end time.')
    return start, min(stop, now)


def _time(moment):
    return None if moment is None else moment.replace(tzinfo=None).isoformat()


def _shown(summary):
    view = dict(summary, start=_time(summary['start']), stop=_time(summary['stop']))
    if 'server_usages' in view:
        view['server_usages'] = [dict(s, started_at=_time(s['started_at']),
                                      ended_at=_time(s['ended_at']))
                                 for s in view['server_usages']]
    return view


def _usages(req, project_id=None, detailed=None):
    queries.check(req, ('start', 'end', 'detailed', 'limit', 'marker')
                  if req.api_version >= (2, 40) else ('start', 'end', 'detailed'))
    start, stop = _period(req)
    limit, marker = CONF.api.max_limit, None
    if req.api_version >= (2, 40):
        limit = min(req.int_param('limit', minimum=0) or limit, limit)
        marker = req.GET.get('marker')
    try:
        summaries, servers = usage.tenant_usages(
            start, stop, project_id,
            detailed=req.GET.get('detailed') == '1' if detailed is None else detailed,
            limit=limit, marker=marker)
    except exception.Invalid as exc:
        raise wsgi.HTTPError(400, exc.kwargs.get('reason', str(exc))) from None
    links = None
    if req.api_version >= (2, 40) and servers and len(servers) == limit:
        links = urls.next_link(req, req.path_info.strip('/').split('/'),
                               servers[-1]['instance_id'])
    return [_shown(s) for s in summaries], links


@wsgi.route('GET', '/v2.1/os-simple-tenant-usage')
def index(req):
    if req.path_info.endswith('/'):  # Nova's route of an empty project id
        return show(req, '')
    hypervisors.require_admin(req, "Every project's usage")
    summaries, links = _usages(req)
    body = {'tenant_usages': summaries}
    if links:
        body['tenant_usages_links'] = links
    return wsgi.json_response(body)


@wsgi.route('GET', '/v2.1/os-simple-tenant-usage/{tenant_id}')
def show(req, tenant_id):
    if tenant_id != req.context.project_id:
        hypervisors.require_admin(req, "Another project's usage")
    summaries, links = _usages(req, tenant_id, detailed=True)  # Nova's show lists all
    body = {'tenant_usage': summaries[0] if summaries else {}}
    if links:
        body['tenant_usage_links'] = links
    return wsgi.json_response(body)
