"""The connection pool pings a connection only when it sat idle, and replaces a dead one."""

import sqlalchemy as sa

from provisioner.db import api as db_api


def _engine(tmp_path, monkeypatch, idle_after):
    monkeypatch.setattr(db_api, '_PING_IDLE_AFTER', idle_after)
    engine = sa.create_engine('sqlite:///%s' % (tmp_path / 'pool.sqlite'),
                              poolclass=sa.pool.QueuePool, pool_size=1, max_overflow=0)
    db_api._ping_when_idle(engine)
    return engine


def _kill_pooled_connection(engine):
    with engine.connect() as conn:
        conn.execute(sa.text('SELECT 1'))
        dead = conn.connection.driver_connection
    dead.close()  # the pool still holds it, as after a server restart
    return dead


def test_a_dead_connection_idle_past_the_limit_is_replaced(tmp_path, monkeypatch):
    engine = _engine(tmp_path, monkeypatch, idle_after=0.0)
    dead = _kill_pooled_connection(engine)
    with engine.connect() as conn:
        assert conn.execute(sa.text('SELECT 2')).scalar() == 2
        assert conn.connection.driver_connection is not dead


def test_a_connection_back_a_moment_ago_is_not_pinged(tmp_path, monkeypatch):
    engine = _engine(tmp_path, monkeypatch, idle_after=3600.0)
    dead = _kill_pooled_connection(engine)
    # No round trip on checkout: the connection handed out is the pooled one.
    with engine.connect() as conn:
        assert conn.connection.driver_connection is dead
        conn.invalidate()
