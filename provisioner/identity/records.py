"""What every Keystone resource of provisioner shares: find by id, create, update,
list with filters, delete, each under its policy rule (``identity:<verb>_<kind>``,
Keystone's names) and each answered as a plain dict of the row's columns."""

import uuid

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.db import api as db_api
from provisioner import exception
from provisioner import policy


def new_id():
    return uuid.uuid4().hex


def as_dict(row):
    return {column.key: getattr(row, column.key)
            for column in sa.inspect(type(row)).mapper.column_attrs}


def columns(model, values):
    """The ``values`` a row of ``model`` keeps (its columns but its id): Keystone's
    attributes provisioner does not keep are dropped."""
    keys = {c.key for c in sa.inspect(model).mapper.column_attrs} - {'id'}
    return {key: value for key, value in values.items() if key in keys}


def get(session, model, row_id, kind):
    row = session.get(model, row_id) if row_id is not None else None
    if row is None:
        raise exception.NotFound(kind=kind, name=row_id)
    return row


def conflict(kind, what):
    return exception.Conflict(reason='Conflict occurred attempting to store %s - '
                                     'Duplicate entry: %s.' % (kind.lower(), what))


def insert(session, row, kind, what):
    """Add a row now, so a duplicate is Keystone's 409, not a 500 at commit."""
    try:
        with session.begin_nested():
            session.add(row)
            session.flush()
    except sa_exc.IntegrityError:
        raise conflict(kind, what) from None
    return row


def show(context, action, model, row_id, kind, target=None):
    policy.authorize(context, action, target or {})
    with db_api.transaction() as session:
        return as_dict(get(session, model, row_id, kind))


def listed(context, action, model, filters, target=None):
    """Rows whose columns equal ``filters`` (None values are no filter)."""
    policy.authorize(context, action, target or {})
    query = sa.select(model)
    for key, value in filters.items():
        if value is not None:
            query = query.where(getattr(model, key) == value)
    with db_api.transaction() as session:
        return [as_dict(row) for row in session.execute(query).scalars()]


def update(context, action, model, row_id, kind, changes, check=None):
    """Set ``changes`` (column: value); ``check(session, row, changes)`` refuses
    what the resource does not allow, before anything is written."""
    policy.authorize(context, action, {})
    with db_api.transaction() as session:
        row = get(session, model, row_id, kind)
        changes = columns(model, changes)
        if check is not None:
            check(session, row, changes)
        for key, value in changes.items():
            setattr(row, key, value)
        try:
            session.flush()
        except sa_exc.IntegrityError:
            raise conflict(kind, changes.get('name', row_id)) from None
        return as_dict(row)


def delete(context, action, model, row_id, kind, before=None):
    """Delete a row; ``before(session, row)`` refuses or deletes what goes with it."""
    policy.authorize(context, action, {})
    with db_api.transaction() as session:
        row = get(session, model, row_id, kind)
        if before is not None:
            before(session, row)
        session.delete(row)


def operations(model, kind, singular, plural):
    """(show, list, update, delete) of a resource under Keystone's rules
    identity:get_<singular>, list_<plural>, update_<singular>, delete_<singular>:
    show(context, id), list(context, filters), update(context, id, changes),
    delete(context, id)."""
    def show_one(context, row_id):
        return show(context, 'identity:get_%s' % singular, model, row_id, kind)

    def list_all(context, filters):
        return listed(context, 'identity:list_%s' % plural, model, filters)

    def update_one(context, row_id, changes):
        return update(context, 'identity:update_%s' % singular, model, row_id, kind,
                      changes)

    def delete_one(context, row_id):
        delete(context, 'identity:delete_%s' % singular, model, row_id, kind)
    return show_one, list_all, update_one, delete_one
