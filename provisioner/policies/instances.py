"""Rules for instances and the things scoped to one project (quotas, server groups)."""

from oslo_policy import policy

from provisioner.policies import base

_MEMBER, _READER, _ADMIN = base.PROJECT_MEMBER, base.PROJECT_READER, base.ADMIN

_rules = [
    policy.DocumentedRuleDefault(name, check, description, base.cli(command))
    for name, check, description, command in (
        ('instance:boot', _MEMBER, 'Boot an instance in one\'s project.', 'boot'),
        ('instance:show', _READER, 'Show an instance.', 'show'),
        ('instance:console', _READER, 'Read an instance\'s serial console log.',
         'console'),
        ('instance:list', _READER, 'List the project\'s instances.', 'list'),
        ('instance:list:all_projects', _ADMIN, 'List every project\'s instances.',
         'list --all-projects'),
        ('instance:delete', _MEMBER, 'Delete an instance.', 'delete'),
        ('instance:resume', _MEMBER, 'Resume an interrupted boot.', 'resume'),
        ('instance:rollback', _MEMBER, 'Roll back an interrupted boot.', 'rollback'),
        ('instance:stop', _MEMBER, 'Stop (power off) an instance.', 'server stop'),
        ('instance:start', _MEMBER, 'Start a stopped instance.', 'server start'),
        ('instance:reboot', _MEMBER, 'Reboot an instance (soft or hard).',
         'server reboot'),
        ('instance:rebuild', _MEMBER, 'Rebuild an instance: a new root disk from an '
                                      'image, a new config drive.', 'server rebuild'),
        ('instance:live_migrate', _ADMIN, 'Move a running instance to another host '
                                          '(live migration).',
         'server migrate --live-migration'),
        ('instance:migrations', _ADMIN, 'List migrations (of every server, or of one).',
         'server migration list'),
        ('instance:trigger_crash_dump', _MEMBER, 'Inject an NMI into an instance\'s '
                                                 'guest (its crash dump).',
         'server dump create'),
        ('instance:create_image', _MEMBER, 'Snapshot an instance into a new image '
                                           '(Nova\'s createImage).',
         'server image create'),
        ('instance:update', _MEMBER, 'Rename an instance, set its access addresses '
                                     'or metadata.', 'server set'),
        ('instance:lock', _MEMBER, 'Lock an instance: then only an admin acts on it.',
         'server lock'),
        ('instance:unlock', _MEMBER, 'Unlock an instance (one an admin locked: admins '
                                     'only).', 'server unlock'),
        ('instance:actions', _READER, 'List an instance\'s actions and their steps.',
         'server event list'),
        ('keypair:create', base.ANY_ROLE, 'Create or import one\'s own key pair.',
         'keypair create'),
        ('keypair:list', base.ANY_ROLE, 'List one\'s own key pairs.', 'keypair list'),
        ('keypair:show', base.ANY_ROLE, 'Show one\'s own key pair.', 'keypair show'),
        ('keypair:delete', base.ANY_ROLE, 'Delete one\'s own key pair.', 'keypair delete'),
        ('quota:show', _READER, 'Show a project\'s quotas.', 'quota show'),
        ('quota:set', _ADMIN, 'Set a project\'s quotas.', 'quota set'),
        ('server_group:create', _MEMBER, 'Create a server group.',
         'server-group create'),
        ('server_group:show', _READER, 'Show a server group.', 'server-group show'),
        ('server_group:list', _READER, 'List the project\'s server groups.',
         'server-group list'),
        ('server_group:delete', _MEMBER, 'Delete a server group.',
         'server-group delete'),
    )
] + [
    policy.DocumentedRuleDefault(name, _ADMIN, description, [
        {'path': '/compute/v2.1/servers/{server_id}/action (%s)' % action,
         'method': 'POST'}])
    for name, action, description in (
        ('instance:reset_state', 'os-resetState', 'Set an instance\'s state to active '
                                                  'or error and clear its task.'),
        ('instance:inject_network_info', 'injectNetworkInfo',
         'Inject network information (nothing to do for libvirt guests).'))
]


def list_rules():
    return _rules
