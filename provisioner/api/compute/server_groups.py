"""Server groups (Nova's os-server-groups).

A group has exactly one policy: affinity or anti-affinity, and from 2.15
soft-affinity or soft-anti-affinity (the scheduler then prefers, or avoids, the
hosts of the group's members, and fails no boot for it); from 2.64 anti-affinity
may allow ``max_server_per_host`` members per host. Its members are the ids of its
live servers. Names repeat, as in Nova. The shapes per version are
views/server_groups.py's.
"""

from provisioner.api.compute import queries
from provisioner.api.compute.schemas import server_groups as schemas
from provisioner.api.compute.views import server_groups as views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.compute import server_groups
from provisioner.conf import CONF
from provisioner import exception
from provisioner import policy
from provisioner.quota import limits


def _views(req, groups):
    members = server_groups.member_ids([g['id'] for g in groups])
    return [views.server_group(req, g, members[g['id']]) for g in groups]


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
    queries.check(req, ('all_projects', 'limit', 'offset'))
    # As Nova: all_projects (any value) widens the list for admins only.
    all_projects = ('all_projects' in req.GET
                    and policy.check(req.context, 'instance:list:all_projects'))
    offset, limit = _offset_and_limit(req)
    groups = server_groups.list_all(req.context, all_projects=all_projects)
    return wsgi.json_response({'server_groups': _views(req, groups[offset:offset + limit])})


@wsgi.route('GET', '/v2.1/os-server-groups/{group_id}')
def show(req, group_id):
    return wsgi.json_response({'server_group': _views(req, [_find(req, group_id)])[0]})


@wsgi.route('POST', '/v2.1/os-server-groups')
@validation.schema(schemas.CREATE, '2.1', '2.14')
@validation.schema(schemas.CREATE_V215, '2.15', '2.63')
@validation.schema(schemas.CREATE_V264, '2.64')
def create(req, body):
    spec = body['server_group']
    if len(server_groups.list_all(req.context)) >= limits.SERVER_GROUPS:
        raise wsgi.HTTPError(403, 'Quota exceeded, too many server groups.')
    group_policy = spec['policy'] if 'policy' in spec else spec['policies'][0]
    per_host = spec.get('rules', {}).get('max_server_per_host')
    if spec.get('rules') and group_policy != 'anti-affinity':
        raise wsgi.HTTPError(400, 'Only anti-affinity policy supports rules.')
    group = server_groups.create(req.context, spec['name'], group_policy,
                                 None if per_host is None else int(per_host))
    return wsgi.json_response({'server_group': _views(req, [group])[0]})


@wsgi.route('DELETE', '/v2.1/os-server-groups/{group_id}')
def delete(req, group_id):
    server_groups.delete(req.context, _find(req, group_id)['id'])
    return wsgi.empty_response(204)
