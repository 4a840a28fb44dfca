"""A step's end and its instance event are one write: same events, fewer transactions."""

import contextlib

import pytest
from sqlalchemy import event

from provisioner.db import api as db_api
from provisioner.engine import persistence
from tests.unit.flows.conftest import boot_request

from flows import constants as c


@contextlib.contextmanager
def _transactions():
    """Statements per transaction while the block runs."""
    seen = []

    def on_begin(conn):
        seen.append([])

    def on_statement(conn, cursor, statement, *args):
        words = statement.split()  # 'UPDATE atomdetails', 'INSERT instance_events'
        if seen:
            seen[-1].append(' '.join(words[:3:2] if words[0] == 'INSERT' else words[:2]))

    engine = db_api.get_engine()
    event.listen(engine, 'begin', on_begin)
    event.listen(engine, 'before_cursor_execute', on_statement)
    try:
        yield seen
    finally:
        event.remove(engine, 'begin', on_begin)
        event.remove(engine, 'before_cursor_execute', on_statement)


def _events(info):
    return sorted((e['name'], e['result'], e['message']) for e in info['events'])


def _without_batching(monkeypatch):
    @contextlib.contextmanager
    def unavailable(flow_detail, writer):
        yield False
    monkeypatch.setattr(persistence, 'recording', unavailable)


@pytest.mark.parametrize('fail_after', [None, c.CREATE_VOLUMES])
def test_events_are_the_same_written_with_the_step_state(api, hypervisor, conf,
                                                         monkeypatch, fail_after):
    conf.set_override('max_parallel_steps', 1, 'compute')
    if fail_after:
        conf.set_override('fail_after_step', [fail_after], 'fault_injection')
    batched = _events(api.run_boot(boot_request(api, name='batched')))
    _without_batching(monkeypatch)
    alone = _events(api.run_boot(boot_request(api, name='alone')))
    assert batched == alone
    if fail_after:
        assert (fail_after, 'Error', 'Injected fault at step %s' % fail_after) in batched
        assert any(name == c.CREATE_VOLUMES + ' (revert)' for name, _r, _m in batched)


def test_each_event_is_written_in_its_steps_state_transaction(api, hypervisor, conf):
    conf.set_override('max_parallel_steps', 1, 'compute')
    instance_id = boot_request(api)
    with _transactions() as transactions:
        info = api.run_boot(instance_id)
    with_event = [t for t in transactions if 'INSERT instance_events' in t]
    assert len(with_event) == len(info['events'])
    assert all(t[0] == 'UPDATE atomdetails' for t in with_event)
