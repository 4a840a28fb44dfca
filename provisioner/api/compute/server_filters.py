"""GET /servers[/detail]'s query: Nova's filters, per microversion and role.

Nova lets a non-admin filter by a few fields (more at 2.5, 2.26, 2.66, 2.73 and
2.83) and silently drops the rest; an admin filters by every field it knows. Up
to 2.74 an unknown parameter is ignored, from 2.75 it is a 400. A status no
server can have answers an empty list, and from 2.38 an unknown status is a 400.
"""

import datetime
import re

from provisioner.api.compute.schemas import servers as schemas
from provisioner.api import wsgi
from provisioner.compute import states

# Nova's status filter, as the vm_states that show as it.
_STATUS_FILTER = {'BUILD': ['building'], 'ACTIVE': ['active'], 'SHUTOFF': ['stopped'],
                  'ERROR': ['error'], 'REBOOT': ['active'],
                  'HARD_REBOOT': ['active', 'stopped']}
_NON_ADMIN = ('reservation_id', 'name', 'status', 'image', 'flavor', 'ip',
              'changes-since', 'all_tenants')
_NON_ADMIN_BY_VERSION = (
    ((2, 5), ('ip6',)), ((2, 26), ('tags', 'tags-any', 'not-tags', 'not-tags-any')),
    ((2, 66), ('changes-before',)), ((2, 73), ('locked',)),
    ((2, 83), ('availability_zone', 'config_drive', 'key_name', 'created_at',
               'launched_at', 'terminated_at', 'power_state', 'task_state',
               'vm_state', 'progress', 'user_id')))
_TAG_FILTERS = (('tags', 'all_of'), ('tags-any', 'any_of'), ('not-tags', 'not_all'),
                ('not-tags-any', 'not_any'))
_FALSE = ('0', 'false', 'no', 'off', 'f', 'n')
_TRUE = ('1', 'true', 'yes', 'on', 't', 'y')


def _known(version):
    if version >= (2, 73):
        return schemas.LIST_PARAMS_V273
    if version >= (2, 66):
        return schemas.LIST_PARAMS_V266
    return schemas.LIST_PARAMS_V226 if version >= (2, 26) else schemas.LIST_PARAMS


def _allowed(req):
    """The parameters this caller may filter by at this version."""
    known = _known(req.api_version)
    if req.context.is_admin:
        return known
    allowed = set(_NON_ADMIN)
    for version, names in _NON_ADMIN_BY_VERSION:
        if req.api_version >= version:
            allowed.update(names)
    return allowed & known


def params(req):
    """{name: value} of the query the caller may use (the last value of each)."""
    known = _known(req.api_version)
    if req.api_version >= (2, 75):
        for name in req.GET:
            if name not in known:
                raise wsgi.HTTPError(400, "Invalid input for query parameters %s. "
                                          "Value: %s. Additional properties are not "
                                          "allowed ('%s' was unexpected)"
                                     % (name, req.GET[name], name))
    allowed = _allowed(req)
    return {name: req.GET[name] for name in req.GET if name in allowed}


def timestamp(name, value):
    try:
        moment = datetime.datetime.fromisoformat(value.replace('Z', '+00:00'))
    except ValueError:
        raise wsgi.HTTPError(400, 'Invalid filter field: %s.' % name) from None
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return moment


def ref_id(value):
    """Nova takes a flavor or image as an id or a URL ending in it."""
    return str(value).rstrip('/').rsplit('/', 1)[-1]


def status_states(req, status):
    """The vm_states of ``status``; None when no server can have it (a 400 at
    2.38 unless Nova knows the status)."""
    status = status.upper()
    if status in _STATUS_FILTER:
        return _STATUS_FILTER[status]
    if req.api_version >= (2, 38) and status not in schemas.STATUSES:
        raise wsgi.HTTPError(400, 'Invalid status value')
    return None


def database_filters(req, query):
    """(all_projects, filters of provisioner.compute.listing) of ``query``."""
    filters = {}
    all_projects = False
    if 'all_tenants' in query:
        all_projects = query['all_tenants'].lower() not in _FALSE
    if req.context.is_admin:
        # As Nova: tenant_id and project_id pick a project of all_tenants only;
        # without it a list is the caller's own project.
        project = query.get('project_id') or query.get('tenant_id')
        if project and all_projects:
            filters['project_id'] = project
        if query.get('host'):
            filters['host'] = query['host']
    else:
        all_projects = False  # a non-admin sees the own project's servers
    for param, key in (('flavor', 'flavor_id'), ('image', 'image_id'),
                       ('key_name', 'key_name'), ('user_id', 'user_id')):
        if query.get(param):
            filters[key] = ref_id(query[param])
    for param in ('changes-since', 'changes-before'):
        if query.get(param):
            filters[param.replace('-', '_')] = timestamp(param, query[param])
    if filters.get('changes_before') and filters.get('changes_since') and \
            filters['changes_before'] < filters['changes_since']:
        raise wsgi.HTTPError(400, 'The value of changes-since must be less than or '
                                  'equal to changes-before.')
    tags = {key: query[param].split(',') for param, key in _TAG_FILTERS
            if query.get(param)}
    if tags:
        filters['tags'] = tags
    if 'locked' in query:
        filters['locked'] = _strict_bool(query['locked'])
    if query.get('vm_state'):
        filters['vm_states'] = [query['vm_state']]
    return all_projects, filters


def _strict_bool(value):
    """oslo's strict bool_from_string, as Nova reads the locked filter."""
    if value.strip().lower() in _TRUE:
        return True
    if value.strip().lower() in _FALSE:
        return False
    raise wsgi.HTTPError(400, "Invalid input received: Unrecognized value '%s', "
                              "acceptable values are: '0', '1', 'f', 'false', 'n', "
                              "'no', 'off', 'on', 't', 'true', 'y', 'yes'" % value)


def _matches(pattern, value):
    """Nova matches its regular-expression filters with re.search."""
    try:
        return re.search(pattern, value or '') is not None
    except re.error:
        return pattern in (value or '')


def _iso(moment):
    return moment.isoformat() if moment else ''


# Nova's other filters, matched on the server records.
_REGEX_FIELDS = {
    'name': lambda s: s['name'], 'reservation_id': lambda s: s['reservation_id'],
    'availability_zone': lambda s: s['availability_zone'] or '',
    'created_at': lambda s: _iso(s['created_at']),
    'launched_at': lambda s: _iso(s['launched_at']),
    'terminated_at': lambda s: '',
    'config_drive': lambda s: 'True' if s['config_drive'] else '',
    'description': lambda s: s['description'] or '',
    'hostname': lambda s: s['hostname'] or '',
}
_EXACT_FIELDS = {
    'task_state': lambda s: s['task_state'] or '',
    'power_state': lambda s: str(states.POWER_STATE_CODES.get(s['power_state'], 0)),
    'progress': lambda s: str({'BUILD': 0}.get(s['status'], 100)),
    'uuid': lambda s: s['id'],
}


def matching(servers, query, status):
    """The ``servers`` that match the filters the database did not apply."""
    for name, field in _REGEX_FIELDS.items():
        if query.get(name):
            servers = [s for s in servers if _matches(query[name], field(s))]
    for name, field in _EXACT_FIELDS.items():
        if query.get(name):
            servers = [s for s in servers if field(s) == query[name]]
    if query.get('ip'):
        servers = [s for s in servers
                   if any(_matches(query['ip'], a['ip']) for a in s['addresses'])]
    if status in ('REBOOT', 'HARD_REBOOT', 'ACTIVE', 'SHUTOFF'):
        servers = [s for s in servers if s['status'] == status]
    return servers
