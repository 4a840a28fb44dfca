"""Rules for users, projects and role assignments."""

from oslo_policy import policy

from provisioner.policies import base

_rules = [
    policy.DocumentedRuleDefault(name, base.ADMIN, description, base.cli(command))
    for name, description, command in (
        ('identity:user_create', 'Create a user.', 'user create'),
        ('identity:user_update', 'Change a user\'s password or disable it.',
         'user set-password|disable'),
        ('identity:project_create', 'Create a project.', 'project create'),
        ('identity:role_add', 'Give a user a role in a project.', 'role add'),
    )
]

_ADMIN_OR_SELF = 'rule:admin or user_id:%(user_id)s'

# Actions only provisioner-api's Keystone routes (/identity/v3) offer.
_rules += [
    policy.DocumentedRuleDefault(name, check, description,
                                 [{'path': path, 'method': method}])
    for name, check, description, method, path in (
        ('identity:project_list', base.ADMIN, 'List projects.', 'GET', '/v3/projects'),
        ('identity:project_show', 'rule:admin or project_id:%(project_id)s',
         'Show a project: one\'s own, or any for an admin.', 'GET',
         '/v3/projects/{project_id}'),
        ('identity:user_list', base.ADMIN, 'List users.', 'GET', '/v3/users'),
        ('identity:user_show', _ADMIN_OR_SELF,
         'Show a user: oneself, or anyone for an admin.', 'GET', '/v3/users/{user_id}'),
        ('identity:user_projects', _ADMIN_OR_SELF,
         'List the projects a user has a role in.', 'GET',
         '/v3/users/{user_id}/projects'),
        ('identity:role_remove', base.ADMIN,
         'Take a role in a project away from a user.', 'DELETE',
         '/v3/projects/{project_id}/users/{user_id}/roles/{role_id}'),
        ('identity:project_update', base.ADMIN,
         'Rename, describe, enable or disable, tag a project.', 'PATCH',
         '/v3/projects/{project_id}'),
        ('identity:token_validate', _ADMIN_OR_SELF,
         'Validate a token: one\'s own, or anyone\'s for an admin.', 'GET',
         '/v3/auth/tokens'),
        ('identity:token_revoke', _ADMIN_OR_SELF,
         'Revoke a token: one\'s own, or anyone\'s for an admin.', 'DELETE',
         '/v3/auth/tokens'),
        ('identity:project_delete', base.ADMIN,
         'Delete a project (what it owns in other services stays).', 'DELETE',
         '/v3/projects/{project_id}'),
        ('identity:user_delete', base.ADMIN,
         'Delete a user (their tokens end at once).', 'DELETE', '/v3/users/{user_id}'),
        # Keystone's: a user makes their own; an admin may see and delete anyone's.
        ('identity:application_credential_create', 'user_id:%(user_id)s',
         'Make an application credential of one\'s own, for the token\'s project.',
         'POST', '/v3/users/{user_id}/application_credentials'),
        ('identity:application_credential_list', _ADMIN_OR_SELF,
         'List a user\'s application credentials.', 'GET',
         '/v3/users/{user_id}/application_credentials'),
        ('identity:application_credential_show', _ADMIN_OR_SELF,
         'Show an application credential (never its secret).', 'GET',
         '/v3/users/{user_id}/application_credentials/{application_credential_id}'),
        ('identity:application_credential_delete', _ADMIN_OR_SELF,
         'Delete an application credential (its tokens end at once).', 'DELETE',
         '/v3/users/{user_id}/application_credentials/{application_credential_id}'),
    )
]


def list_rules():
    return _rules
