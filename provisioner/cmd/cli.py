"""provisioner: boot and manage VMs through a durable, resumable request flow.

The parser's top is declared here, its subcommands in provisioner.cmd.subcommands; the
commands live in provisioner.cmd.commands, provisioner.cmd.scheduling and
provisioner.cmd.identity_cli. The parser names them without importing them
(``subcommands.command``), and configuration is loaded only once the
arguments are parsed: ``--help`` and ``--version`` import neither the commands nor
oslo.config, and each command imports only what it uses (tests/bench/startup.py).
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

from provisioner import exception  # noqa: E402
from provisioner.cmd import subcommands  # noqa: E402
from provisioner import redact  # noqa: E402

LOG = logging.getLogger('provisioner')

_EPILOG = """\
credentials come from OS_USERNAME, OS_PASSWORD and OS_PROJECT_NAME (or the
--os-* flags); configuration from --config-file (default: the usual oslo.config
places, e.g. /etc/provisioner/provisioner.conf; none is needed all-in-one).
With OS_AUTH_URL (--os-auth-url) set, every command but db-sync, bootstrap and
token-keys goes to provisioner-api's REST API: no database or broker is needed.
Without it the commands act on this host's all-in-one deployment; a distributed
deployment is reached through its API only (its db-sync, bootstrap, token-keys,
audit and host teardown run where its configuration is).

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
                            '(default: $OS_AUTH_URL; unset: this host\'s all-in-one '
                            'deployment)')
    group.add_argument('--os-token', default=argparse.SUPPRESS,
                       help='a token to use instead of user name and password '
                            '(default: $OS_TOKEN)')
    group.add_argument('--debug', action='store_true', default=argparse.SUPPRESS,
                       help='log debug detail to stderr')
    return parent


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
    p.set_defaults(func=subcommands.command('db_sync'), local=True, database=True)
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
    p.set_defaults(func=subcommands.command('bootstrap'), local=True, database=True)

    subcommands.add_instances(sub, common)
    subcommands.add_catalog(sub, common)
    subcommands.add_scheduling(sub, common)
    subcommands.add_identity(sub, common)
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
    """Run one command; its exit code.

    Piped into `head`, it ends quietly as other Unix tools do, with their 141. Not by
    restoring SIGPIPE's default action: that signal also comes from a socket whose
    peer reset, and oslo.messaging's reconnect to a broker that dropped the CLI's
    connection would then die with the process, without a word.
    """
    try:
        try:
            return _run(argv)
        finally:  # --help and --version leave by SystemExit, their text still buffered
            sys.stdout.flush()
    except BrokenPipeError:
        # Whatever is still buffered goes nowhere, not to a second error at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE


def _run(argv):
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
            commands.check_door(args)
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
    except BrokenPipeError:
        raise  # the reader of our output is gone: main() ends quietly
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
