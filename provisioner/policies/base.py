"""The role rules the action rules are made of: admin, member and reader.

``admin`` is the cloud administrator (the admin role in any project). ``member`` and
``reader`` act within their own project: the target's project_id must be theirs, so a
rule built on them never reaches another project's resources.
"""

from oslo_policy import policy

ADMIN = 'rule:admin'
PROJECT_MEMBER = 'rule:admin_or_member'
PROJECT_READER = 'rule:admin_or_reader'
ANY_ROLE = 'rule:any_role'

_rules = [
    policy.RuleDefault('admin', 'role:admin',
                       description='The cloud administrator.'),
    policy.RuleDefault('project_member', 'role:member and project_id:%(project_id)s',
                       description='A member of the project that owns the target.'),
    policy.RuleDefault('project_reader', 'role:reader and project_id:%(project_id)s',
                       description='A reader of the project that owns the target.'),
    policy.RuleDefault('admin_or_member', 'rule:admin or rule:project_member',
                       description='Changes a project\'s own resources.'),
    policy.RuleDefault('admin_or_reader',
                       'rule:admin or rule:project_member or rule:project_reader',
                       description='Reads a project\'s own resources.'),
    policy.RuleDefault('any_role', 'role:admin or role:member or role:reader',
                       description='Anyone with a role: reads the shared catalog.'),
]


def list_rules():
    return _rules


def cli(command):
    """The 'operation' of a rule: the CLI command that performs it."""
    return [{'path': 'provisioner %s' % command, 'method': 'CLI'}]
