"""Identity: bootstrap, authenticate (credentials -> token), validate (token -> context).

Tokens are Fernet tokens (provisioner.identity.fernet): nothing is stored per token, so
neither a database dump nor the flow store holds a credential. Validation checks the
token with the key repository, then reads the user's current state: a disabled user, a
changed password (tokens_revoked_at) or a removed role ends a token at once.
"""

import dataclasses
import datetime
import uuid

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.conf import CONF
from provisioner import exception
from provisioner.identity import fernet
from provisioner.identity import passwords

ROLES = ('admin', 'member', 'reader')


@dataclasses.dataclass(frozen=True)
class RequestContext:
    """Who is asking: the validated token's user, project and roles."""

    user_id: str
    user_name: str
    project_id: str
    project_name: str
    roles: tuple

    @property
    def is_admin(self):
        return 'admin' in self.roles

    def require_role(self, *allowed):
        if not set(allowed) & set(self.roles):
            raise exception.Forbidden(
                reason='this needs one of the roles %s; you have %s'
                       % (', '.join(allowed), ', '.join(self.roles) or 'none'))


def _get_or_create_project(session, name):
    project = session.execute(sa.select(models.Project)
                              .where(models.Project.name == name)).scalar()
    if project is None:
        project = models.Project(id=str(uuid.uuid4()), name=name)
        session.add(project)
    return project


def bootstrap(username, password, project_name):
    """Create the first admin user and project; running it again resets the password."""
    with db_api.transaction() as session:
        project = _get_or_create_project(session, project_name)
        user = session.execute(sa.select(models.User)
                               .where(models.User.name == username)).scalar()
        if user is None:
            user = models.User(id=str(uuid.uuid4()), name=username,
                               password_hash=passwords.hash_password(password))
            session.add(user)
        else:
            user.password_hash = passwords.hash_password(password)
            user.enabled = True
            user.tokens_revoked_at = models.utcnow()
        session.flush()
        if session.get(models.RoleAssignment, (user.id, project.id, 'admin')) is None:
            session.add(models.RoleAssignment(user_id=user.id, project_id=project.id,
                                              role='admin'))
        ids = {'user_id': user.id, 'project_id': project.id}
    fernet.setup()
    return ids


def authenticate(username, password, project_name):
    """Check credentials and return a new token scoped to the project."""
    failure = exception.NotAuthenticated(
        reason='wrong user name, password or project (check OS_USERNAME, OS_PASSWORD '
               'and OS_PROJECT_NAME)')
    with db_api.transaction() as session:
        user = session.execute(sa.select(models.User)
                               .where(models.User.name == username)).scalar()
        if user is None or not user.enabled:
            # Spend the same time as a real check so user names cannot be probed.
            passwords.verify_password(password, passwords.hash_password('x'))
            raise failure
        if not passwords.verify_password(password, user.password_hash):
            raise failure
        project = session.execute(sa.select(models.Project)
                                  .where(models.Project.name == project_name)).scalar()
        if project is None or not _roles(session, user.id, project.id):
            raise failure
        user_id, project_id = user.id, project.id
    return fernet.issue(user_id, project_id, CONF.token.expiration)[0]


def _roles(session, user_id, project_id):
    return tuple(sorted(session.execute(
        sa.select(models.RoleAssignment.role)
        .where(models.RoleAssignment.user_id == user_id,
               models.RoleAssignment.project_id == project_id)).scalars()))


def _epoch(moment):
    return moment.replace(tzinfo=datetime.timezone.utc).timestamp()


def validate(token):
    """Return the RequestContext of a valid token; NotAuthenticated otherwise."""
    user_id, project_id, issued_at, _expires_at = fernet.decode(token)
    revoked = exception.NotAuthenticated(reason='the token is no longer valid')
    with db_api.transaction() as session:
        user = session.get(models.User, user_id)
        project = session.get(models.Project, project_id)
        if user is None or project is None or not user.enabled:
            raise revoked
        if user.tokens_revoked_at and issued_at <= _epoch(user.tokens_revoked_at):
            raise revoked
        roles = _roles(session, user.id, project.id)
        if not roles:
            raise revoked
        return RequestContext(user_id=user.id, user_name=user.name,
                              project_id=project.id, project_name=project.name,
                              roles=roles)
