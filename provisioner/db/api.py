"""One SQLAlchemy engine per process and the transaction helper every caller uses."""

import contextlib
import os
import threading
import time

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy import orm

from provisioner.conf import CONF
from provisioner.db.basics import database_url
from provisioner.db.basics import is_sqlite

_lock = threading.Lock()
_engine = None
_sessionmaker = None
# Seconds after which PostgreSQL ends a session idle in a transaction (None: never).
_idle_transaction_timeout = None
# A pooled connection idle longer than this is pinged before it is handed out.
_PING_IDLE_AFTER = 1.0


def _configure_sqlite(engine):
    @event.listens_for(engine, 'connect')
    def _on_connect(dbapi_conn, _record):
        # Take the transaction out of pysqlite's hands so BEGIN IMMEDIATE below is ours.
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        # WAL + NORMAL survives a killed process (what resume relies on) without an
        # fsync per commit; foreign keys are off by default in SQLite.
        cursor.execute('PRAGMA journal_mode=WAL')
        cursor.execute('PRAGMA synchronous=NORMAL')
        cursor.execute('PRAGMA foreign_keys=ON')
        cursor.execute('PRAGMA busy_timeout=%d'
                       % (CONF.database.sqlite_busy_timeout * 1000))
        cursor.close()

    @event.listens_for(engine, 'begin')
    def _on_begin(conn):
        # A deferred transaction that reads then writes can fail at once with
        # SQLITE_BUSY under concurrent writers; taking the write lock up front makes
        # every transaction wait its turn instead (claims rely on this).
        # Straight to the driver: through SQLAlchemy's execute this cost as much as
        # the statement it opened (a boot opens ~70 transactions).
        conn.connection.driver_connection.execute('BEGIN IMMEDIATE')


def _ping_when_idle(engine):
    """Check a pooled connection that sat idle before handing it out.

    SQLAlchemy's pool_pre_ping pings on every checkout: one more round trip per
    transaction (a third of an engine's PostgreSQL round trips under load). A
    connection handed back a moment ago is as alive as the server; one that waited
    (a quiet daemon, a server restarted meanwhile) is pinged, and a dead one is
    replaced, as pre-ping does.
    """
    @event.listens_for(engine, 'checkin')
    def _on_checkin(_dbapi_conn, record):
        record.info['checked_in'] = time.monotonic()

    @event.listens_for(engine, 'checkout')
    def _on_checkout(dbapi_conn, record, _proxy):
        checked_in = record.info.pop('checked_in', None)
        if checked_in is None or time.monotonic() - checked_in < _PING_IDLE_AFTER:
            return  # just connected, or in use a moment ago
        try:
            cursor = dbapi_conn.cursor()
            try:
                cursor.execute('SELECT 1')
            finally:
                cursor.close()
        except Exception as exc:
            # The pool drops this connection and checks out another (a new one).
            raise sa.exc.DisconnectionError('pooled connection is dead: %s' % exc)


def _create_engine(url):
    if is_sqlite(url):
        path = url.split('///', 1)[1]
        if path and path != ':memory:':
            directory = os.path.dirname(os.path.abspath(path))
            os.makedirs(directory, mode=0o755, exist_ok=True)
            # Owner-only from the first byte: the file holds password hashes.
            if not os.path.exists(path):
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        # One connection, taken in turn: SQLite allows one writer anyway, and threads
        # waiting on the pool wake the moment it is free, where SQLite's own busy
        # handler sleeps and polls (that doubled the time of a parallel boot).
        engine = sa.create_engine(
            url, poolclass=sa.pool.QueuePool, pool_size=1, max_overflow=0,
            pool_timeout=CONF.database.sqlite_busy_timeout,
            connect_args={'check_same_thread': False,
                          'timeout': CONF.database.sqlite_busy_timeout})
        _configure_sqlite(engine)
        return engine
    connect_args = {}
    if _idle_transaction_timeout is not None:
        connect_args['options'] = ('-c idle_in_transaction_session_timeout=%d'
                                   % int(_idle_transaction_timeout * 1000))
    engine = sa.create_engine(url, pool_size=10, max_overflow=20,
                              connect_args=connect_args)
    _ping_when_idle(engine)
    return engine


def limit_idle_transactions(seconds):
    """Have the server end a session left idle inside a transaction for ``seconds``.

    PostgreSQL only (SQLite serves one host). A process stopped between two
    statements of a transaction (SIGSTOP, a frozen VM, a long swap) keeps that
    transaction's row locks for as long as it is stopped: whoever takes its work over
    waits on them, however early the stopped process's claims expired. The server
    rolls such a transaction back and closes the session after ``seconds``.
    """
    global _idle_transaction_timeout
    _idle_transaction_timeout = seconds
    dispose()  # connections made from now on carry the setting


def get_engine():
    global _engine, _sessionmaker
    with _lock:
        if _engine is None:
            _engine = _create_engine(database_url())
            _sessionmaker = orm.sessionmaker(bind=_engine, expire_on_commit=False)
        return _engine


def dispose():
    """Forget the engine (tests switch databases; forked children need their own)."""
    global _engine, _sessionmaker
    with _lock:
        if _engine is not None:
            _engine.dispose()
        _engine = None
        _sessionmaker = None


@contextlib.contextmanager
def transaction():
    """A session whose work commits on success and rolls back on any error."""
    get_engine()
    with _sessionmaker() as session, session.begin():
        yield session


@contextlib.contextmanager
def connection():
    """A Core connection in a transaction, for hot paths that need no ORM session."""
    with get_engine().begin() as conn:
        yield conn
