"""Identity: bootstrap, authenticate (credentials -> token), validate (token -> context).

Tokens are Fernet tokens (provisioner.identity.fernet): nothing is stored per token, so
neither a database dump nor the flow store holds a credential. Validation checks the
token with the key repository, then reads the user's current state: a disabled or
deleted user, a changed password (tokens_revoked_at), a removed role or project ends
a token at once; a token revoked alone is kept by its audit id until it expires.
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
from provisioner.identity import grants
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
    # Keystone's system scope: no project; the roles are the user's on the system.
    system_scope: bool = False

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


def authenticate(username, password, project_name, user_id=None, project_id=None,
                 user_domain=None, project_domain=None, system=False):
    """Check credentials and return a new token scoped to the project.

    The user is named by ``username`` or ``user_id``, the project by ``project_name``
    or ``project_id`` (Keystone's password method accepts either), and each may
    name its domain ({id} or {name}). Without either, the token is scoped to the
    user's default project when they hold a role there, else unscoped (Keystone's:
    it proves who the user is, and can be exchanged for a project-scoped one, but
    no service accepts it). With ``system``: scoped to the system, for a user with
    a role on it.
    """
    failure = exception.NotAuthenticated(
        reason='wrong user name, password or project (check OS_USERNAME, OS_PASSWORD '
               'and OS_PROJECT_NAME)')
    with db_api.transaction() as session:
        user = _find(session, models.User, user_id, username)
        if user is None or not user.enabled or not _in_domain(session, user,
                                                              user_domain):
            # Spend the same time as a real check so user names cannot be probed.
            passwords.verify_password(password, passwords.hash_password('x'))
            raise failure
        if not passwords.verify_password(password, user.password_hash):
            raise failure
        user_id = user.id
        if system:
            if not grants.effective_roles(session, user.id, 'system', grants.SYSTEM):
                raise failure
            return fernet.issue(user_id, None, CONF.token.expiration, system=True)[0]
        if project_id is not None or project_name is not None:
            project = _find(session, models.Project, project_id, project_name)
            if not _scopable(session, project, project_domain, user.id):
                raise failure
            project_id = project.id
        elif user.default_project_id is not None:
            # Keystone's: no scope asked, the user's default project if usable.
            project = session.get(models.Project, user.default_project_id)
            if _scopable(session, project, None, user.id):
                project_id = project.id
    return fernet.issue(user_id, project_id, CONF.token.expiration)[0]


def _scopable(session, project, domain_ref, user_id):
    return (project is not None and project.enabled
            and _in_domain(session, project, domain_ref)
            and bool(roles_of(session, user_id, project.id)))


def rescope(token, project_name=None, project_id=None, project_domain=None):
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
        return fernet.issue(context.user_id, context.project_id, None, credential['id'],
                            expires_at=expires_at)[0]
    if project_id is not None or project_name is not None:
        with db_api.transaction() as session:
            project = _find(session, models.Project, project_id, project_name)
            if not _scopable(session, project, project_domain, context.user_id):
                raise exception.NotAuthenticated(
                    reason='the user has no role in project %s'
                           % (project_name or project_id))
            project_id = project.id
    return fernet.issue(context.user_id, project_id, None, expires_at=expires_at)[0]


def roles_of(session, user_id, project_id):
    """The names of the roles a user holds on a project: their own, their groups',
    and those these imply (Keystone's effective roles)."""
    return tuple(sorted(set(grants.effective_roles(session, user_id, 'project',
                                                   project_id).values())))


def _in_domain(session, row, ref):
    """Whether a user or project is in the (enabled) domain a request names by id or
    name (any enabled one when it names none)."""
    domain = session.get(models.Domain, row.domain_id)
    if domain is None or not domain.enabled:
        return False
    ref = ref or {}
    return ref.get('id') in (None, domain.id) and ref.get('name') in (None, domain.name)


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
        if fernet.is_system(token):
            roles = tuple(sorted(set(grants.effective_roles(
                session, user.id, 'system', grants.SYSTEM).values())))
            if not roles:
                raise revoked
            return RequestContext(user_id=user.id, user_name=user.name, project_id=None,
                                  project_name=None, roles=roles, system_scope=True)
        if project_id is None:
            return RequestContext(user_id=user.id, user_name=user.name,
                                  project_id=None, project_name=None, roles=())
        project = session.get(models.Project, project_id)
        usable = project is not None and _in_domain(session, project, None) and \
            _in_domain(session, user, None) and project.enabled
        roles = roles_of(session, user.id, project_id) if usable else ()
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
    if context.project_id is None and not context.system_scope:
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


def token_details(context):
    """What a token's body says besides its context: the user's and the project's
    domains ({id, name}) and the roles as {id, name}."""
    def domain_of(session, model, row_id):
        row = session.get(model, row_id) if row_id else None
        domain = session.get(models.Domain, row.domain_id) if row is not None else None
        return {'id': domain.id, 'name': domain.name} if domain is not None else None

    with db_api.transaction() as session:
        details = {'user_domain': domain_of(session, models.User, context.user_id),
                   'project_domain': domain_of(session, models.Project,
                                               context.project_id)}
        ids = {name: role_id for role_id, name in session.execute(
            sa.select(models.Role.id, models.Role.name).where(
                models.Role.name.in_(context.roles), models.Role.domain_id.is_(None)))}
    details['roles'] = [{'id': ids.get(name, name), 'name': name}
                        for name in context.roles]
    return details
