"""Keystone's /v3 projects and users (provisioner.identity.accounts checks the
policy): in any domain, with Keystone's attributes and list filters; a user's
projects, groups and own password change. Deleting a project or a user is
Keystone's: nothing else goes with it.
"""

from provisioner.api.identity import schemas
from provisioner.api.identity import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner import exception
from provisioner.identity import accounts
from provisioner.identity import admin
from provisioner.identity import domains
from provisioner.identity import groups


def _projects(req, projects, *path):
    return views.collection(req, 'projects', [views.project_view(req, p)
                                              for p in projects], *path)


# A domain is also a project "acting as a domain" (is_domain), as in Keystone: the
# project API lists, shows, updates and deletes it as the domain.

# What a project keeps (Keystone's options and free attributes are not).
_PROJECT_KEYS = ('name', 'domain_id', 'description', 'enabled', 'parent_id', 'tags')


def _project(req, project, status=200):
    return wsgi.json_response({'project': views.project_view(req, project)}, status)


def _as_project(domain):
    return dict(domain, domain_id=None, parent_id=None, is_domain=True, tags=[])


def _domain_or_none(req, project_id):
    """The domain of this id, as the project acting as it, or None."""
    try:
        return _as_project(domains.show_domain(req.context, project_id))
    except exception.NotFound:
        return None


@wsgi.route('GET', '/v3/projects')
def list_projects(req):
    filters = views.filters(req, 'name', 'domain_id', 'enabled', 'parent_id')
    if views.bool_param(req, 'is_domain'):
        found = domains.list_domains(req.context, filters['name'], filters['enabled'])
        return _projects(req, [_as_project(d) for d in found], 'projects')
    return _projects(req, accounts.list_projects(req.context, filters), 'projects')


@wsgi.route('GET', '/v3/projects/{project_id}')
def show_project(req, project_id):
    try:
        return _project(req, accounts.show_project(req.context, project_id))
    except exception.NotFound:
        domain = _domain_or_none(req, project_id)
        if domain is None:
            raise
        return _project(req, domain)


@wsgi.route('POST', '/v3/projects')
@validation.schema(schemas.PROJECT_CREATE)
def create_project(req, body):
    values = {k: v for k, v in body['project'].items() if v is not None
              and k in _PROJECT_KEYS + ('is_domain',)}
    if values.pop('is_domain', False):
        domain = domains.create_domain(req.context, values['name'],
                                       values.get('description'),
                                       values.get('enabled', True))
        return _project(req, _as_project(domain), 201)
    if values.get('parent_id') == values.get('domain_id'):
        values.pop('parent_id', None)  # a top project's parent is its domain
    return _project(req, accounts.create_project(req.context, values), 201)


@wsgi.route('PATCH', '/v3/projects/{project_id}')
@validation.schema(schemas.PROJECT_UPDATE)
def update_project(req, project_id, body):
    changes = {k: v for k, v in body['project'].items() if k in _PROJECT_KEYS}
    if _domain_or_none(req, project_id) is not None:
        changes = {k: v for k, v in changes.items()
                   if k in ('name', 'description', 'enabled')}
        return _project(req, _as_project(domains.update_domain(req.context, project_id,
                                                               changes)))
    current = accounts.show_project(req.context, project_id)
    for key in ('domain_id', 'parent_id'):
        if changes.pop(key, None) not in (None, current[key]):
            raise exception.Invalid(reason='%s is immutable' % key)
    return _project(req, accounts.update_project(req.context, project_id, changes))


@wsgi.route('DELETE', '/v3/projects/{project_id}')
def delete_project(req, project_id):
    """204 as Keystone: what the project owns in other services stays, as it was."""
    if _domain_or_none(req, project_id) is not None:
        domains.delete_domain(req.context, project_id)
    else:
        admin.delete_project(req.context, project_id)
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v3/projects/{project_id}/tags')
def list_tags(req, project_id):
    return wsgi.json_response({'tags': accounts.show_project(req.context, project_id)
                               ['tags'] or []})


@wsgi.route('PUT', '/v3/projects/{project_id}/tags')
@validation.schema(schemas.TAGS_UPDATE)
def replace_tags(req, project_id, body):
    project = accounts.update_project(req.context, project_id, {'tags': body['tags']})
    return wsgi.json_response({'tags': project['tags']})


def _tagged(req, project_id, tag, add):
    tags = list(accounts.show_project(req.context, project_id)['tags'] or [])
    if not add and tag not in tags:
        raise exception.NotFound(kind='Tag', name=tag)
    tags = [t for t in tags if t != tag] + ([tag] if add else [])
    return accounts.update_project(req.context, project_id, {'tags': tags})


@wsgi.route('PUT', '/v3/projects/{project_id}/tags/{tag}')
def add_tag(req, project_id, tag):
    _tagged(req, project_id, tag, True)
    return wsgi.empty_response(201)


@wsgi.route('GET', '/v3/projects/{project_id}/tags/{tag}')
def check_tag(req, project_id, tag):
    if tag not in (accounts.show_project(req.context, project_id)['tags'] or []):
        raise exception.NotFound(kind='Tag', name=tag)
    return wsgi.empty_response(204)


@wsgi.route('DELETE', '/v3/projects/{project_id}/tags/{tag}')
def delete_tag(req, project_id, tag):
    _tagged(req, project_id, tag, False)
    return wsgi.empty_response(204)


@wsgi.route('DELETE', '/v3/projects/{project_id}/tags')
def delete_tags(req, project_id):
    accounts.update_project(req.context, project_id, {'tags': []})
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v3/users/{user_id}/projects')
def user_projects(req, user_id):
    return _projects(req, admin.user_projects(req.context, user_id),
                     'users', user_id, 'projects')


# -- users ------------------------------------------------------------------------------

@wsgi.route('GET', '/v3/users')
def list_users(req):
    users = accounts.list_users(req.context, views.filters(req, 'name', 'domain_id',
                                                           'enabled'))
    return views.collection(req, 'users', [views.user_view(req, u) for u in users],
                            'users')


@wsgi.route('GET', '/v3/users/{user_id}')
def show_user(req, user_id):
    return wsgi.json_response({'user': views.user_view(
        req, accounts.show_user(req.context, user_id))})


def _user_values(body):
    values = {k: v for k, v in body['user'].items() if k != 'options'}
    if 'project_id' in values and 'default_project_id' not in values:
        values['default_project_id'] = values['project_id']
    return values


@wsgi.route('POST', '/v3/users')
@validation.schema(schemas.USER_CREATE)
def create_user(req, body):
    user = accounts.create_user(req.context, _user_values(body))
    return wsgi.json_response({'user': views.user_view(req, user)}, 201)


@wsgi.route('PATCH', '/v3/users/{user_id}')
@validation.schema(schemas.USER_UPDATE)
def update_user(req, user_id, body):
    """A new password or a disable ends the user's tokens."""
    user = accounts.update_user(req.context, user_id, _user_values(body))
    return wsgi.json_response({'user': views.user_view(req, user)})


@wsgi.route('DELETE', '/v3/users/{user_id}')
def delete_user(req, user_id):
    """204; the user's tokens end; their servers, volumes and key pairs stay."""
    admin.delete_user(req.context, user_id)
    return wsgi.empty_response(204)


@wsgi.route('POST', '/v3/users/{user_id}/password', public=True)
@validation.schema(schemas.PASSWORD_CHANGE)
def change_password(req, user_id, body):
    """Keystone's: the original password is the authority; 204."""
    accounts.change_password(user_id, body['user']['original_password'],
                             body['user']['password'])
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v3/users/{user_id}/groups')
def user_groups(req, user_id):
    found = groups.user_groups(req.context, user_id)
    return views.collection(req, 'groups', [views.group_view(req, g) for g in found],
                            'users', user_id, 'groups')
