"""Identity: bootstrap, authenticate (credentials -> token), validate (token -> context).

Tokens are Fernet tokens (provisioner.identity.fernet): nothing is stored per token, so
neither a database dump nor the flow store holds a credential. Validation checks the
token with the key repository, then reads the user's current state: a disabled or
deleted user, a changed password (tokens_revoked_at), a removed role or project ends
a token at once; a token revoked alone is kept by its audit id until it expires.
"""

import dataclasses
import datetime
import time
import uuid

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.conf import CONF
from provisioner import exception
from provisioner.identity import fernet
from provisioner.identity import passwords
from provisioner import schemas

ROLES = schemas.ROLES


def new_request_id():
    return 'req-%s' % uuid.uuid4()


@dataclasses.dataclass(frozen=True)
class RequestContext:
    """Who is asking: the validated token's user, project and roles."""

    user_id: str
    user_name: str
    project_id: str
    project_name: str
    roles: tuple
    # Nova's request id: names the instance action a request starts, and every log
    # line written for it (the REST API sets it from x-openstack-request-id).
    request_id: str = dataclasses.field(default_factory=new_request_id)
    # The application credential the token was issued for: {id, name, restricted}.
    application_credential: dict | None = None

    @property
    def is_admin(self):
        return 'admin' in self.roles


def _get_or_create_project(session, name):
    project = session.execute(sa.select(models.Project)
                              .where(models.Project.name == name)).scalar()
    if project is None:
        project = models.Project(id=str(uuid.uuid4()), name=name)
        session.add(project)
    return project


def bootstrap(username, password, project_name, role='admin'):
    """Create the first admin user and project; running it again resets the password.

    With ``role='service'``: the user hosts' workers download images as (Nova's
    service user in the ``service`` project).
    """
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
        if session.get(models.RoleAssignment, (user.id, project.id, role)) is None:
            session.add(models.RoleAssignment(user_id=user.id, project_id=project.id,
                                              role=role))
        ids = {'user_id': user.id, 'project_id': project.id}
    fernet.setup()
    return ids


def _find(session, model, row_id, name):
    if row_id is not None:
        return session.get(model, row_id)
    return session.execute(sa.select(model).where(model.name == name)).scalar()


def authenticate(username, password, project_name, user_id=None, project_id=None):
    """Check credentials and return a new token scoped to the project.

    The user is named by ``username`` or ``user_id``, the project by ``project_name``
    or ``project_id`` (Keystone's password method accepts either). Without either,
    the token is unscoped (Keystone's: it proves who the user is, and can be
    exchanged for a project-scoped one, but no service accepts it).
    """
    failure = exception.NotAuthenticated(
        reason='wrong user name, password or project (check OS_USERNAME, OS_PASSWORD '
               'and OS_PROJECT_NAME)')
    with db_api.transaction() as session:
        user = _find(session, models.User, user_id, username)
        if user is None or not user.enabled:
            # Spend the same time as a real check so user names cannot be probed.
            passwords.verify_password(password, passwords.hash_password('x'))
            raise failure
        if not passwords.verify_password(password, user.password_hash):
            raise failure
        user_id = user.id
        if project_id is not None or project_name is not None:
            project = _find(session, models.Project, project_id, project_name)
            if project is None or not roles_of(session, user.id, project.id):
                raise failure
            project_id = project.id
    return fernet.issue(user_id, project_id, CONF.token.expiration)[0]


def rescope(token, project_name=None, project_id=None):
    """A new token for a valid token's user, scoped to a project they have a role in
    (unscoped without one).

    Keystone's token method: the new token expires when the old one does, so
    renewing a token never extends the session its password started.
    """
    context = inspect(token)
    expires_at = fernet.decode(token)[3]
    credential = context.application_credential
    if credential is not None:
        # It stays what it was: the credential's project and roles, never the user's.
        if (project_id or context.project_id) != context.project_id or \
                project_name not in (None, context.project_name):
            raise exception.NotAuthenticated(
                reason='a token of an application credential cannot be rescoped')
        return fernet.issue(context.user_id, context.project_id,
                            expires_at - time.time(), credential['id'])[0]
    if project_id is not None or project_name is not None:
        with db_api.transaction() as session:
            project = _find(session, models.Project, project_id, project_name)
            if project is None or not roles_of(session, context.user_id, project.id):
                raise exception.NotAuthenticated(
                    reason='the user has no role in project %s'
                           % (project_name or project_id))
            project_id = project.id
    return fernet.issue(context.user_id, project_id, expires_at - time.time())[0]


def roles_of(session, user_id, project_id):
    return tuple(sorted(session.execute(
        sa.select(models.RoleAssignment.role)
        .where(models.RoleAssignment.user_id == user_id,
               models.RoleAssignment.project_id == project_id)).scalars()))


def _epoch(moment):
    return moment.replace(tzinfo=datetime.timezone.utc).timestamp()


def inspect(token):
    """The RequestContext of a valid token, scoped or not (an unscoped token's has no
    project and no roles); NotAuthenticated otherwise."""
    user_id, project_id, issued_at, _expires_at, credential_id = fernet.decode_all(token)
    revoked = exception.NotAuthenticated(reason='the token is no longer valid')
    with db_api.transaction() as session:
        user = session.get(models.User, user_id)
        if user is None or not user.enabled:
            raise revoked
        if user.tokens_revoked_at and issued_at <= _epoch(user.tokens_revoked_at):
            raise revoked
        if session.get(models.RevokedToken, fernet.audit_id(token)) is not None:
            raise revoked
        if project_id is None:
            return RequestContext(user_id=user.id, user_name=user.name,
                                  project_id=None, project_name=None, roles=())
        project = session.get(models.Project, project_id)
        roles = roles_of(session, user.id, project_id) if project is not None else ()
        credential = None
        if credential_id is not None:
            roles, credential = credential_roles(session, credential_id, user.id, roles)
        if not roles:
            raise revoked
        return RequestContext(user_id=user.id, user_name=user.name,
                              project_id=project.id, project_name=project.name,
                              roles=roles, application_credential=credential)


def credential_roles(session, credential_id, user_id, user_roles):
    """The roles a token of application credential ``credential_id`` carries, and
    what the token says of the credential; no roles once it is deleted or expired,
    or once the user lost one of its roles (Keystone then deletes it)."""
    credential = session.get(models.ApplicationCredential, credential_id)
    if credential is None or credential.user_id != user_id:
        return (), None
    expired = (credential.expires_at is not None
               and credential.expires_at <= models.utcnow())
    if expired or not set(credential.roles) <= set(user_roles):
        return (), None
    return tuple(sorted(credential.roles)), {'id': credential.id,
                                             'name': credential.name,
                                             'restricted': not credential.unrestricted}


def validate(token):
    """Return the RequestContext of a valid project-scoped token; NotAuthenticated
    otherwise (an unscoped token is good only for getting a scoped one)."""
    context = inspect(token)
    if context.project_id is None:
        raise exception.NotAuthenticated(
            reason='the token is unscoped: get a project-scoped one (POST '
                   '/identity/v3/auth/tokens with a project in the scope)')
    return context


def revoke(token):
    """End a valid token before it expires (Keystone's DELETE /v3/auth/tokens)."""
    inspect(token)
    expires_at = datetime.datetime.fromtimestamp(fernet.decode(token)[3],
                                                 datetime.timezone.utc)
    now = models.utcnow()
    with db_api.transaction() as session:
        # Revocations of tokens that have expired since are no longer needed.
        session.execute(sa.delete(models.RevokedToken)
                        .where(models.RevokedToken.expires_at < now))
        session.merge(models.RevokedToken(audit_id=fernet.audit_id(token),
                                          expires_at=expires_at.replace(tzinfo=None)))
