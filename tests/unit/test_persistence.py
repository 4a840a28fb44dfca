"""provisioner's TaskFlow persistence keeps TaskFlow's semantics at a fraction of the cost."""

import uuid

from taskflow import engines
from taskflow.patterns import linear_flow
from taskflow.persistence import models as tf_models
from taskflow import states
from taskflow import storage as tf_storage
from taskflow import task

from sqlalchemy import event

from provisioner.db import api as db_api
from provisioner.engine import persistence

RAN = []


class Step(task.Task):
    def execute(self, value):
        RAN.append(self.name)
        return value + 1


class Stop(task.Task):
    def execute(self):
        RAN.append(self.name)


def make_flow():
    flow = linear_flow.Flow('demo')
    flow.add(Step('one', provides='a', rebind={'value': 'seed'}),
             Step('two', provides='b', rebind={'value': 'a'}),
             Step('three', provides='c', rebind={'value': 'b'}))
    return flow


def _load(flow_detail):
    return engines.load_from_detail(flow_detail, store={'seed': 1},
                                    backend=persistence.get_backend(), engine='serial')


def test_results_and_states_survive_a_reload():
    flow_detail = persistence.create_flow_detail('book', 'demo', book_uuid=None)
    engines.save_factory_details(flow_detail, make_flow, [], {},
                                 backend=persistence.get_backend())
    engine = _load(persistence.get_flow_detail(flow_detail.uuid))
    engine.run()
    reloaded = persistence.get_flow_detail(flow_detail.uuid)
    assert reloaded.state == states.SUCCESS
    by_name = {ad.name: ad for ad in reloaded}
    assert [by_name[n].results for n in ('one', 'two', 'three')] == [2, 3, 4]
    assert all(by_name[n].state == states.SUCCESS for n in ('one', 'two', 'three'))


def test_interrupted_flow_resumes_without_rerunning_finished_steps():
    RAN.clear()
    flow_detail = persistence.create_flow_detail('book2', 'demo', book_uuid=None)
    engines.save_factory_details(flow_detail, make_flow, [], {},
                                 backend=persistence.get_backend())
    engine = _load(persistence.get_flow_detail(flow_detail.uuid))
    engine.atom_notifier.register(states.SUCCESS,
                                  lambda state, details: details['task_name'] == 'one'
                                  and engine.suspend())
    engine.run()
    assert RAN == ['one']
    persistence.reset()  # a new process: nothing cached in memory
    _load(persistence.get_flow_detail(flow_detail.uuid)).run()
    assert RAN == ['one', 'two', 'three']
    final = {ad.name: ad.results for ad in persistence.get_flow_detail(flow_detail.uuid)}
    assert final['three'] == 4


def test_progress_only_changes_are_not_written():
    backend = persistence.get_backend()
    flow_detail = persistence.create_flow_detail('book3', 'demo', book_uuid=None)
    engines.save_factory_details(flow_detail, make_flow, [], {}, backend=backend)
    statements = []

    def record(conn, cursor, statement, *args):
        if statement.startswith('UPDATE atomdetails'):
            statements.append(statement)

    event.listen(db_api.get_engine(), 'before_cursor_execute', record)
    try:
        _load(persistence.get_flow_detail(flow_detail.uuid)).run()
    finally:
        event.remove(db_api.get_engine(), 'before_cursor_execute', record)
    # Per task, RUNNING and SUCCESS are written; the progress updates at 0.0 and 1.0
    # (stock TaskFlow writes those too: 4 per task) are not. Plus one: the store.
    assert len(statements) == 3 * 2 + 1


def _statements_during(func, prefix):
    statements = []

    def record(conn, cursor, statement, *args):
        if statement.startswith(prefix):
            statements.append(statement)

    event.listen(db_api.get_engine(), 'before_cursor_execute', record)
    try:
        func()
    finally:
        event.remove(db_api.get_engine(), 'before_cursor_execute', record)
    return statements


def test_stored_atoms_are_looked_up_only_for_a_flow_showing_new_atoms():
    backend = persistence.get_backend()
    flow_detail = persistence.create_flow_detail('book4', 'demo', book_uuid=None)
    engines.save_factory_details(flow_detail, make_flow, [], {}, backend=backend)
    lookups = _statements_during(
        lambda: _load(persistence.get_flow_detail(flow_detail.uuid)).run(),
        'SELECT atomdetails.uuid')
    # Loading the flow told which atoms are stored: the engine's saves (new atoms,
    # the store, then flow state changes) insert the new ones without looking.
    assert lookups == []
    persistence.reset()  # a new process knows nothing stored: it looks again
    reloaded = persistence.get_flow_detail(flow_detail.uuid)
    persistence.reset()
    conn = persistence.get_backend().get_connection()
    lookups = _statements_during(lambda: conn.update_flow_details(reloaded),
                                 'SELECT atomdetails.uuid')
    inserts = _statements_during(lambda: conn.update_flow_details(reloaded),
                                 'INSERT INTO atomdetails')
    assert len(lookups) == 1 and inserts == []
    assert {ad.name for ad in persistence.get_flow_detail(flow_detail.uuid)} >= {
        'one', 'two', 'three'}


def test_a_reader_that_loaded_before_the_writers_insert_does_not_mislead_it(
        monkeypatch):
    """The flow view reads a flow in the process that runs it: a load whose SELECT
    came before the engine stored the flow's atoms, and whose bookkeeping came
    after, must not make the engine insert them again."""
    from taskflow.persistence.backends import impl_sqlalchemy
    backend = persistence.get_backend()
    conn = backend.get_connection()
    flow_detail = persistence.create_flow_detail('book7', 'demo', book_uuid=None)
    engines.save_factory_details(flow_detail, make_flow, [], {}, backend=backend)
    stale = persistence.get_flow_detail(flow_detail.uuid)  # the reader's SELECT
    assert list(stale) == []
    engine = _load(persistence.get_flow_detail(flow_detail.uuid))
    engine.compile()
    engine.prepare()  # the writer stores the flow's atoms
    monkeypatch.setattr(impl_sqlalchemy.Connection, 'get_flow_details',
                        lambda self, fd_uuid, lazy=False: stale)
    conn.get_flow_details(flow_detail.uuid)  # the reader's bookkeeping, after
    monkeypatch.undo()
    engine.run()  # its flow state saves: no atom inserted twice
    assert persistence.get_flow_detail(flow_detail.uuid).state == states.SUCCESS


def test_a_flow_detail_is_saved_with_its_factory_in_one_transaction():
    from provisioner.engine import runner
    begins = []

    def on_begin(conn):
        begins.append(conn)

    event.listen(db_api.get_engine(), 'begin', on_begin)
    try:
        runner._save_flow('b5a1c43f-0000-4000-8000-000000000005',
                          'f5a1c43f-0000-4000-8000-000000000005', 'demo', make_flow)
    finally:
        event.remove(db_api.get_engine(), 'begin', on_begin)
    assert len(begins) == 1
    saved = persistence.get_flow_detail('f5a1c43f-0000-4000-8000-000000000005')
    assert saved.meta['factory']['name'].endswith('make_flow')
    engine = _load(saved)
    engine.run()
    assert engine.storage.fetch('c') == 4


def test_a_flow_whose_process_died_inside_inject_loads_and_runs():
    # TaskFlow's inject() stores a new flow's injector atom, then its results, in two
    # transactions. A process killed in between leaves the atom without results.
    RAN.clear()
    flow_detail = persistence.create_flow_detail('book6', 'demo', book_uuid=None)
    engines.save_factory_details(flow_detail, make_flow, [], {},
                                 backend=persistence.get_backend())
    half_injected = persistence.get_flow_detail(flow_detail.uuid)
    half_injected.add(tf_models.TaskDetail(tf_storage.Storage.injector_name,
                                           str(uuid.uuid4())))
    persistence.get_backend().get_connection().update_flow_details(half_injected)
    persistence.reset()  # the next process

    engine = _load(persistence.get_flow_detail(flow_detail.uuid))
    engine.run()
    assert RAN == ['one', 'two', 'three']
    assert engine.storage.fetch('c') == 4
    assert persistence.get_flow_detail(flow_detail.uuid).state == states.SUCCESS
