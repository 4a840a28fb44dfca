"""Identity administration: users, projects and role assignments, under policy.

A password change or a disable stamps ``tokens_revoked_at``: every token the user held
stops validating at once, on every engine, with no token list to search. Deleting a
user or a project (with its role assignments) ends their tokens the same way.
"""

import uuid

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import grants
from provisioner.identity import passwords
from provisioner import policy
from provisioner import schemas
from provisioner import validation


def _by_name(session, model, name, kind):
    row = session.execute(sa.select(model).where(model.name == name)).scalar()
    if row is None:
        raise exception.NotFound(kind=kind, name=name)
    return row


def _insert(row, kind):
    try:
        with db_api.transaction() as session:
            session.add(row)
    except sa_exc.IntegrityError:
        raise exception.Conflict(reason='%s %s already exists.' % (kind, row.name)) from None


def create_project(context, name):
    policy.authorize(context, 'identity:project_create')
    validation.check({'name': name}, schemas.PROJECT_CREATE)
    project = models.Project(id=str(uuid.uuid4()), name=name)
    _insert(project, 'Project')
    return {'id': project.id, 'name': name}


def create_user(context, name, password):
    policy.authorize(context, 'identity:user_create')
    validation.check({'name': name, 'password': password}, schemas.USER_CREATE)
    user = models.User(id=str(uuid.uuid4()), name=name,
                       password_hash=passwords.hash_password(password))
    _insert(user, 'User')
    return {'id': user.id, 'name': name, 'enabled': True}


def set_password(context, name, password):
    policy.authorize(context, 'identity:user_update')
    validation.check({'name': name, 'password': password}, schemas.USER_SET_PASSWORD)
    password_hash = passwords.hash_password(password)
    with db_api.transaction() as session:
        user = _by_name(session, models.User, name, 'User')
        user.password_hash = password_hash
        user.tokens_revoked_at = models.utcnow()
        return {'id': user.id, 'name': name, 'enabled': user.enabled}


def disable_user(context, name):
    policy.authorize(context, 'identity:user_update')
    validation.check({'name': name}, schemas.USER_DISABLE)
    with db_api.transaction() as session:
        user = _by_name(session, models.User, name, 'User')
        user.enabled = False
        user.tokens_revoked_at = models.utcnow()
        return {'id': user.id, 'name': name, 'enabled': False}


def _assignment(session, context, action, user_name, project_name, role):
    """(user, project) of a role assignment request, once policy and input allow it."""
    policy.authorize(context, action)
    validation.check({'user': user_name, 'project': project_name, 'role': role},
                     schemas.ROLE_ADD)
    return (_by_name(session, models.User, user_name, 'User'),
            _by_name(session, models.Project, project_name, 'Project'))


def add_role(context, user_name, project_name, role):
    with db_api.transaction() as session:
        user, project = _assignment(session, context, 'identity:role_add', user_name,
                                    project_name, role)
        key = (user.id, project.id, role)
        if session.get(models.RoleAssignment, key) is None:
            session.add(models.RoleAssignment(user_id=user.id, project_id=project.id,
                                              role=role))
    return {'user': user_name, 'project': project_name, 'role': role}


def remove_role(context, user_name, project_name, role):
    """Take a role away; the user's tokens for that project end at once if none is left."""
    with db_api.transaction() as session:
        user, project = _assignment(session, context, 'identity:role_remove', user_name,
                                    project_name, role)
        row = session.get(models.RoleAssignment, (user.id, project.id, role))
        if row is None:
            raise exception.NotFound(kind='Role assignment', name='%s of %s in %s'
                                     % (role, user_name, project_name))
        session.delete(row)
    return {'user': user_name, 'project': project_name, 'role': role}



# -- reads, and what the REST API (Keystone's /v3) adds ---------------------------

def _project(row):
    return {'id': row.id, 'name': row.name, 'domain_id': row.domain_id,
            'description': row.description, 'enabled': row.enabled,
            'parent_id': row.parent_id, 'tags': row.tags}


def _by_id(session, model, row_id, kind):
    row = session.get(model, row_id)
    if row is None:
        raise exception.NotFound(kind=kind, name=row_id)
    return row


def show_project(context, project_id):
    with db_api.transaction() as session:
        project = _project(_by_id(session, models.Project, project_id, 'Project'))
    policy.authorize(context, 'identity:project_show', {'project_id': project_id})
    return project


def _delete(session, row):
    """Delete a project or user and its role assignments, nothing else: Keystone does
    not tell other services, whose resources keep the id."""
    ra = models.RoleAssignment
    column = ra.project_id if isinstance(row, models.Project) else ra.user_id
    session.execute(sa.delete(ra).where(column == row.id))
    grants.forget(session, 'project' if isinstance(row, models.Project) else 'user',
                  row.id)
    session.delete(row)


def delete_project(context, project_id):
    """Delete a project; tokens scoped to it stop validating (no role is left)."""
    policy.authorize(context, 'identity:project_delete', {'project_id': project_id})
    with db_api.transaction() as session:
        _delete(session, _by_id(session, models.Project, project_id, 'Project'))


def delete_user(context, user_id):
    """Delete a user; every token they hold stops validating (no user is left)."""
    policy.authorize(context, 'identity:user_delete', {'user_id': user_id})
    with db_api.transaction() as session:
        _delete(session, _by_id(session, models.User, user_id, 'User'))


def user_projects(context, user_id):
    """The projects a user has a role in (one's own, or anyone's for an admin)."""
    policy.authorize(context, 'identity:user_projects', {'user_id': user_id})
    with db_api.transaction() as session:
        ids = grants.targets_of(session, user_id, 'project')
        return [_project(row) for row in session.execute(
            sa.select(models.Project).where(models.Project.id.in_(ids))
            .order_by(models.Project.name)).scalars()]
