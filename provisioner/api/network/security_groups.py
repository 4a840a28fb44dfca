"""Security groups and their rules (Neutron's security-group extension).

Recorded for the ports that carry them; no host enforces them yet.
"""

from provisioner.api.network import common
from provisioner.api.network import schemas
from provisioner.api.network import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.network import security_groups as service


@wsgi.route('GET', '/v2.0/security-groups')
def list_security_groups(req):
    return views.listing(req, 'security_groups', [
        views.security_group_view(g) for g in service.list_groups(req.context)])


@wsgi.route('GET', '/v2.0/security-groups/{group_id}')
def show_security_group(req, group_id):
    return views.one(req, 'security_group', views.security_group_view(
        service.show_group(req.context, group_id)))


@wsgi.route('POST', '/v2.0/security-groups')
@validation.schema(schemas.SECURITY_GROUP_CREATE)
def create_security_group(req, body):
    body = body['security_group']
    group = service.create_group(req.context, body.get('name') or '',
                                 common.description(body, ''),
                                 project_id=common.project(req, body))
    return views.one(req, 'security_group', views.security_group_view(group), 201)


@wsgi.route('PUT', '/v2.0/security-groups/{group_id}')
@validation.schema(schemas.SECURITY_GROUP_UPDATE)
def update_security_group(req, group_id, body):
    body = body['security_group']
    group = service.update_group(req.context, group_id, common.name_update(body),
                                 common.description(body))
    return views.one(req, 'security_group', views.security_group_view(group))


@wsgi.route('DELETE', '/v2.0/security-groups/{group_id}')
def delete_security_group(req, group_id):
    service.delete_group(req.context, group_id)
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v2.0/security-group-rules')
def list_security_group_rules(req):
    return views.listing(req, 'security_group_rules', [
        views.security_group_rule_view(r) for r in service.list_rules(req.context)])


@wsgi.route('GET', '/v2.0/security-group-rules/{rule_id}')
def show_security_group_rule(req, rule_id):
    return views.one(req, 'security_group_rule', views.security_group_rule_view(
        service.show_rule(req.context, rule_id)))


@wsgi.route('POST', '/v2.0/security-group-rules')
@validation.schema(schemas.SECURITY_GROUP_RULE_CREATE)
def create_security_group_rule(req, body):
    body = body['security_group_rule']
    common.project(req, body)
    rule = service.create_rule(req.context, body)
    common.sync_filters(req, group_ids=[rule['security_group_id']])
    return views.one(req, 'security_group_rule',
                     views.security_group_rule_view(rule), 201)


@wsgi.route('DELETE', '/v2.0/security-group-rules/{rule_id}')
def delete_security_group_rule(req, rule_id):
    group_id = service.delete_rule(req.context, rule_id)
    common.sync_filters(req, group_ids=[group_id])
    return wsgi.empty_response(204)
