"""Keystone's /v3/roles, implied roles, grants (a role for a user or a group on a
project, a domain or the system) and /v3/role_assignments; provisioner.identity's
roles and grants check the policy."""

from provisioner.api.identity import schemas
from provisioner.api.identity import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.identity import grants
from provisioner.identity import roles


def _role(req, role, status=200):
    return wsgi.json_response({'role': views.role_view(req, role)}, status)


@wsgi.route('GET', '/v3/roles')
def list_roles(req):
    found = roles.list_roles(req.context, **views.filters(req, 'name', 'domain_id'))
    return views.collection(req, 'roles', [views.role_view(req, r) for r in found],
                            'roles')


@wsgi.route('POST', '/v3/roles')
@validation.schema(schemas.ROLE_CREATE)
def create_role(req, body):
    body = body['role']
    return _role(req, roles.create_role(req.context, body['name'], body.get('domain_id'),
                                        body.get('description')), 201)


@wsgi.route('GET', '/v3/roles/{role_id}')
def show_role(req, role_id):
    return _role(req, roles.show_role(req.context, role_id))


@wsgi.route('PATCH', '/v3/roles/{role_id}')
@validation.schema(schemas.ROLE_UPDATE)
def update_role(req, role_id, body):
    changes = {k: v for k, v in body['role'].items() if k in ('name', 'description')}
    return _role(req, roles.update_role(req.context, role_id, changes))


@wsgi.route('DELETE', '/v3/roles/{role_id}')
def delete_role(req, role_id):
    roles.delete_role(req.context, role_id)
    return wsgi.empty_response(204)


# -- implied roles ----------------------------------------------------------------------

def _inference(req, prior, implied):
    return {'role_inference': {'prior_role': views.role_ref(req, prior),
                               'implies': views.role_ref(req, implied)},
            'links': {'self': views.url(req, 'roles', prior['id'], 'implies',
                                        implied['id'])}}


@wsgi.route('PUT', '/v3/roles/{prior_id}/implies/{implied_id}')
def create_implied_role(req, prior_id, implied_id):
    prior, implied = roles.create_implied_role(req.context, prior_id, implied_id)
    return wsgi.json_response(_inference(req, prior, implied), 201)


@wsgi.route('GET', '/v3/roles/{prior_id}/implies/{implied_id}')
def show_implied_role(req, prior_id, implied_id):
    """GET: the rule; HEAD: 204 if it exists."""
    prior, implied = roles.show_implied_role(req.context, prior_id, implied_id)
    if req.method == 'HEAD':
        return wsgi.empty_response(204)
    return wsgi.json_response(_inference(req, prior, implied))


@wsgi.route('DELETE', '/v3/roles/{prior_id}/implies/{implied_id}')
def delete_implied_role(req, prior_id, implied_id):
    roles.delete_implied_role(req.context, prior_id, implied_id)
    return wsgi.empty_response(204)


def _rule(req, prior, implied):
    return {'prior_role': views.role_ref(req, prior),
            'implies': [views.role_ref(req, r) for r in implied]}


@wsgi.route('GET', '/v3/roles/{prior_id}/implies')
def list_implied_roles(req, prior_id):
    [(prior, implied)] = roles.list_implied_roles(req.context, prior_id)
    return wsgi.json_response({'role_inference': _rule(req, prior, implied),
                               'links': {'self': views.url(req, 'roles', prior_id,
                                                           'implies')}})


@wsgi.route('GET', '/v3/role_inferences')
def list_role_inferences(req):
    return wsgi.json_response({
        'role_inferences': [_rule(req, p, i)
                            for p, i in roles.list_implied_roles(req.context)],
        'links': {'self': views.url(req, 'role_inferences')}})


# -- grants ----------------------------------------------------------------------------

_TARGETS = {'projects': 'project', 'domains': 'domain'}
_ACTORS = {'users': 'user', 'groups': 'group'}


def _parts(targets, target_id, actors, actor_id):
    """(actor type, actor id, target type, target id) of a grant's path; 404 for a
    path of none."""
    if targets not in _TARGETS or actors not in _ACTORS:
        raise wsgi.HTTPError(404, 'The resource could not be found.')
    return _ACTORS[actors], actor_id, _TARGETS[targets], target_id


def _granted(req, parts, role_id):
    if req.method == 'PUT':
        grants.grant(req.context, *parts, role_id)
    elif req.method == 'DELETE':
        grants.revoke_grant(req.context, *parts, role_id)
    else:  # GET or HEAD
        grants.check_grant(req.context, *parts, role_id)
    return wsgi.empty_response(204)


def _listed(req, parts, *path):
    found = grants.list_grants(req.context, *parts)
    return views.collection(req, 'roles', [views.role_view(req, r) for r in found], *path)


_GRANT = '/v3/{targets}/{target_id}/{actors}/{actor_id}/roles/{role_id}'
_SYSTEM_GRANT = '/v3/system/{actors}/{actor_id}/roles/{role_id}'


@wsgi.route('PUT', _GRANT)
@wsgi.route('GET', _GRANT)
@wsgi.route('DELETE', _GRANT)
def grant(req, targets, target_id, actors, actor_id, role_id):
    """PUT grants, GET/HEAD checks, DELETE revokes: 204 each."""
    return _granted(req, _parts(targets, target_id, actors, actor_id), role_id)


def _system(actors, actor_id):
    return _parts('domains', grants.SYSTEM, actors, actor_id)[:2] + ('system',
                                                                     grants.SYSTEM)


@wsgi.route('PUT', _SYSTEM_GRANT)
@wsgi.route('GET', _SYSTEM_GRANT)
@wsgi.route('DELETE', _SYSTEM_GRANT)
def system_grant(req, actors, actor_id, role_id):
    return _granted(req, _system(actors, actor_id), role_id)


_INHERITED = '/v3/OS-INHERIT/{targets}/{target_id}/{actors}/{actor_id}/roles'


@wsgi.route('PUT', _INHERITED + '/{role_id}/inherited_to_projects')
@wsgi.route('GET', _INHERITED + '/{role_id}/inherited_to_projects')
@wsgi.route('DELETE', _INHERITED + '/{role_id}/inherited_to_projects')
def inherited_grant(req, targets, target_id, actors, actor_id, role_id):
    """OS-INHERIT: a role on a domain's projects, or on those under a project."""
    actor_type, actor_id, target_type, target_id = _parts(targets, target_id, actors,
                                                          actor_id)
    return _granted(req, (actor_type, actor_id, grants.INHERITED[target_type],
                          target_id), role_id)


@wsgi.route('GET', _INHERITED + '/inherited_to_projects')
def list_inherited_grants(req, targets, target_id, actors, actor_id):
    actor_type, actor_id, target_type, target_id = _parts(targets, target_id, actors,
                                                          actor_id)
    return _listed(req, (actor_type, actor_id, grants.INHERITED[target_type], target_id),
                   'OS-INHERIT', targets, target_id, actors, actor_id, 'roles',
                   'inherited_to_projects')


@wsgi.route('GET', '/v3/{targets}/{target_id}/{actors}/{actor_id}/roles')
def list_grants(req, targets, target_id, actors, actor_id):
    return _listed(req, _parts(targets, target_id, actors, actor_id), targets, target_id,
                   actors, actor_id, 'roles')


@wsgi.route('GET', '/v3/system/{actors}/{actor_id}/roles')
def list_system_grants(req, actors, actor_id):
    return _listed(req, _system(actors, actor_id), 'system', actors, actor_id, 'roles')


# -- role assignments -------------------------------------------------------------------

def _plural(kind):
    return kind + 's'


def _path(actor_type, actor_id, target_type, target_id, role_id):
    """The grant's URL path under /v3 (OS-INHERIT's for an inherited one)."""
    if target_type == 'system':
        return ('system', _plural(actor_type), actor_id, 'roles', role_id)
    path = (_plural(target_type.lstrip('i')), target_id, _plural(actor_type), actor_id,
            'roles', role_id)
    if target_type in ('idomain', 'iproject'):
        return ('OS-INHERIT',) + path + ('inherited_to_projects',)
    return path


def assignment_view(req, assignment, names=None):
    """Keystone's: {role, user|group, scope, links}, with names when asked."""
    a = assignment
    role = {'id': a['role_id']}
    actor = {'id': a['actor_id']}
    kind = a['target_type'].lstrip('i') if a['target_type'] != 'system' else 'system'
    scope = ({'system': {'all': True}} if kind == 'system'
             else {kind: {'id': a['target_id']}})
    if kind != a['target_type']:
        scope['OS-INHERIT:inherited_to'] = 'projects'
    source = a.get('inherited_from') or (a['target_type'], a['target_id'])
    links = {'assignment': views.url(req, *_path(
        'group' if 'group_id' in a else a['actor_type'],
        a.get('group_id', a['actor_id']), source[0], source[1],
        a.get('prior_role_id', a['role_id'])))}
    if 'group_id' in a:
        links['membership'] = views.url(req, 'groups', a['group_id'], 'users',
                                        a['actor_id'])
    if 'prior_role_id' in a:
        links['prior_role'] = views.url(req, 'roles', a['prior_role_id'])
    if names:
        def domain(named):
            return {'id': named.get('domain_id'), 'name': named.get('domain_name')}
        role['name'] = names.get('role', {}).get('name')
        if names.get('role', {}).get('domain_id'):
            role['domain'] = domain(names['role'])
        actor['name'] = names.get('actor', {}).get('name')
        actor['domain'] = domain(names.get('actor', {}))
        if 'target' in names:
            scope[kind]['name'] = names['target']['name']
            if kind == 'project':
                scope[kind]['domain'] = domain(names['target'])
    return {'role': role, a['actor_type']: actor, 'scope': scope, 'links': links}


@wsgi.route('GET', '/v3/role_assignments')
def list_role_assignments(req):
    """Keystone's filters: user.id, group.id, role.id, scope.project.id,
    scope.domain.id, scope.system; effective; include_names."""
    query = req.GET
    filters = {'user_id': query.get('user.id'), 'group_id': query.get('group.id'),
               'role_id': query.get('role.id'),
               'project_id': query.get('scope.project.id'),
               'domain_id': query.get('scope.domain.id'),
               'system': query.get('scope.system')}
    found = grants.role_assignments(req.context, filters,
                                    effective=views.bool_param(req, 'effective'))
    names = (grants.named(found) if views.bool_param(req, 'include_names')
             else [None] * len(found))
    return views.collection(req, 'role_assignments',
                            [assignment_view(req, a, n) for a, n in zip(found, names)],
                            'role_assignments')
