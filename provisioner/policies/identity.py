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


def list_rules():
    return _rules
