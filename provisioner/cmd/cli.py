"""provisioner: boot and manage VMs through a durable, resumable request flow.

The parser is declared here; the commands live in provisioner.cmd.commands.
"""

import argparse
import logging
import os
import signal
import sys

# provisioner runs on threads only. eventlet comes installed with oslo.service, and
# TaskFlow imports it merely to detect it: 0.17 s of every command, plus deprecation
# notices that mean nothing to an operator. Refusing the import settles both.
sys.modules.setdefault('eventlet', None)

from oslo_config import cfg  # noqa: E402

from provisioner.cmd import commands  # noqa: E402
from provisioner.cmd import identity_cli  # noqa: E402
from provisioner.cmd import scheduling  # noqa: E402
from provisioner.conf import CONF  # noqa: E402
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
    p.set_defaults(func=commands.flavor_create)

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
    p.set_defaults(func=commands.image_create)

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
    p.set_defaults(func=commands.network_create)
    p = network.add_parser('delete', parents=[common], help='delete an unused network')
    p.add_argument('name')
    p.set_defaults(func=commands.network_delete)

    host = sub.add_parser('host', help='hypervisor hosts').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    for resource, actions in (('flavor', flavor), ('image', image),
                              ('network', network), ('host', host)):
        p = _with_format(actions.add_parser('list', parents=[common],
                                            help='list %ss' % resource))
        p.set_defaults(func=commands.catalog_list, resource=resource)
        p = _with_format(actions.add_parser('show', parents=[common],
                                            help='show one %s' % resource))
        p.add_argument('name', help='%s name or id' % resource)
        p.set_defaults(func=commands.catalog_show, resource=resource)
        if resource in ('flavor', 'image'):
            p = actions.add_parser('delete', parents=[common],
                                   help='delete an unused %s' % resource)
            p.add_argument('name')
            p.set_defaults(func=commands.catalog_delete, resource=resource)
    scheduling.add_host_actions(host, common)


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
    p.set_defaults(func=commands.boot)

    p = _with_format(sub.add_parser('list', parents=[common], help='list instances'))
    p.add_argument('--all-projects', action='store_true',
                   help='every project\'s instances (admin only)')
    p.set_defaults(func=commands.list_instances)

    for name, func, text in (
            ('show', commands.show, 'show states, addresses, volumes, fault, steps'),
            ('delete', commands.delete, 'delete an instance and all it owns'),
            ('resume', commands.resume, 'continue an interrupted boot'),
            ('rollback', commands.rollback, 'undo an interrupted boot')):
        p = _with_format(sub.add_parser(name, parents=[common], help=text))
        p.add_argument('name', help='instance name or id')
        p.set_defaults(func=func)

    p = sub.add_parser('console', parents=[common], help='print the serial console log')
    p.add_argument('name', help='instance name or id')
    p.add_argument('--path', action='store_true', help='print only the log\'s path')
    p.set_defaults(func=commands.console)

    p = sub.add_parser('_run-boot', parents=[common])
    p.add_argument('instance')
    p.set_defaults(func=commands.run_boot_detached, format='table', local=True)


def _version():
    from importlib import metadata
    try:
        return 'provisioner %s' % metadata.version('provisioner')
    except metadata.PackageNotFoundError:
        return 'provisioner (not installed)'


def build_parser():
    common = _common_parent()
    parser = _Parser(
        prog='provisioner', parents=[common], epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description='Boot VMs on libvirt through a durable request flow: every step '
                    'is saved, so an interrupted boot resumes or rolls back.')
    parser.add_argument('--version', action='version', version=_version())
    sub = parser.add_subparsers(dest='command', required=True, metavar='COMMAND')

    p = sub.add_parser('db-sync', parents=[common],
                       help='create or upgrade the database schema')
    p.set_defaults(func=commands.db_sync, local=True)
    p = sub.add_parser('bootstrap', parents=[common],
                       help='create the first admin user and project')
    p.add_argument('--username', required=True)
    p.add_argument('--password', required=True)
    p.add_argument('--project', required=True)
    p.set_defaults(func=commands.bootstrap, local=True)

    _add_instances(sub, common)
    _add_catalog(sub, common)
    scheduling.add_parsers(sub, common)
    identity_cli.add_parsers(sub, common)
    # Hide the internal command from --help.
    sub._choices_actions = [a for a in sub._choices_actions if a.dest != '_run-boot']
    return parser


def _load_config(args):
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
        if args.func is not commands.db_sync and not commands.uses_rest(args):
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
