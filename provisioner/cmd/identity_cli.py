"""The identity commands: token keys, users, projects and roles."""

from provisioner.cmd import commands
from provisioner.cmd import output
from provisioner.identity import admin
from provisioner.identity import fernet
from provisioner import redact


def token_keys_setup(args):
    ids = fernet.setup()
    print('Token keys ready in %s (keys %s; 0 is staged, %d is primary).'
          % (fernet.key_repository(), ', '.join(map(str, ids)), max(ids)))
    return 0


def token_keys_rotate(args):
    ids = fernet.rotate()
    print('Token keys rotated in %s: primary is now %d; keys %s still validate.'
          % (fernet.key_repository(), max(ids), ', '.join(map(str, ids))))
    return 0


class _LocalAdmin:
    """Identity administration in this host's database, for one caller."""

    def __init__(self, context):
        self._context = context

    def create_user(self, name, password):
        return admin.create_user(self._context, name, password)

    def set_password(self, name, password):
        return admin.set_password(self._context, name, password)

    def disable_user(self, name):
        return admin.disable_user(self._context, name)

    def create_project(self, name):
        return admin.create_project(self._context, name)

    def add_role(self, user_name, project_name, role):
        return admin.add_role(self._context, user_name, project_name, role)


def _admin(args):
    """Identity administration: Keystone's API with OS_AUTH_URL, else the database."""
    session = commands.rest_session(args)
    if session is not None:
        from provisioner.client import identity
        return identity.RestIdentityAdmin(session)
    return _LocalAdmin(commands._context(args))


def user_create(args):
    redact.register(args.password)
    output.emit(_admin(args).create_user(args.name, args.password), args.format)
    return 0


def user_set_password(args):
    redact.register(args.password)
    _admin(args).set_password(args.name, args.password)
    print('Password of user %s changed; its earlier tokens are revoked.' % args.name)
    return 0


def user_disable(args):
    _admin(args).disable_user(args.name)
    print('User %s disabled; its tokens are revoked.' % args.name)
    return 0


def project_create(args):
    output.emit(_admin(args).create_project(args.name), args.format)
    return 0


def role_add(args):
    _admin(args).add_role(args.user, args.project, args.role)
    print('User %s has role %s in project %s.' % (args.user, args.role, args.project))
    return 0


def _format(parser):
    parser.add_argument('--format', choices=('table', 'json'), default='table',
                        help='output format (default: table)')
    return parser


def add_parsers(sub, common):
    keys = sub.add_parser(
        'token-keys', help='the Fernet keys that sign tokens (run on the engine host)'
    ).add_subparsers(dest='action', required=True, metavar='ACTION')
    p = keys.add_parser('setup', parents=[common],
                        help='create the key repository ([fernet_tokens] '
                             'key_repository) unless it has keys')
    p.set_defaults(func=token_keys_setup, local=True)
    p = keys.add_parser('rotate', parents=[common],
                        help='promote the staged key to primary and stage a new one; '
                             'tokens signed by the oldest dropped key stop working')
    p.set_defaults(func=token_keys_rotate, local=True)

    users = sub.add_parser('user', help='users (admin)').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = _format(users.add_parser('create', parents=[common], help='create a user'))
    p.add_argument('name')
    p.add_argument('--password', required=True, help='its password')
    p.set_defaults(func=user_create)
    p = users.add_parser('set-password', parents=[common],
                         help='change a password (revokes the user\'s tokens)')
    p.add_argument('name')
    p.add_argument('--password', required=True, help='the new password')
    p.set_defaults(func=user_set_password)
    p = users.add_parser('disable', parents=[common],
                         help='disable a user (revokes its tokens)')
    p.add_argument('name')
    p.set_defaults(func=user_disable)

    projects = sub.add_parser('project', help='projects (admin)').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = _format(projects.add_parser('create', parents=[common], help='create a project'))
    p.add_argument('name')
    p.set_defaults(func=project_create)

    roles = sub.add_parser('role', help='role assignments (admin)').add_subparsers(
        dest='action', required=True, metavar='ACTION')
    p = roles.add_parser('add', parents=[common],
                         help='give a user a role in a project: admin (everything, '
                              'every project), member (boot and delete in the '
                              'project), reader (look only)')
    p.add_argument('--user', required=True)
    p.add_argument('--project', required=True)
    p.add_argument('--role', required=True)
    p.set_defaults(func=role_add)
