"""Identity administration: users, projects and role assignments, under policy.

A password change or a disable stamps ``tokens_revoked_at``: every token the user held
stops validating at once, on every engine, with no token list to search.
"""

import uuid

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import passwords
from provisioner import policy
from provisioner import schemas


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
    schemas.validate(schemas.PROJECT_CREATE, {'name': name})
    project = models.Project(id=str(uuid.uuid4()), name=name)
    _insert(project, 'Project')
    return {'id': project.id, 'name': name}


def create_user(context, name, password):
    policy.authorize(context, 'identity:user_create')
    schemas.validate(schemas.USER_CREATE, {'name': name, 'password': password})
    user = models.User(id=str(uuid.uuid4()), name=name,
                       password_hash=passwords.hash_password(password))
    _insert(user, 'User')
    return {'id': user.id, 'name': name, 'enabled': True}


def set_password(context, name, password):
    policy.authorize(context, 'identity:user_update')
    schemas.validate(schemas.USER_SET_PASSWORD, {'name': name, 'password': password})
    password_hash = passwords.hash_password(password)
    with db_api.transaction() as session:
        user = _by_name(session, models.User, name, 'User')
        user.password_hash = password_hash
        user.tokens_revoked_at = models.utcnow()
        return {'id': user.id, 'name': name, 'enabled': user.enabled}


def disable_user(context, name):
    policy.authorize(context, 'identity:user_update')
    schemas.validate(schemas.USER_DISABLE, {'name': name})
    with db_api.transaction() as session:
        user = _by_name(session, models.User, name, 'User')
        user.enabled = False
        user.tokens_revoked_at = models.utcnow()
        return {'id': user.id, 'name': name, 'enabled': False}


def add_role(context, user_name, project_name, role):
    policy.authorize(context, 'identity:role_add')
    schemas.validate(schemas.ROLE_ADD, {'user': user_name, 'project': project_name,
                                        'role': role})
    with db_api.transaction() as session:
        user = _by_name(session, models.User, user_name, 'User')
        project = _by_name(session, models.Project, project_name, 'Project')
        key = (user.id, project.id, role)
        if session.get(models.RoleAssignment, key) is None:
            session.add(models.RoleAssignment(user_id=user.id, project_id=project.id,
                                              role=role))
    return {'user': user_name, 'project': project_name, 'role': role}

