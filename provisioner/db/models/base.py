"""The declarative base every model shares, and its timestamps."""

import datetime

from sqlalchemy import orm


def utcnow():
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


class Base(orm.DeclarativeBase):
    pass


class TimestampMixin:
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(default=utcnow)
