"""Keystone's /v3 domains, projects, users, roles and role assignments.

What ``openstack project create/list/show``, ``user create/list/show/set`` and
``role add/remove/list``, ``role assignment list`` call; each handler is a thin
layer over provisioner.identity.admin, which checks the policy. Keystone's
attributes provisioner does not keep (descriptions, e-mail, a default project) are
accepted and not stored; a request that needs what provisioner cannot do (a
disabled or nested project, renaming a user) is a 400 that says so, and another
domain is not found (404). Deleting a project or a user is Keystone's: nothing
else goes with it.
"""

from provisioner.api.identity import schemas
from provisioner.api.identity import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner import exception
from provisioner.identity import admin
from provisioner.identity import service as identity
from provisioner import policy

def _bool_param(req, name):
    """A boolean query filter (?enabled=true) as True/False, or None if absent."""
    value = req.GET.get(name)
    if value is None:
        return None
    return value.lower() not in ('0', 'false', 'no', 'off', 'f', 'n')


def _keystone_filters(items, req):
    """Keystone's list filters every /v3 list here accepts: domain_id and enabled."""
    if req.GET.get('domain_id') not in (None, views.DOMAIN_ID):
        return []
    enabled = _bool_param(req, 'enabled')
    if enabled is not None:
        items = [i for i in items if i.get('enabled', True) == enabled]
    return items


# -- domains: the one Default ---------------------------------------------------------

def _in_default_domain(ref):
    """A create may name the Default domain (or none); another is not found."""
    if ref.get('domain_id') not in (None, views.DOMAIN_ID):
        raise exception.NotFound(kind='Domain', name=ref['domain_id'])


@wsgi.route('GET', '/v3/domains')
def list_domains(req):
    name = req.GET.get('name')
    domains = [views.domain_view(req)] if name in (None, views.DOMAIN_NAME) else []
    return views.collection(req, 'domains', domains, 'domains')


@wsgi.route('GET', '/v3/domains/{domain_id}')
def show_domain(req, domain_id):
    if domain_id != views.DOMAIN_ID:
        raise exception.NotFound(kind='Domain', name=domain_id)
    return wsgi.json_response({'domain': views.domain_view(req)})


# -- projects ---------------------------------------------------------------------------

@wsgi.route('GET', '/v3/projects')
def list_projects(req):
    projects = admin.list_projects(req.context, req.GET.get('name'))
    projects = _keystone_filters(projects, req)
    return views.collection(req, 'projects', [views.project_view(req, p) for p in projects],
                           'projects')


@wsgi.route('GET', '/v3/projects/{project_id}')
def show_project(req, project_id):
    project = admin.show_project(req.context, project_id)
    return wsgi.json_response({'project': views.project_view(req, project)})


@wsgi.route('POST', '/v3/projects')
@validation.schema(schemas.PROJECT_CREATE)
def create_project(req, body):
    _in_default_domain(body['project'])
    project = admin.create_project(req.context, body['project']['name'])
    return wsgi.json_response({'project': views.project_view(req, project)}, 201)


@wsgi.route('DELETE', '/v3/projects/{project_id}')
def delete_project(req, project_id):
    """204 as Keystone: what the project owns in other services stays, as it was."""
    admin.delete_project(req.context, project_id)
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v3/users/{user_id}/projects')
def user_projects(req, user_id):
    projects = admin.user_projects(req.context, user_id)
    return views.collection(req, 'projects', [views.project_view(req, p) for p in projects],
                           'users', user_id, 'projects')


# -- users ------------------------------------------------------------------------------

@wsgi.route('GET', '/v3/users')
def list_users(req):
    users = _keystone_filters(admin.list_users(req.context, req.GET.get('name')), req)
    return views.collection(req, 'users', [views.user_view(req, u) for u in users], 'users')


@wsgi.route('GET', '/v3/users/{user_id}')
def show_user(req, user_id):
    return wsgi.json_response({'user': views.user_view(
        req, admin.show_user(req.context, user_id))})


@wsgi.route('POST', '/v3/users')
@validation.schema(schemas.USER_CREATE)
def create_user(req, body):
    body = body['user']
    _in_default_domain(body)
    user = admin.create_user(req.context, body['name'], body['password'])
    if body.get('enabled') is False:
        user = admin.disable_user(req.context, user['name'])
    return wsgi.json_response({'user': views.user_view(req, user)}, 201)


@wsgi.route('PATCH', '/v3/users/{user_id}')
@validation.schema(schemas.USER_UPDATE)
def update_user(req, user_id, body):
    """Set a password, enable or disable: what ``openstack user set`` sends."""
    body = body['user']
    user = admin.show_user(req.context, user_id)
    if body.get('name') not in (None, user['name']):
        raise exception.Invalid(reason='provisioner users cannot be renamed')
    if 'password' in body:
        user = admin.set_password(req.context, user['name'], body['password'])
    if body.get('enabled') is False:
        user = admin.disable_user(req.context, user['name'])
    elif body.get('enabled') is True:
        user = admin.enable_user(req.context, user['name'])
    return wsgi.json_response({'user': views.user_view(req, user)})


@wsgi.route('DELETE', '/v3/users/{user_id}')
def delete_user(req, user_id):
    """204; the user's tokens end; their servers, volumes and key pairs stay."""
    admin.delete_user(req.context, user_id)
    return wsgi.empty_response(204)


# -- roles and their assignments ---------------------------------------------------------

def _role(role_id):
    if role_id not in identity.ROLES:
        raise exception.NotFound(kind='Role', name=role_id)
    return role_id


@wsgi.route('GET', '/v3/roles')
def list_roles(req):
    policy.authorize(req.context, 'identity:role_list')
    name = req.GET.get('name')
    roles = [r for r in identity.ROLES if name in (None, r)]
    return views.collection(req, 'roles', [views.role_view(req, r) for r in roles], 'roles')


@wsgi.route('GET', '/v3/roles/{role_id}')
def show_role(req, role_id):
    policy.authorize(req.context, 'identity:role_list')
    return wsgi.json_response({'role': views.role_view(req, _role(role_id))})


def _names(req, project_id, user_id):
    """(user name, project name) of ids, for the name-based admin functions."""
    project = admin.show_project(req.context, project_id)
    user = admin.show_user(req.context, user_id)
    return user['name'], project['name']


@wsgi.route('PUT', '/v3/projects/{project_id}/users/{user_id}/roles/{role_id}')
def add_role(req, project_id, user_id, role_id):
    user_name, project_name = _names(req, project_id, user_id)
    admin.add_role(req.context, user_name, project_name, _role(role_id))
    return wsgi.empty_response(204)


@wsgi.route('DELETE', '/v3/projects/{project_id}/users/{user_id}/roles/{role_id}')
def remove_role(req, project_id, user_id, role_id):
    user_name, project_name = _names(req, project_id, user_id)
    admin.remove_role(req.context, user_name, project_name, _role(role_id))
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v3/projects/{project_id}/users/{user_id}/roles/{role_id}')
def check_role(req, project_id, user_id, role_id):
    if not admin.list_role_assignments(req.context, user_id, project_id, _role(role_id)):
        raise exception.NotFound(kind='Role assignment', name='%s of user %s in project '
                                                             '%s' % (role_id, user_id,
                                                                     project_id))
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v3/projects/{project_id}/users/{user_id}/roles')
def project_user_roles(req, project_id, user_id):
    found = admin.list_role_assignments(req.context, user_id, project_id)
    return views.collection(req, 'roles', [views.role_view(req, a['role']) for a in found],
                           'projects', project_id, 'users', user_id, 'roles')


@wsgi.route('GET', '/v3/role_assignments')
def list_role_assignments(req):
    """Keystone's filters: user.id, scope.project.id, role.id; include_names."""
    query = req.GET
    if query.get('group.id') or query.get('scope.domain.id') or \
            query.get('scope.system'):
        found = []  # provisioner has no groups, domain or system assignments
    else:
        found = admin.list_role_assignments(req.context, query.get('user.id'),
                                            query.get('scope.project.id'),
                                            query.get('role.id'))
    names = _bool_param(req, 'include_names') or False  # "?include_names": True
    return views.collection(req, 'role_assignments',
                           [views.assignment_view(req, a, names) for a in found],
                           'role_assignments')
