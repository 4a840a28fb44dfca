"""TaskFlow persistence in provisioner's own database, made cheap enough per step.

Two costs of the stock SQLAlchemy backend, measured on every step of every boot:

* ``SQLAlchemyBackend.get_connection()`` builds a new ``Connection`` -- and with it a
  new ``MetaData`` and all three tables -- for every write TaskFlow's storage makes
  (~36 ms a task on PostgreSQL). The connection holds no per-call state (each
  operation opens its own transaction), so one per backend is enough.
* ``update_atom_details`` reads the row, merges, and builds a fresh UPDATE whose cache
  key SQLAlchemy recomputes each time (~2 ms a write on SQLite). The merge always
  yields the caller's detail (``merge`` copies every field over), so one prepared
  UPDATE with bound parameters does the same work. ``update_flow_details`` rewrites
  every atom row of the flow on each flow state change (~10 ms); atoms are always
  saved through ``update_atom_details``, so here only new atoms need inserting; which
  atoms are stored is remembered from loading the flow and from its last save, and
  looked up only for a flow this process neither loaded nor saved.
* Half of the atom writes only move ``meta['progress']`` (0.0 when a task starts,
  1.0 when it ends). Nothing reads persisted progress and the next state change
  writes it anyway, so a write whose only change is progress is skipped.

Both shortcuts rely on one writer per flow, which provisioner guarantees (a file lock
all-in-one, a job claim distributed).

A step's end is written with its instance event, in one transaction (``recording``):
the event recorder (provisioner.engine.listeners) hands the connection a writer that
the atom's write calls inside its transaction.

Distributed, a flow run under an instance lease is *fenced*: each of its writes is
conditional on the lease still being held (see provisioner.engine.leases), so an
engine that lost its lease cannot write over the engine that took the boot over.
"""

import collections
import contextlib
import importlib
import json
import sys
import threading
import types
import uuid

import sqlalchemy as sa


class _ImportOnUse(types.ModuleType):
    """Stands in for a module until one of its attributes is used."""

    def __getattr__(self, attribute):
        del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), attribute)


# TaskFlow's SQLAlchemy backend imports its alembic migrations when it is imported
# (~0.2 s of every CLI start); they are only used by db-sync's upgrade().
_TASKFLOW_MIGRATION = 'taskflow.persistence.backends.sqlalchemy.migration'
sys.modules.setdefault(_TASKFLOW_MIGRATION, _ImportOnUse(_TASKFLOW_MIGRATION))

from taskflow import exceptions as tf_exc  # noqa: E402
from taskflow.persistence.backends import impl_sqlalchemy  # noqa: E402
from taskflow.persistence import models as tf_models  # noqa: E402
from taskflow import states as tf_states  # noqa: E402
from taskflow import storage as tf_storage  # noqa: E402

from provisioner.db import api as db_api  # noqa: E402
from provisioner.engine import leases  # noqa: E402

_lock = threading.Lock()
_backend = None


_ATOM_FIELDS = ('failure', 'revert_failure', 'meta', 'name', 'results',
                'revert_results', 'state', 'version', 'intention')
_FLOW_FIELDS = ('meta', 'name', 'state')
_WRITTEN_MAX = 4096
_STORED_FLOWS_MAX = 1024


def _prepared_update(table, fields):
    return (sa.update(table)
            .where(table.c.uuid == sa.bindparam('row_uuid'))
            .values({field: sa.bindparam('new_' + field) for field in fields}))


def _without_progress(params):
    meta = params.get('new_meta') or {}
    rest = dict(params, new_meta={k: v for k, v in meta.items() if k != 'progress'})
    return json.dumps(rest, sort_keys=True, default=repr)


def _params(detail, fields):
    values = detail.to_dict()
    params = {'new_' + field: values[field] for field in fields}
    params['row_uuid'] = detail.uuid
    return params


class FastConnection(impl_sqlalchemy.Connection):
    """A Connection whose atom updates are one prepared statement."""

    def __init__(self, backend, upgrade_lock):
        super().__init__(backend, upgrade_lock)
        self._update_atom = _prepared_update(self._tables.atomdetails, _ATOM_FIELDS)
        self._update_flow = _prepared_update(self._tables.flowdetails, _FLOW_FIELDS)
        self._fenced_update_atom = self._update_atom.where(leases.fence_condition())
        self._fenced_update_flow = self._update_flow.where(leases.fence_condition())
        # flow or atom uuid -> the Lease its writes are conditional on.
        self._fences = {}
        # atom uuid -> writer(conn, atom_detail), called in each write of the atom's
        # transaction; it returns what to call once that transaction committed.
        self._writers = {}
        # atom uuid -> what was last written, progress aside; bounded for daemons.
        self._written = collections.OrderedDict()
        # flow uuid -> uuids of its atoms known to be stored; bounded for daemons.
        self._stored_atoms = collections.OrderedDict()
        self._stored_lock = threading.Lock()

    def fence(self, flow_detail, lease):
        """Make every later write of this flow conditional on holding ``lease``."""
        self._fences[flow_detail.uuid] = lease
        for atom_detail in flow_detail:
            self._fences[atom_detail.uuid] = lease

    def unfence(self, flow_detail):
        self._fences.pop(flow_detail.uuid, None)
        for atom_detail in flow_detail:
            self._fences.pop(atom_detail.uuid, None)

    def add_writer(self, flow_detail, writer):
        """Have every write of the flow's atoms call ``writer`` in its transaction."""
        for atom_detail in flow_detail:
            self._writers[atom_detail.uuid] = writer

    def remove_writer(self, flow_detail):
        for atom_detail in flow_detail:
            self._writers.pop(atom_detail.uuid, None)

    def _execute_update(self, conn, statement, fenced_statement, params, uuid_):
        lease = self._fences.get(uuid_)
        if lease is None:
            return conn.execute(statement, params).rowcount
        updated = conn.execute(fenced_statement,
                               dict(params, **leases.fence_params(lease))).rowcount
        if not updated:
            raise leases.LeaseLost(lease.instance_id)
        return updated

    def update_atom_details(self, atom_detail):
        params = _params(atom_detail, _ATOM_FIELDS)
        essence = _without_progress(params)
        if self._written.get(atom_detail.uuid) == essence:
            return atom_detail
        writer = self._writers.get(atom_detail.uuid)
        committed = None
        try:
            with self._engine.begin() as conn:
                updated = self._execute_update(conn, self._update_atom,
                                               self._fenced_update_atom, params,
                                               atom_detail.uuid)
                if updated and writer is not None:
                    committed = writer(conn, atom_detail)
        except sa.exc.SQLAlchemyError as exc:
            raise tf_exc.StorageFailure('Failed updating atom details with uuid %s'
                                        % atom_detail.uuid, exc)
        if not updated:
            raise tf_exc.NotFound('No atom details found with uuid %s' % atom_detail.uuid)
        if committed is not None:
            committed()
        self._written[atom_detail.uuid] = essence
        self._written.move_to_end(atom_detail.uuid)
        if len(self._written) > _WRITTEN_MAX:
            self._written.popitem(last=False)
        return atom_detail

    @staticmethod
    def _atom_row(atom_detail, flow_uuid):
        row = atom_detail.to_dict()
        row['parent_uuid'] = flow_uuid
        row['atom_type'] = tf_models.atom_detail_type(atom_detail)
        return row

    def update_flow_details(self, flow_detail):
        atoms = self._tables.atomdetails
        try:
            with self._engine.begin() as conn:
                updated = self._execute_update(conn, self._update_flow,
                                               self._fenced_update_flow,
                                               _params(flow_detail, _FLOW_FIELDS),
                                               flow_detail.uuid)
                if not updated:
                    raise tf_exc.NotFound('No flow details found with uuid %s'
                                          % flow_detail.uuid)
                atom_uuids = {atom_detail.uuid for atom_detail in flow_detail}
                stored = self._known_stored(flow_detail.uuid)
                if stored is None:
                    stored = set(conn.execute(
                        sa.select(atoms.c.uuid)
                        .where(atoms.c.parent_uuid == flow_detail.uuid)).scalars())
                new_rows = [self._atom_row(atom_detail, flow_detail.uuid)
                            for atom_detail in flow_detail
                            if atom_detail.uuid not in stored]
                if new_rows:
                    conn.execute(sa.insert(atoms), new_rows)
                    lease = self._fences.get(flow_detail.uuid)
                    if lease is not None:
                        self._fences.update((row['uuid'], lease) for row in new_rows)
        except sa.exc.SQLAlchemyError as exc:
            raise tf_exc.StorageFailure('Failed updating flow details with uuid %s'
                                        % flow_detail.uuid, exc)
        # Committed: every atom of the flow is stored now.
        self._remember_stored(flow_detail.uuid, stored | atom_uuids)
        return flow_detail

    def _known_stored(self, flow_uuid):
        """The uuids of the flow's stored atoms, or None when this process does not
        know them (it neither loaded nor saved the flow lately)."""
        with self._stored_lock:
            return self._stored_atoms.get(flow_uuid)

    def get_flow_details(self, fd_uuid, lazy=False):
        flow_detail = super().get_flow_details(fd_uuid, lazy=lazy)
        _repair_half_injected(flow_detail)
        if not lazy:
            # What a load found is stored, and stays (atoms go only with their
            # logbook): added to what this process knows, not put in its place. A
            # reader in the writer's process (the flow view of provisioner-api) may
            # have read before the writer's last insert and remember after it; in
            # its place, the writer would insert those atoms again and fail.
            self._remember_stored(flow_detail.uuid,
                                  {atom_detail.uuid for atom_detail in flow_detail},
                                  merge=True)
        return flow_detail

    def _remember_stored(self, flow_uuid, atom_uuids, merge=False):
        with self._stored_lock:
            if merge:
                atom_uuids = set(atom_uuids) | self._stored_atoms.get(flow_uuid, set())
            self._stored_atoms[flow_uuid] = frozenset(atom_uuids)
            self._stored_atoms.move_to_end(flow_uuid)
            if len(self._stored_atoms) > _STORED_FLOWS_MAX:
                self._stored_atoms.popitem(last=False)

    def destroy_logbook(self, book_uuid):
        # Its flows' atoms are gone: a flow of the same uuid saved again (a test
        # database reused) must not be thought stored.
        with self._stored_lock:
            self._stored_atoms.clear()
        return super().destroy_logbook(book_uuid)


def _repair_half_injected(flow_detail):
    """Make a flow whose process died in the middle of TaskFlow's inject() loadable.

    Storage.inject() stores a new flow's injector atom without results, then its
    results, in two transactions; a process killed between them (seen under load:
    kill -9 of an engine with 200 boots in flight) left an atom that every later
    load failed on ('NoneType' has no attribute 'keys'), so the boot could never be
    resumed or rolled back. It gets what the second write would have stored, with
    no value yet: the runner injects the store again on every load.
    """
    for atom_detail in flow_detail:
        if atom_detail.name == tf_storage.Storage.injector_name \
                and atom_detail.results is None:
            atom_detail.results = {}
            atom_detail.state = tf_states.SUCCESS


class CachedSQLAlchemyBackend(impl_sqlalchemy.SQLAlchemyBackend):
    """SQLAlchemyBackend that hands out one FastConnection (one MetaData) for life."""

    def __init__(self, engine):
        super().__init__({'connection': engine.url.render_as_string()}, engine=engine)
        self._connection = None
        self._connection_lock = threading.Lock()

    def get_connection(self):
        with self._connection_lock:
            if self._connection is None:
                connection = FastConnection(self, upgrade_lock=self._upgrade_lock)
                if not self._validated:
                    connection.validate(max_retries=self._max_retries)
                    self._validated = True
                self._connection = connection
            return self._connection

    def close(self):
        with self._connection_lock:
            self._connection = None
        super().close()


def get_backend():
    """The flow store, on the database engine db_api uses now.

    Following db_api's engine means that switching databases (db_api.dispose())
    can never leave the flow store writing to the previous one.
    """
    global _backend
    engine = db_api.get_engine()
    with _lock:
        if _backend is None or _backend.engine is not engine:
            _backend = CachedSQLAlchemyBackend(engine)
        return _backend


def reset():
    global _backend
    with _lock:
        _backend = None


@contextlib.contextmanager
def fenced(flow_detail, lease):
    """Within this block, the flow's writes fail with LeaseLost once lease is lost."""
    connection = get_backend().get_connection()
    connection.fence(flow_detail, lease)
    try:
        yield
    finally:
        connection.unfence(flow_detail)


@contextlib.contextmanager
def recording(flow_detail, writer):
    """Within this block, each write of the flow's atoms also calls
    ``writer(conn, atom_detail)`` in its transaction (see FastConnection.add_writer);
    False is yielded when the flow store cannot (TaskFlow's stock backend)."""
    connection = get_backend().get_connection()
    if not isinstance(connection, FastConnection):
        yield False
        return
    connection.add_writer(flow_detail, writer)
    try:
        yield True
    finally:
        connection.remove_writer(flow_detail)


def create_flow_detail(book_name, flow_name, book_uuid, flow_uuid=None, meta=None):
    """A new flow detail (with ``meta``) in the instance's logbook, created when
    missing, all in one transaction; returns it."""
    book = tf_models.LogBook(book_name, uuid=book_uuid)
    flow_detail = tf_models.FlowDetail(flow_name, uuid=flow_uuid or str(uuid.uuid4()))
    flow_detail.meta = meta
    book.add(flow_detail)
    with contextlib.closing(get_backend().get_connection()) as conn:
        conn.save_logbook(book)
    return flow_detail


def get_flow_detail(flow_uuid):
    """The flow detail with its atoms; None when it was never saved."""
    with contextlib.closing(get_backend().get_connection()) as conn:
        try:
            return conn.get_flow_details(flow_uuid)
        except tf_exc.NotFound:
            return None


def destroy_logbook(book_uuid):
    """Forget an instance's flows; a missing logbook is fine."""
    with contextlib.closing(get_backend().get_connection()) as conn:
        try:
            conn.destroy_logbook(book_uuid)
        except tf_exc.NotFound:
            pass
