"""The identity commands: token keys, users, projects and roles.

The parsers are in provisioner.cmd.cli. Through the REST API (OS_AUTH_URL) these
commands import no database: the local ones import theirs when they run.
"""

from provisioner.cmd import commands
from provisioner.cmd import output
from provisioner import redact


def token_keys_setup(args):
    from provisioner.identity import fernet
    ids = fernet.setup()
    print('Token keys ready in %s (keys %s; 0 is staged, %d is primary).'
          % (fernet.key_repository(), ', '.join(map(str, ids)), max(ids)))
    return 0


def token_keys_rotate(args):
    from provisioner.identity import fernet
    ids = fernet.rotate()
    print('Token keys rotated in %s: primary is now %d; keys %s still validate.'
          % (fernet.key_repository(), max(ids), ', '.join(map(str, ids))))
    return 0


class _LocalAdmin:
    """Identity administration in this host's database, for one caller."""

    def __init__(self, context):
        from provisioner.identity import admin
        self._context = context
        self._admin = admin

    def create_user(self, name, password):
        return self._admin.create_user(self._context, name, password)

    def set_password(self, name, password):
        return self._admin.set_password(self._context, name, password)

    def disable_user(self, name):
        return self._admin.disable_user(self._context, name)

    def create_project(self, name):
        return self._admin.create_project(self._context, name)

    def add_role(self, user_name, project_name, role):
        return self._admin.add_role(self._context, user_name, project_name, role)


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
