"""provisioner: boot and manage VMs through a durable, resumable request flow.

The parser is declared here; the commands live in provisioner.cmd.commands,
provisioner.cmd.scheduling and provisioner.cmd.identity_cli. The parser names them
without importing them (``_command``), and configuration is loaded only once the
arguments are parsed: ``--help`` and ``--version`` import neither the commands nor
oslo.config, and each command imports only what it uses (tests/bench/startup.py).
"""

import argparse
import importlib
import logging
import os
import signal
import sys

# provisioner runs on threads only. eventlet comes installed with oslo.service, and
# TaskFlow imports it merely to detect it: 0.17 s of every command, plus deprecation
# notices that mean nothing to an operator. Refusing the import settles both.
sys.modules.setdefault('eventlet', None)

from provisioner import exception  # noqa: E402
from provisioner import redact  # noqa: E402

LOG = logging.getLogger('provisioner')

_EPILOG = """\
credentials come from OS_USERNAME, OS_PASSWORD and OS_PROJECT_NAME (or the
--os-* flags); configuration from --config-file (default: the usual oslo.config
places, e.g. /etc/provisioner/provisioner.conf; none is needed all-in-one).
With OS_AUTH_URL (--os-auth-url) set, every command but db-sync, bootstrap and
token-keys goes to provisioner-api's REST API: no database or broker is needed.

quick start:
  provisioner bootstrap --username admin --password secret --project admin
  export OS_USERNAME=admin OS_PASSWORD=secret OS_PROJECT_NAME=admin
  provisioner flavor create tiny --vcpus 1 --ram 128 --disk 1
  provisioner image create tiny --kernel vmlinuz --ramdisk initramfs.img
  provisioner network create net1 --cidr 10.251.0.0/24
  provisioner boot vm1 --flavor tiny --image tiny --network net1 --volume-size 1
"""


class _Command:
    """A command's function, imported from its module when the command runs."""

    __slots__ = ('module', 'name')

    def __init__(self, module, name):
        self.module = module
        self.name = name

    def __call__(self, args):
        return getattr(importlib.import_module(self.module), self.name)(args)

    def __repr__(self):
        return '<command %s.%s>' % (self.module, self.name)


def _command(name, module='commands'):
    return _Command('provisioner.cmd.' + module, name)


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's one-line errors (not usage + message)."""

    def error(self, message):
        self.exit(2, 'Error: %s (see "%s --help")\n' % (redact.redact(message), self.prog))


def _common_parent():
    parent = _Parser(add_help=False)
    group = parent.add_argument_group('common options')
    group.add_argument('--config-file', action='append', default=argparse.SUPPRESS,
                       metavar='PATH', help='configuration file (repeatable)')
    group.add_argument('--os-username', default=argparse.SUPPRESS,
                       help='user name (default: $OS_USERNAME)')
    group.add_argument('--os-password', default=argparse.SUPPRESS,
                       help='password (default: $OS_PASSWORD)')
    group.add_argument('--os-project-name', default=argparse.SUPPRESS,
                       help='project (default: $OS_PROJECT_NAME)')
    group.add_argument('--os-auth-url', default=argparse.SUPPRESS, metavar='URL',
                       help='provisioner-api\'s identity URL, e.g. '
                            'http://cloud:8774/identity: talk to the REST API only '
                            '(default: $OS_AUTH_URL; unset: the database directly)')
    group.add_argument('--os-token', default=argparse.SUPPRESS,
                       help='a token to use instead of user name and password '
                            '(default: $OS_TOKEN)')
    group.add_argument('--debug', action='store_true', default=argparse.SUPPRESS,
                       help='log debug detail to stderr')
    return parent


def _with_format(parser):
    parser.add_argument('--format', choices=('table', 'json'), default='table',
                        help='output format (default: table)')
    return parser


def _add_catalog(sub, common):
    flavor = sub.add_parser('flavor', help='instance sizes').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = _with_format(flavor.add_parser('create', parents=[common],
                                       help='create a flavor'))
    p.add_argument('name')
    p.add_argument('--vcpus', type=int, required=True, help='virtual CPUs')
    p.add_argument('--ram', type=int, required=True, help='memory in MiB')
    p.add_argument('--disk', type=int, default=0, help='root disk in GiB (default 0)')
    p.set_defaults(func=_command('flavor_create'))

    image = sub.add_parser('image', help='bootable images').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = _with_format(image.add_parser(
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
    p.set_defaults(func=_command('image_create'))

    network = sub.add_parser('network', help='isolated guest networks').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = _with_format(network.add_parser(
        'create', parents=[common],
        help='create a network with DHCP (a libvirt network on this host)'))
    p.add_argument('name')
    p.add_argument('--cidr', required=True, help='IPv4 subnet, e.g. 10.251.0.0/24')
    p.add_argument('--gateway', help='host address of the bridge (default: first)')
    p.add_argument('--dhcp-start', help='first address handed out (default: second)')
    p.add_argument('--dhcp-end', help='last address handed out (default: last)')
    p.set_defaults(func=_command('network_create'))
    p = network.add_parser('delete', parents=[common], help='delete an unused network')
    p.add_argument('name')
    p.set_defaults(func=_command('network_delete'))

    host = sub.add_parser('host', help='hypervisor hosts').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    for resource, actions in (('flavor', flavor), ('image', image),
                              ('network', network), ('host', host)):
        p = _with_format(actions.add_parser('list', parents=[common],
                                            help='list %ss' % resource))
        p.set_defaults(func=_command('catalog_list'), resource=resource)
        p = _with_format(actions.add_parser('show', parents=[common],
                                            help='show one %s' % resource))
        p.add_argument('name', help='%s name or id' % resource)
        p.set_defaults(func=_command('catalog_show'), resource=resource)
        if resource in ('flavor', 'image'):
            p = actions.add_parser('delete', parents=[common],
                                   help='delete an unused %s' % resource)
            p.add_argument('name')
            p.set_defaults(func=_command('catalog_delete'), resource=resource)
    _add_host_actions(host, common)
    _add_maintenance(sub, host, common)


def _add_instances(sub, common):
    p = _with_format(sub.add_parser(
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
    p.set_defaults(func=_command('boot'))

    p = _with_format(sub.add_parser('list', parents=[common], help='list instances'))
    p.add_argument('--all-projects', action='store_true',
                   help='every project\'s instances (admin only)')
    # All-in-one, a list reads its rows with sqlite3 when it can (0.3 s budget).
    p.set_defaults(func=_command('list_instances'),
                   quick=_command('list_instances', 'quick_list'))

    for name, text in (
            ('show', 'show states, addresses, volumes, fault, steps'),
            ('delete', 'delete an instance and all it owns'),
            ('resume', 'continue an interrupted boot'),
            ('rollback', 'undo an interrupted boot')):
        p = _with_format(sub.add_parser(name, parents=[common], help=text))
        p.add_argument('name', help='instance name or id')
        p.set_defaults(func=_command(name))

    p = sub.add_parser('console', parents=[common], help='print the serial console log')
    p.add_argument('name', help='instance name or id')
    p.add_argument('--path', action='store_true', help='print only the log\'s path')
    p.set_defaults(func=_command('console'))

    p = sub.add_parser('_run-boot', parents=[common])
    p.add_argument('instance')
    p.set_defaults(func=_command('run_boot_detached'), format='table', local=True)


def _action(actions, name, common, func, help_text, with_name=True):
    p = _with_format(actions.add_parser(name, parents=[common], help=help_text))
    if with_name:
        p.add_argument('name')
    p.set_defaults(func=_command(func, 'scheduling'))
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
    p = _with_format(sub.add_parser(
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
    p.set_defaults(func=_command('audit', 'maintenance'))
    p = _with_format(host_actions.add_parser(
        'teardown', parents=[common],
        help='remove every pool, network and file this deployment made on a host '
             '(refused while instances remain on it)'))
    p.add_argument('name', help='host name')
    p.set_defaults(func=_command('host_teardown', 'maintenance'))


# provisioner.compute.server_groups.POLICIES, without the database that module imports
# (tests/unit/test_cli_startup.py keeps the two equal).
SERVER_GROUP_POLICIES = ('affinity', 'anti-affinity')


def _add_scheduling(sub, common):
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


def _add_identity(sub, common):
    keys = sub.add_parser(
        'token-keys', help='the Fernet keys that sign tokens (run on the engine host)'
    ).add_subparsers(dest='action', required=True, metavar='ACTION')
    p = keys.add_parser('setup', parents=[common],
                        help='create the key repository ([fernet_tokens] '
                             'key_repository) unless it has keys')
    p.set_defaults(func=_command('token_keys_setup', 'identity_cli'), local=True)
    p = keys.add_parser('rotate', parents=[common],
                        help='promote the staged key to primary and stage a new one; '
                             'tokens signed by the oldest dropped key stop working')
    p.set_defaults(func=_command('token_keys_rotate', 'identity_cli'), local=True)

    users = sub.add_parser('user', help='users (admin)').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = _with_format(users.add_parser('create', parents=[common], help='create a user'))
    p.add_argument('name')
    p.add_argument('--password', required=True, help='its password')
    p.set_defaults(func=_command('user_create', 'identity_cli'))
    p = users.add_parser('set-password', parents=[common],
                         help='change a password (revokes the user\'s tokens)')
    p.add_argument('name')
    p.add_argument('--password', required=True, help='the new password')
    p.set_defaults(func=_command('user_set_password', 'identity_cli'))
    p = users.add_parser('disable', parents=[common],
                         help='disable a user (revokes its tokens)')
    p.add_argument('name')
    p.set_defaults(func=_command('user_disable', 'identity_cli'))

    projects = sub.add_parser('project', help='projects (admin)').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = _with_format(projects.add_parser('create', parents=[common],
                                         help='create a project'))
    p.add_argument('name')
    p.set_defaults(func=_command('project_create', 'identity_cli'))

    roles = sub.add_parser('role', help='role assignments (admin)').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = roles.add_parser('add', parents=[common],
                         help='give a user a role in a project: admin (everything, '
                              'every project), member (boot and delete in the '
                              'project), reader (look only)')
    p.add_argument('--user', required=True)
    p.add_argument('--project', required=True)
    p.add_argument('--role', required=True)
    p.set_defaults(func=_command('role_add', 'identity_cli'))


def _version():
    from importlib import metadata
    try:
        return 'provisioner %s' % metadata.version('provisioner')
    except metadata.PackageNotFoundError:
        return 'provisioner (not installed)'


class _VersionAction(argparse._VersionAction):
    """--version, looked up only when asked for: importlib.metadata costs 20 ms."""

    def __call__(self, parser, namespace, values, option_string=None):
        self.version = _version()
        super().__call__(parser, namespace, values, option_string)


def build_parser():
    common = _common_parent()
    parser = _Parser(
        prog='provisioner', parents=[common], epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description='Boot VMs on libvirt through a durable request flow: every step '
                    'is saved, so an interrupted boot resumes or rolls back.')
    parser.add_argument('--version', action=_VersionAction)
    sub = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')

    p = sub.add_parser('db-sync', parents=[common],
                       help='create or upgrade the database schema')
    p.set_defaults(func=_command('db_sync'), local=True)
    p = sub.add_parser('bootstrap', parents=[common],
                       help='create the first admin user and project (and the '
                            'service user of hosts)')
    p.add_argument('--username')
    p.add_argument('--password')
    p.add_argument('--project')
    p.add_argument('--service-user', metavar='NAME',
                   help='also create this user with the service role in project '
                        '"service": hosts\' workers download images as it '
                        '([image_service] username)')
    p.add_argument('--service-password', metavar='PASSWORD',
                   help='the service user\'s password ([image_service] password)')
    p.set_defaults(func=_command('bootstrap'), local=True)

    _add_instances(sub, common)
    _add_catalog(sub, common)
    _add_scheduling(sub, common)
    _add_identity(sub, common)
    # Hide the internal command from --help.
    sub._choices_actions = [a for a in sub._choices_actions if a.dest != '_run-boot']
    return parser


def _load_config(args):
    from provisioner.conf import CONF
    config_args = []
    for path in getattr(args, 'config_file', []):
        config_args += ['--config-file', path]
    CONF(config_args, project='provisioner')


class _OneLineFormatter(logging.Formatter):
    """A record without its traceback: the terminal gets one line, the log file all."""

    def format(self, record):
        record = logging.makeLogRecord(record.__dict__)
        record.exc_info = record.exc_text = record.stack_info = None
        return super().format(record)


def _setup_logging(debug, log_file=True):
    """Errors to stderr (everything with --debug), and a log file under state_path.

    A client of the REST API (``log_file`` False) writes nothing under state_path:
    its commands run on the servers, whose logs have them.
    """
    from provisioner.conf import CONF
    root = logging.getLogger()
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    console = logging.StreamHandler(sys.stderr)
    console.setLevel(logging.DEBUG if debug else logging.ERROR)
    console.setFormatter((logging.Formatter if debug else _OneLineFormatter)(
        '%(levelname)s %(name)s: %(message)s'))
    console.addFilter(redact.RedactingFilter())
    root.addHandler(console)
    if not log_file:
        return
    log_dir = os.path.join(CONF.state_path, 'logs')
    try:
        os.makedirs(log_dir, mode=0o700, exist_ok=True)
        log_path = os.path.join(log_dir, 'provisioner.log')
        os.close(os.open(log_path, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o600))
        handler = logging.FileHandler(log_path)
    except OSError:
        return
    handler.setLevel(logging.INFO)
    handler.addFilter(redact.RedactingFilter())
    handler.setFormatter(logging.Formatter(
        '%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s'))
    root.addHandler(handler)
    for noisy in ('taskflow', 'alembic', 'stevedore'):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def main(argv=None):
    # Behave like other Unix tools when piped into `head`: end quietly.
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    parser = build_parser()
    args = parser.parse_args(argv)
    # Past --help and --version: what every command needs (commands is light itself).
    from oslo_config import cfg
    from provisioner.cmd import commands
    from provisioner.conf import CONF
    for name, env in (('os_username', 'OS_USERNAME'), ('os_password', 'OS_PASSWORD'),
                      ('os_project_name', 'OS_PROJECT_NAME'), ('os_token', 'OS_TOKEN'),
                      ('os_auth_url', 'OS_AUTH_URL')):
        if not hasattr(args, name):
            setattr(args, name, os.environ.get(env))
    redact.register(args.os_password, args.os_token)
    try:
        _load_config(args)
        _setup_logging(getattr(args, 'debug', False),
                       log_file=not commands.uses_rest(args))
        if not commands.uses_rest(args):
            # A command's quick path answers, or returns None for the full one.
            quick = getattr(args, 'quick', None)
            answer = quick(args) if quick is not None else None
            if answer is not None:
                return answer
            if args.command != 'db-sync':
                from provisioner.db import migration
                migration.ensure_schema()
        return args.func(args)
    except exception.ProvisionerError as exc:
        LOG.info('Command %s failed: %s', args.command, exc)
        print('Error: %s' % redact.redact(exc), file=sys.stderr)
        return exc.exit_code
    except cfg.Error as exc:
        print('Error: configuration: %s' % exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print('Interrupted.', file=sys.stderr)
        return 130
    except Exception as exc:
        LOG.exception('Command %s failed unexpectedly', args.command)
        details = ('run it again with --debug for the traceback'
                   if commands.uses_rest(args) else 'details in %s' % os.path.join(
                       CONF.state_path, 'logs', 'provisioner.log'))
        print('Error: unexpected %s: %s (%s)'
              % (type(exc).__name__, redact.redact(exc), details), file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
