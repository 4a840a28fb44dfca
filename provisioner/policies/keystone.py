"""Keystone's rules for its v3 resources beyond projects and users, by Keystone's
names: domains and their configuration, groups, roles and their assignments,
regions, services, endpoints and endpoint groups, credentials (EC2 ones too), stored
policies and OAuth 1 consumers. Keystone's defaults, on project scope: the cloud
administrator manages them all; a user lists their own groups and manages their own
credentials; anyone authenticated reads the regions, and a user with a role shows a
domain (Keystone: the domain of their token's project)."""

from oslo_policy import policy

from provisioner.policies import base

_ADMIN_OR_OWNER = 'rule:admin or user_id:%(user_id)s'
_ANYONE = ''

_VERBS = {'create': ('POST', ''), 'get': ('GET', '/{%s_id}'), 'list': ('GET', ''),
          'update': ('PATCH', '/{%s_id}'), 'delete': ('DELETE', '/{%s_id}')}


def _crud(kind, plural, check=base.ADMIN, overrides=None, path=None):
    """The five rules of a resource: identity:create_<kind>, get_, list_<plural>,
    update_, delete_ (its path: /v3/<plural> unless given)."""
    path = path or '/v3/' + plural
    rules = []
    for verb, (method, tail) in _VERBS.items():
        name = 'identity:%s_%s' % (verb, plural if verb == 'list' else kind)
        rules.append(policy.DocumentedRuleDefault(
            name, (overrides or {}).get(verb, check),
            '%s %s.' % (verb.capitalize(), plural if verb == 'list' else 'a ' + kind),
            [{'path': path + (tail % kind if '%' in tail else tail),
              'method': method}]))
    return rules


_GRANT = '/v3/{target}/{target_id}/{actor}/{actor_id}/roles'
_rules = (
    _crud('domain', 'domains', overrides={'get': base.ANY_ROLE})
    + _crud('group', 'groups') + _crud('role', 'roles')
    + _crud('region', 'regions', overrides={'get': _ANYONE, 'list': _ANYONE})
    + _crud('service', 'services') + _crud('endpoint', 'endpoints')
    + _crud('credential', 'credentials', _ADMIN_OR_OWNER, {'list': _ANYONE})
    + _crud('policy', 'policies')
    + _crud('endpoint_group', 'endpoint_groups', path='/v3/OS-EP-FILTER/endpoint_groups')
    + _crud('consumer', 'consumers', path='/v3/OS-OAUTH1/consumers'))
_EC2 = '/v3/users/{user_id}/credentials/OS-EC2'
_CONFIG = '/v3/domains/{domain_id}/config'
_rules += [
    policy.DocumentedRuleDefault('identity:%s_domain_config' % verb, base.ADMIN,
                                 '%s a domain\'s configuration (a group, an option).'
                                 % verb.capitalize(),
                                 [{'path': _CONFIG, 'method': method}])
    for verb, method in (('create', 'PUT'), ('get', 'GET'), ('update', 'PATCH'),
                         ('delete', 'DELETE'))]
_rules += [
    policy.DocumentedRuleDefault('identity:ec2_%s' % verb, _ADMIN_OR_OWNER,
                                 'EC2 credentials: %s (one\'s own, or anyone\'s for an '
                                 'admin).' % verb.replace('_', ' '),
                                 [{'path': _EC2 + tail, 'method': method}])
    for verb, method, tail in (('create_credential', 'POST', ''),
                               ('list_credentials', 'GET', ''),
                               ('get_credential', 'GET', '/{credential_id}'),
                               ('delete_credential', 'DELETE', '/{credential_id}'))]
_rules += [
    policy.DocumentedRuleDefault(name, check, description,
                                 [{'path': path, 'method': method}])
    for name, check, description, method, path in (
        ('identity:add_user_to_group', base.ADMIN, 'Add a user to a group.', 'PUT',
         '/v3/groups/{group_id}/users/{user_id}'),
        ('identity:check_user_in_group', base.ADMIN, 'Check a user is in a group.',
         'HEAD', '/v3/groups/{group_id}/users/{user_id}'),
        ('identity:remove_user_from_group', base.ADMIN, 'Remove a user from a group.',
         'DELETE', '/v3/groups/{group_id}/users/{user_id}'),
        ('identity:list_users_in_group', base.ADMIN, 'List the users of a group.',
         'GET', '/v3/groups/{group_id}/users'),
        ('identity:list_groups_for_user', _ADMIN_OR_OWNER,
         'List the groups of a user (oneself, or anyone for an admin).', 'GET',
         '/v3/users/{user_id}/groups'),
        ('identity:create_implied_role', base.ADMIN, 'Make a role imply another.',
         'PUT', '/v3/roles/{prior_role_id}/implies/{implied_role_id}'),
        ('identity:get_implied_role', base.ADMIN, 'Show a role implication.', 'GET',
         '/v3/roles/{prior_role_id}/implies/{implied_role_id}'),
        ('identity:delete_implied_role', base.ADMIN, 'Delete a role implication.',
         'DELETE', '/v3/roles/{prior_role_id}/implies/{implied_role_id}'),
        ('identity:list_implied_roles', base.ADMIN, 'List role implications.', 'GET',
         '/v3/role_inferences'),
        ('identity:create_grant', base.ADMIN,
         'Give a user or group a role on a project, a domain or the system.', 'PUT',
         _GRANT + '/{role_id}'),
        ('identity:check_grant', base.ADMIN, 'Check a grant.', 'HEAD',
         _GRANT + '/{role_id}'),
        ('identity:revoke_grant', base.ADMIN, 'Take a grant away.', 'DELETE',
         _GRANT + '/{role_id}'),
        ('identity:list_grants', base.ADMIN,
         'List the roles of a user or group on a project, a domain or the system.',
         'GET', _GRANT),
        ('identity:list_role_assignments', base.ADMIN,
         'List role assignments (effective ones too).', 'GET', '/v3/role_assignments'),
    )
]


def list_rules():
    return _rules
