"""Keystone's /v3/domains and /v3/groups (provisioner.identity.domains and
.groups check the policy)."""

from provisioner.api.identity import schemas
from provisioner.api.identity import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.identity import domains
from provisioner.identity import groups


def _domain(req, domain, status=200):
    return wsgi.json_response({'domain': views.domain_view(req, domain)}, status)


@wsgi.route('GET', '/v3/domains')
def list_domains(req):
    found = domains.list_domains(req.context, **views.filters(req, 'name', 'enabled'))
    return views.collection(req, 'domains', [views.domain_view(req, d) for d in found],
                            'domains')


@wsgi.route('POST', '/v3/domains')
@validation.schema(schemas.DOMAIN_CREATE)
def create_domain(req, body):
    body = body['domain']
    return _domain(req, domains.create_domain(req.context, body['name'],
                                              body.get('description'),
                                              body.get('enabled', True)), 201)


@wsgi.route('GET', '/v3/domains/{domain_id}')
def show_domain(req, domain_id):
    return _domain(req, domains.show_domain(req.context, domain_id))


@wsgi.route('PATCH', '/v3/domains/{domain_id}')
@validation.schema(schemas.DOMAIN_UPDATE)
def update_domain(req, domain_id, body):
    changes = {k: v for k, v in body['domain'].items()
               if k in ('name', 'description', 'enabled')}
    return _domain(req, domains.update_domain(req.context, domain_id, changes))


@wsgi.route('DELETE', '/v3/domains/{domain_id}')
def delete_domain(req, domain_id):
    """403 while the domain is enabled; its content goes with it."""
    domains.delete_domain(req.context, domain_id)
    return wsgi.empty_response(204)


# -- groups --------------------------------------------------------------------------

def _group(req, group, status=200):
    return wsgi.json_response({'group': views.group_view(req, group)}, status)


@wsgi.route('GET', '/v3/groups')
def list_groups(req):
    found = groups.list_groups(req.context, **views.filters(req, 'name', 'domain_id'))
    return views.collection(req, 'groups', [views.group_view(req, g) for g in found],
                            'groups')


@wsgi.route('POST', '/v3/groups')
@validation.schema(schemas.GROUP_CREATE)
def create_group(req, body):
    body = body['group']
    return _group(req, groups.create_group(
        req.context, body['name'], body.get('domain_id') or views.DOMAIN_ID,
        body.get('description')), 201)


@wsgi.route('GET', '/v3/groups/{group_id}')
def show_group(req, group_id):
    return _group(req, groups.show_group(req.context, group_id))


@wsgi.route('PATCH', '/v3/groups/{group_id}')
@validation.schema(schemas.GROUP_UPDATE)
def update_group(req, group_id, body):
    changes = {k: v for k, v in body['group'].items() if k in ('name', 'description')}
    if body['group'].get('domain_id') not in (
            None, groups.show_group(req.context, group_id)['domain_id']):
        raise wsgi.HTTPError(400, 'Invalid request: a group cannot move to another '
                                  'domain.')
    return _group(req, groups.update_group(req.context, group_id, changes))


@wsgi.route('DELETE', '/v3/groups/{group_id}')
def delete_group(req, group_id):
    groups.delete_group(req.context, group_id)
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v3/groups/{group_id}/users')
def list_group_users(req, group_id):
    found = groups.list_users(req.context, group_id)
    return views.collection(req, 'users', [views.user_view(req, u) for u in found],
                            'groups', group_id, 'users')


@wsgi.route('PUT', '/v3/groups/{group_id}/users/{user_id}')
def add_group_user(req, group_id, user_id):
    groups.add_user(req.context, group_id, user_id)
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v3/groups/{group_id}/users/{user_id}')
def check_group_user(req, group_id, user_id):
    groups.check_user(req.context, group_id, user_id)
    return wsgi.empty_response(204)


@wsgi.route('DELETE', '/v3/groups/{group_id}/users/{user_id}')
def remove_group_user(req, group_id, user_id):
    groups.remove_user(req.context, group_id, user_id)
    return wsgi.empty_response(204)
