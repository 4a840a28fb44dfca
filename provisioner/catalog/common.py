"""What every catalog resource shares: lookup by name or id, listing, deletion."""

import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception


def find(session, model, name_or_id, kind):
    """The row with this id, else the one with this name; a name several rows share
    (images' names repeat, as Glance's) is a Conflict that asks for the id."""
    row = session.get(model, name_or_id)
    if row is not None:
        return row
    rows = session.execute(sa.select(model).where(model.name == name_or_id)
                           .limit(2)).scalars().all()
    if not rows:
        raise exception.NotFound(kind=kind, name=name_or_id)
    if len(rows) > 1:
        raise exception.Conflict(reason='more than one %s is named %s: give its id'
                                        % (kind.lower(), name_or_id))
    return rows[0]


def to_dict(row):
    return {c.name: getattr(row, c.name) for c in row.__table__.columns}


def add_unique(row, kind):
    """Insert a catalog row; a taken name is a clear Conflict, not a traceback."""
    try:
        with db_api.transaction() as session:
            session.add(row)
    except sa_exc.IntegrityError:
        raise exception.Conflict(reason='%s %s already exists.'
                                        % (kind, row.name)) from None
    return to_dict(row)


def list_all(model):
    with db_api.transaction() as session:
        return [to_dict(r) for r in
                session.execute(sa.select(model).order_by(model.name)).scalars()]


def show(model, name_or_id, kind):
    with db_api.transaction() as session:
        return to_dict(find(session, model, name_or_id, kind))


def delete(model, name_or_id, kind, in_use=None):
    """Delete a catalog row unless in_use(session, row) names who still uses it."""
    with db_api.transaction() as session:
        row = find(session, model, name_or_id, kind)
        if in_use is not None:
            users = in_use(session, row)
            if users:
                raise exception.Conflict(reason='%s %s is in use by %s.'
                                                % (kind, row.name, users))
        session.delete(row)
        return to_dict(row)


def instances_using(column):
    """An in_use check for delete(): names of live instances whose column is the row.

    Live as Nova's database layer counts them: not soft-deleted (``deleted_at`` is
    set with vm_state deleted, by the delete flow's last step).
    """

    def in_use(session, row):
        return ', '.join(session.execute(sa.select(models.Instance.name).where(
            column == row.id, models.Instance.deleted_at.is_(None))).scalars())

    return in_use


class Catalog:
    """list/show/delete of one catalog resource; a module exposes its bound methods."""

    def __init__(self, model, kind, in_use=None):
        self.model, self.kind, self.in_use = model, kind, in_use

    def list_all(self):
        return list_all(self.model)

    def show(self, name_or_id):
        return show(self.model, name_or_id, self.kind)

    def delete(self, name_or_id):
        return delete(self.model, name_or_id, self.kind, self.in_use)
