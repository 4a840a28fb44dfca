"""The CLI's subcommands: their arguments, and the command function each one runs.

provisioner.cmd.cli declares the top of the parser and adds these. A command is named
here without being imported (``command``): it is imported when it runs, so
``--help`` and ``--version`` import none of them.
"""

import importlib


class Command:
    """A command's function, imported from its module when the command runs."""

    __slots__ = ('module', 'name')

    def __init__(self, module, name):
        self.module = module
        self.name = name

    def __call__(self, args):
        return getattr(importlib.import_module(self.module), self.name)(args)

    def __repr__(self):
        return '<command %s.%s>' % (self.module, self.name)


def command(name, module='commands'):
    return Command('provisioner.cmd.' + module, name)


def with_format(parser):
    parser.add_argument('--format', choices=('table', 'json'), default='table',
                        help='output format (default: table)')
    return parser


def add_catalog(sub, common):
    flavor = sub.add_parser('flavor', help='instance sizes').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = with_format(flavor.add_parser('create', parents=[common],
                                       help='create a flavor'))
    p.add_argument('name')
    p.add_argument('--vcpus', type=int, required=True, help='virtual CPUs')
    p.add_argument('--ram', type=int, required=True, help='memory in MiB')
    p.add_argument('--disk', type=int, default=0, help='root disk in GiB (default 0)')
    p.set_defaults(func=command('flavor_create'))

    image = sub.add_parser('image', help='bootable images').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = with_format(image.add_parser(
        'create', parents=[common],
        help='register a disk image, or a kernel + ramdisk (direct kernel boot)'))
    p.add_argument('name')
    p.add_argument('--file', help='disk image file (qcow2 or raw)')
    p.add_argument('--disk-format', choices=('qcow2', 'raw'),
                   help='expected format of --file (default: detected)')
    p.add_argument('--kernel', help='kernel for direct kernel boot')
    p.add_argument('--ramdisk', help='initramfs for direct kernel boot')
    p.add_argument('--cmdline', help='kernel command line (default: [libvirt] '
                                     'kernel_cmdline, console=ttyS0)')
    p.add_argument('--architecture', help='only hosts of this architecture (e.g. x86_64)')
    p.add_argument('--hypervisor-type', help='only hosts of this type (qemu, kvm)')
    p.add_argument('--min-ram', type=int, default=0, metavar='MiB',
                   help='refuse flavors with less RAM')
    p.add_argument('--min-disk', type=int, default=0, metavar='GiB',
                   help='refuse flavors with a smaller root disk')
    p.set_defaults(func=command('image_create'))

    network = sub.add_parser('network', help='isolated guest networks').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = with_format(network.add_parser(
        'create', parents=[common],
        help='create a network with DHCP (a libvirt network on this host)'))
    p.add_argument('name')
    p.add_argument('--cidr', required=True, help='IPv4 subnet, e.g. 10.251.0.0/24')
    p.add_argument('--gateway', help='host address of the bridge (default: first)')
    p.add_argument('--dhcp-start', help='first address handed out (default: second)')
    p.add_argument('--dhcp-end', help='last address handed out (default: last)')
    p.set_defaults(func=command('network_create'))
    p = network.add_parser('delete', parents=[common], help='delete an unused network')
    p.add_argument('name')
    p.set_defaults(func=command('network_delete'))

    host = sub.add_parser('host', help='hypervisor hosts').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    for resource, actions in (('flavor', flavor), ('image', image),
                              ('network', network), ('host', host)):
        p = with_format(actions.add_parser('list', parents=[common],
                                            help='list %ss' % resource))
        p.set_defaults(func=command('catalog_list'), resource=resource)
        p = with_format(actions.add_parser('show', parents=[common],
                                            help='show one %s' % resource))
        p.add_argument('name', help='%s name or id' % resource)
        p.set_defaults(func=command('catalog_show'), resource=resource)
        if resource in ('flavor', 'image'):
            p = actions.add_parser('delete', parents=[common],
                                   help='delete an unused %s' % resource)
            p.add_argument('name')
            p.set_defaults(func=command('catalog_delete'), resource=resource)
    _add_host_actions(host, common)
    _add_maintenance(sub, host, common)


def add_instances(sub, common):
    p = with_format(sub.add_parser(
        'boot', parents=[common],
        help='boot an instance and wait until it runs, showing each step',
        description='Boot an instance: schedule it, fetch its image, allocate its '
                    'IPs, create its volumes and config drive, define and start the '
                    'domain. Each step is saved as it finishes; if the boot is '
                    'interrupted, "resume" continues it and "rollback" undoes it.'))
    p.add_argument('name', help='instance name (letters, digits, . _ -; max 63)')
    p.add_argument('--flavor', required=True, help='flavor name or id')
    p.add_argument('--image', required=True, help='image name or id')
    p.add_argument('--network', action='append', required=True,
                   help='network name or id (repeatable: one NIC each)')
    p.add_argument('--volume-size', action='append', type=int, default=[],
                   metavar='GIB', help='create and attach a volume (repeatable)')
    p.add_argument('--user-data', metavar='FILE', help='user data file (max 64 KiB)')
    p.add_argument('--availability-zone', metavar='ZONE',
                   help='only hosts of this zone (see "host list")')
    p.add_argument('--server-group', metavar='GROUP',
                   help='server group name or id: its policy places the instance')
    p.add_argument('--property', action='append', metavar='KEY=VALUE',
                   help='metadata for the guest (config drive "meta"; repeatable; '
                        'keys: letters, digits, _ . : -; values: one line, max 255)')
    p.add_argument('--no-wait', action='store_true',
                   help='return at once; the boot goes on in the background')
    p.set_defaults(func=command('boot'))

    p = with_format(sub.add_parser('list', parents=[common], help='list instances'))
    p.add_argument('--all-projects', action='store_true',
                   help='every project\'s instances (admin only)')
    # All-in-one, a list reads its rows with sqlite3 when it can (0.3 s budget).
    p.set_defaults(func=command('list_instances'),
                   quick=command('list_instances', 'quick_list'))

    for name, text in (
            ('show', 'show states, addresses, volumes, fault, steps'),
            ('delete', 'delete an instance and all it owns'),
            ('resume', 'continue an interrupted boot'),
            ('rollback', 'undo an interrupted boot')):
        p = with_format(sub.add_parser(name, parents=[common], help=text))
        p.add_argument('name', help='instance name or id')
        p.set_defaults(func=command(name))

    p = sub.add_parser('console', parents=[common], help='print the serial console log')
    p.add_argument('name', help='instance name or id')
    p.add_argument('--path', action='store_true', help='print only the log\'s path')
    p.set_defaults(func=command('console'))

    p = sub.add_parser('_run-boot', parents=[common])
    p.add_argument('instance')
    p.set_defaults(func=command('run_boot_detached'), format='table', local=True,
                   database=True)


def _action(actions, name, common, func, help_text, with_name=True):
    p = with_format(actions.add_parser(name, parents=[common], help=help_text))
    if with_name:
        p.add_argument('name')
    p.set_defaults(func=command(func, 'scheduling'))
    return p


def _add_host_actions(host_actions, common):
    _action(host_actions, 'enable', common, 'host_enable',
            'let the scheduler place instances on a host again')
    p = _action(host_actions, 'disable', common, 'host_disable',
                'keep new instances off a host (its instances stay)')
    p.add_argument('--reason', help='why, shown by "host show"')
    p = _action(host_actions, 'set', common, 'host_set',
                'set a host\'s availability zone or allocation ratios',)
    p.add_argument('--availability-zone', metavar='ZONE')
    for resource, example in (('cpu', '16 vCPUs per core: 16'), ('ram', '1.5'),
                              ('disk', '1.0')):
        p.add_argument('--%s-allocation-ratio' % resource, type=float, metavar='RATIO',
                       help='over-commit of %s (e.g. %s); capacity = physical x ratio'
                            % (resource.upper() if resource != 'disk' else resource,
                               example))


def _add_maintenance(sub, host_actions, common):
    p = with_format(sub.add_parser(
        'audit', parents=[common],
        help='compare what hosts hold with the database; --fix removes orphans',
        description='List each orphan (held on a host by this deployment, but '
                    'unknown or deleted in the database) and each missing resource '
                    '(the database says the host holds it, the host does not): '
                    'libvirt domains, networks and DHCP entries, pool volumes, '
                    'config drives, instance directories. Resources of other '
                    'deployments on the same host are never listed. Exit status: '
                    '0 when nothing is found (or --fix removed every orphan and '
                    'nothing is missing), 1 when problems remain or a host did not '
                    'answer.'))
    p.add_argument('--host', help='audit only this host (default: every host)')
    p.add_argument('--fix', action='store_true',
                   help='remove the orphans older than the grace period, and every '
                        'leftover a failed cleanup recorded')
    p.add_argument('--grace-period', type=int, metavar='SECONDS',
                   help='override [worker] orphan_grace_period')
    p.set_defaults(func=command('audit', 'maintenance'), database=True)
    p = with_format(host_actions.add_parser(
        'teardown', parents=[common],
        help='remove every pool, network and file this deployment made on a host '
             '(refused while instances remain on it)'))
    p.add_argument('name', help='host name')
    p.set_defaults(func=command('host_teardown', 'maintenance'), database=True)


# provisioner.compute.server_groups.POLICIES, without the database that module imports
# (tests/unit/test_cli_startup.py keeps the two equal).
SERVER_GROUP_POLICIES = ('affinity', 'anti-affinity', 'soft-affinity', 'soft-anti-affinity')


def add_scheduling(sub, common):
    quota = sub.add_parser('quota', help='per-project limits').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = _action(quota, 'show', common, 'quota_show',
                'limits and usage of a project (default: your own)', with_name=False)
    p.add_argument('--project', help='project name or id (admin)')
    p = _action(quota, 'set', common, 'quota_set',
                'set a project\'s limits (admin); -1 means unlimited', with_name=False)
    p.add_argument('--project', help='project name or id (default: your own)')
    for flag, dest, what in (('--instances', 'instances', 'live instances'),
                             ('--vcpus', 'vcpus', 'vCPUs'),
                             ('--ram', 'ram_mib', 'MiB of RAM'),
                             ('--volumes-gib', 'volumes_gib', 'GiB of volumes')):
        p.add_argument(flag, dest=dest, type=int, metavar='N', help='at most N %s' % what)

    group = sub.add_parser(
        'server-group', help='place instances together or apart').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = _action(group, 'create', common, 'group_create',
                'create a group; boot members with "boot --server-group NAME"')
    p.add_argument('--policy', required=True, choices=SERVER_GROUP_POLICIES,
                   help='affinity: all members on one host; anti-affinity: every '
                        'member on a different host')
    _action(group, 'list', common, 'group_list', 'list your project\'s groups',
            with_name=False)
    _action(group, 'show', common, 'group_show', 'show a group and its members')
    _action(group, 'delete', common, 'group_delete', 'delete a group without members')


def add_identity(sub, common):
    keys = sub.add_parser(
        'token-keys', help='the Fernet keys that sign tokens (run on the engine host)'
    ).add_subparsers(dest='action', required=True, metavar='ACTION')
    p = keys.add_parser('setup', parents=[common],
                        help='create the key repository ([fernet_tokens] '
                             'key_repository) unless it has keys')
    p.set_defaults(func=command('token_keys_setup', 'identity_cli'), local=True,
                   database=True)
    p = keys.add_parser('rotate', parents=[common],
                        help='promote the staged key to primary and stage a new one; '
                             'tokens signed by the oldest dropped key stop working')
    p.set_defaults(func=command('token_keys_rotate', 'identity_cli'), local=True,
                   database=True)

    users = sub.add_parser('user', help='users (admin)').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = with_format(users.add_parser('create', parents=[common], help='create a user'))
    p.add_argument('name')
    p.add_argument('--password', required=True, help='its password')
    p.set_defaults(func=command('user_create', 'identity_cli'))
    p = users.add_parser('set-password', parents=[common],
                         help='change a password (revokes the user\'s tokens)')
    p.add_argument('name')
    p.add_argument('--password', required=True, help='the new password')
    p.set_defaults(func=command('user_set_password', 'identity_cli'))
    p = users.add_parser('disable', parents=[common],
                         help='disable a user (revokes its tokens)')
    p.add_argument('name')
    p.set_defaults(func=command('user_disable', 'identity_cli'))

    projects = sub.add_parser('project', help='projects (admin)').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = with_format(projects.add_parser('create', parents=[common],
                                         help='create a project'))
    p.add_argument('name')
    p.set_defaults(func=command('project_create', 'identity_cli'))

    roles = sub.add_parser('role', help='role assignments (admin)').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = roles.add_parser('add', parents=[common],
                         help='give a user a role in a project: admin (everything, '
                              'every project), member (boot and delete in the '
                              'project), reader (look only)')
    p.add_argument('--user', required=True)
    p.add_argument('--project', required=True)
    p.add_argument('--role', required=True)
    p.set_defaults(func=command('role_add', 'identity_cli'))
