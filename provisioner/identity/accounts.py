"""Projects and users as Keystone's v3 makes them: in a domain, with a description,
enabled or not, a project's parent and tags, a user's default project and free
attributes (e-mail...); and a user's own password change."""

import secrets

import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import admin
from provisioner.identity import passwords
from provisioner.identity import records
from provisioner import policy

_USER_COLUMNS = ('name', 'domain_id', 'description', 'enabled', 'default_project_id')


def _domain(session, domain_id):
    domain = records.get(session, models.Domain, domain_id, 'Domain')
    return domain.id


def create_project(context, values):
    """``values``: name, domain_id, description, enabled, parent_id, tags."""
    policy.authorize(context, 'identity:project_create')
    with db_api.transaction() as session:
        parent = None
        if values.get('parent_id'):
            parent = records.get(session, models.Project, values['parent_id'], 'Project')
            values.setdefault('domain_id', parent.domain_id)
        values['domain_id'] = _domain(session, values.get('domain_id')
                                      or models.DEFAULT_DOMAIN_ID)
        if parent is not None and parent.domain_id != values['domain_id']:
            raise exception.Invalid(reason='a project\'s parent must be in its domain')
        project = models.Project(id=records.new_id(),
                                 **records.columns(models.Project, values))
        return records.as_dict(records.insert(session, project, 'Project',
                                              values['name']))


def update_project(context, project_id, changes):
    """A disabled project's tokens stop validating (service.inspect)."""
    return records.update(context, 'identity:project_update', models.Project,
                          project_id, 'Project', changes)


def list_projects(context, filters):
    return records.listed(context, 'identity:project_list', models.Project, filters)


def _user_row(values):
    extra = {k: v for k, v in values.items() if k not in _USER_COLUMNS + ('password',)}
    row = {k: values[k] for k in _USER_COLUMNS if k in values}
    return row, extra


def create_user(context, values):
    """Keystone's: a user without a password exists but cannot authenticate."""
    policy.authorize(context, 'identity:user_create')
    row, extra = _user_row(values)
    password = values.get('password') or secrets.token_urlsafe(32)
    with db_api.transaction() as session:
        row['domain_id'] = _domain(session, row.get('domain_id')
                                   or models.DEFAULT_DOMAIN_ID)
        user = models.User(id=records.new_id(), extra=extra,
                           password_hash=passwords.hash_password(password), **row)
        return records.as_dict(records.insert(session, user, 'User', row['name']))


def update_user(context, user_id, values):
    """A new password or a disable ends the user's tokens."""
    policy.authorize(context, 'identity:user_update')
    row, extra = _user_row(values)
    with db_api.transaction() as session:
        user = records.get(session, models.User, user_id, 'User')
        if 'domain_id' in row and row['domain_id'] != user.domain_id:
            raise exception.Invalid(reason='a user cannot move to another domain')
        for key, value in row.items():
            setattr(user, key, value)
        if extra:
            user.extra = dict(user.extra or {}, **extra)
        if values.get('password') is not None:
            user.password_hash = passwords.hash_password(values['password'])
        if values.get('password') is not None or values.get('enabled') is False:
            user.tokens_revoked_at = models.utcnow()
        try:
            session.flush()
        except sa.exc.IntegrityError:
            raise records.conflict('User', row.get('name')) from None
        return records.as_dict(user)


def list_users(context, filters):
    return records.listed(context, 'identity:user_list', models.User, filters)


def show_user(context, user_id):
    policy.authorize(context, 'identity:user_show', {'user_id': user_id})
    with db_api.transaction() as session:
        return records.as_dict(records.get(session, models.User, user_id, 'User'))


def change_password(user_id, original, new):
    """Keystone's POST /v3/users/{id}/password: the original password is the
    authority (no policy); every token of the user ends."""
    failure = exception.NotAuthenticated(reason='the original password is wrong')
    with db_api.transaction() as session:
        user = session.get(models.User, user_id)
        if user is None or not user.enabled:
            passwords.verify_password(original, passwords.hash_password('x'))
            raise failure
        if not passwords.verify_password(original, user.password_hash):
            raise failure
        user.password_hash = passwords.hash_password(new)
        user.tokens_revoked_at = models.utcnow()


show_project = admin.show_project
delete_project = admin.delete_project
delete_user = admin.delete_user
