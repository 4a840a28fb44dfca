"""Server groups (Nova's os-server-groups) at 2.1 - 2.12.

A group has exactly one policy, affinity or anti-affinity (the soft ones arrive in
Nova at 2.15); its members are the ids of its live servers. ``project_id`` and
``user_id`` join the view only at 2.13, so they are not shown here.
"""

from provisioner.api.compute.schemas import server_groups as schemas
from provisioner.api.compute.views import server_groups as views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.compute import server_groups
from provisioner.conf import CONF
from provisioner import exception
from provisioner import policy
from provisioner.quota import limits

def _views(groups):
    members = server_groups.member_ids([g['id'] for g in groups])
    return [views.server_group(g, members[g['id']]) for g in groups]


def _find(req, group_id):
    """The group with this id (names are not ids: 404, as in Nova)."""
    try:
        group = server_groups.show(req.context, group_id)
    except exception.NotFound:
        group = None
    if group is None or group['id'] != group_id:
        raise wsgi.HTTPError(404, 'Instance group %s could not be found.' % group_id)
    return group


def _offset_and_limit(req):
    """Nova's common.limited: offset and limit, each a whole number (limit > 0)."""
    try:
        offset = int(req.GET.get('offset', 0))
    except ValueError:
        raise wsgi.HTTPError(400, 'offset param must be an integer') from None
    try:
        limit = int(req.GET.get('limit', CONF.api.max_limit))
    except ValueError:
        raise wsgi.HTTPError(400, 'limit param must be an integer') from None
    if offset < 0:
        raise wsgi.HTTPError(400, 'offset param must be positive')
    if limit < 0:
        raise wsgi.HTTPError(400, 'limit param must be positive')
    return offset, min(limit or CONF.api.max_limit, CONF.api.max_limit)


@wsgi.route('GET', '/v2.1/os-server-groups')
def index(req):
    # As Nova: all_projects (any value) widens the list for admins only.
    all_projects = ('all_projects' in req.GET
                    and policy.check(req.context, 'instance:list:all_projects'))
    offset, limit = _offset_and_limit(req)
    groups = server_groups.list_all(req.context, all_projects=all_projects)
    return wsgi.json_response({'server_groups': _views(groups[offset:offset + limit])})


@wsgi.route('GET', '/v2.1/os-server-groups/{group_id}')
def show(req, group_id):
    return wsgi.json_response({'server_group': _views([_find(req, group_id)])[0]})


@wsgi.route('POST', '/v2.1/os-server-groups')
@validation.schema(schemas.CREATE)
def create(req, body):
    spec = body['server_group']
    if len(server_groups.list_all(req.context)) >= limits.SERVER_GROUPS:
        raise wsgi.HTTPError(403, 'Quota exceeded, too many server groups.')
    group = server_groups.create(req.context, spec['name'], spec['policies'][0])
    return wsgi.json_response({'server_group': _views([group])[0]})


@wsgi.route('DELETE', '/v2.1/os-server-groups/{group_id}')
def delete(req, group_id):
    server_groups.delete(req.context, _find(req, group_id)['id'])
    return wsgi.empty_response(204)
