"""Application credentials, as Keystone's: a user's secret for one project and some of
their roles on it, for an application to authenticate with instead of the password.

The secret is shown once, at creation (generated when not given); only its scrypt
hash is kept. A token issued for one carries its id (identity.fernet), and validates
only while the credential exists, has not expired and its user still holds every
role it names (service.credential_roles). A restricted credential (the default)
cannot make or delete credentials: an application that leaked its secret cannot
mint another one.
"""

import datetime
import secrets
import uuid

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import fernet
from provisioner.identity import passwords
from provisioner.identity import roles as roles_api
from provisioner.identity import service
from provisioner import policy

_FAILURE = 'wrong application credential id, name or secret'


class ApplicationCredentialNotFound(exception.NotFound):
    msg_fmt = 'Could not find application credential: %(name)s.'


def _view(session, credential):
    """Its attributes; ``roles``: [{id, name, domain_id}]."""
    return {'id': credential.id, 'name': credential.name,
            'description': credential.description, 'user_id': credential.user_id,
            'project_id': credential.project_id, 'expires_at': credential.expires_at,
            'unrestricted': credential.unrestricted,
            'roles': roles_api.refs(session, list(credential.roles))}


def _not_restricted(context):
    credential = context.application_credential
    if credential is not None and credential['restricted']:
        raise exception.Forbidden(reason="Using method 'application_credential' is not "
                                         "allowed for managing additional application "
                                         "credentials.")


def _wanted_roles(context, roles):
    """The role names asked for ({"id"} or {"name"} each; none: all the token's), each
    one the caller holds on the project (404 as Keystone otherwise)."""
    if not roles:
        return sorted(context.roles)
    names = []
    for role in roles:
        with db_api.transaction() as session:
            name = roles_api.name_of(session, role) if isinstance(role, dict) else None
        if name not in context.roles:
            raise exception.NotFound(kind='Role assignment', name='%s on project %s'
                                     % (name, context.project_id))
        names.append(name)
    return sorted(set(names))


def create(context, user_id, name, description=None, secret=None, expires_at=None,
           roles=None, unrestricted=False):
    """A new credential for the token's user and project; its view with the secret."""
    policy.authorize(context, 'identity:application_credential_create',
                     {'user_id': user_id})
    _not_restricted(context)
    if user_id != context.user_id:
        raise exception.Forbidden(reason='an application credential is made by its '
                                         'own user')
    if expires_at is not None and expires_at <= models.utcnow():
        raise exception.Invalid(reason='The expiration time of an application credential '
                                       'must be in the future.')
    secret = secret or secrets.token_urlsafe(64)
    credential = models.ApplicationCredential(
        id=uuid.uuid4().hex, user_id=user_id, project_id=context.project_id,
        name=name, description=description, expires_at=expires_at,
        secret_hash=passwords.hash_password(secret), unrestricted=bool(unrestricted),
        roles=_wanted_roles(context, roles))
    try:
        with db_api.transaction() as session:
            session.add(credential)
            session.flush()
            return dict(_view(session, credential), secret=secret)
    except sa_exc.IntegrityError:
        raise exception.Conflict(reason='Duplicate entry: an application credential '
                                        'named %s exists for this user.' % name) from None


def _owned(session, context, user_id, credential_id, action):
    policy.authorize(context, action, {'user_id': user_id})
    credential = session.get(models.ApplicationCredential, credential_id)
    if credential is None or credential.user_id != user_id:
        raise ApplicationCredentialNotFound(name=credential_id)
    return credential


def list_credentials(context, user_id, name=None):
    policy.authorize(context, 'identity:application_credential_list',
                     {'user_id': user_id})
    query = (sa.select(models.ApplicationCredential)
             .where(models.ApplicationCredential.user_id == user_id)
             .order_by(models.ApplicationCredential.created_at))
    if name is not None:
        query = query.where(models.ApplicationCredential.name == name)
    with db_api.transaction() as session:
        return [_view(session, c) for c in session.execute(query).scalars()]


def show(context, user_id, credential_id):
    with db_api.transaction() as session:
        return _view(session, _owned(session, context, user_id, credential_id,
                                     'identity:application_credential_show'))


def delete(context, user_id, credential_id):
    """Delete it: every token issued for it stops validating at once."""
    _not_restricted(context)
    with db_api.transaction() as session:
        session.delete(_owned(session, context, user_id, credential_id,
                              'identity:application_credential_delete'))


def authenticate(secret, credential_id=None, name=None, user_id=None, user_name=None):
    """A token for the credential (by id, or by name and its user's id or name),
    scoped to its project with its roles; lives at most until the credential expires."""
    failure = exception.NotAuthenticated(reason=_FAILURE)
    with db_api.transaction() as session:
        credential = _find(session, credential_id, name, user_id, user_name)
        if credential is None:
            passwords.verify_password(secret, passwords.hash_password('x'))
            raise failure
        if not passwords.verify_password(secret, credential.secret_hash):
            raise failure
        user = session.get(models.User, credential.user_id)
        held = service.roles_of(session, credential.user_id, credential.project_id)
        roles, _info = service.credential_roles(session, credential.id, credential.user_id,
                                                held)
        if not roles or user is None or not user.enabled:
            raise failure
        lifetime = CONF.token.expiration
        if credential.expires_at is not None:
            left = (credential.expires_at - models.utcnow()) / datetime.timedelta(seconds=1)
            lifetime = min(lifetime, left)
        ids = credential.user_id, credential.project_id, credential.id
    return fernet.issue(ids[0], ids[1], lifetime, ids[2])[0]


def _find(session, credential_id, name, user_id, user_name):
    if credential_id is not None:
        return session.get(models.ApplicationCredential, credential_id)
    if name is None or not (user_id or user_name):
        return None
    if user_id is None:
        user_id = session.execute(sa.select(models.User.id).where(
            models.User.name == user_name)).scalar()
    return session.execute(sa.select(models.ApplicationCredential).where(
        models.ApplicationCredential.user_id == user_id,
        models.ApplicationCredential.name == name)).scalar()
