"""Instance leases and the fenced flow store: two engines never run one boot."""

import time

import pytest

from provisioner.engine import leases
from provisioner.engine import persistence
from provisioner.engine import runner

INSTANCE = '2b1c43f4-0000-4000-8000-000000000001'


def test_a_held_lease_cannot_be_taken_until_it_expires():
    first = leases.acquire(INSTANCE, 'engine-a', ttl=60)
    assert first.epoch == 1
    assert leases.acquire(INSTANCE, 'engine-b', ttl=60) is None


def test_an_expired_lease_goes_to_the_next_engine_with_a_new_epoch():
    first = leases.acquire(INSTANCE, 'engine-a', ttl=0.01)
    time.sleep(0.05)
    second = leases.acquire(INSTANCE, 'engine-b', ttl=60)
    assert (second.owner, second.epoch) == ('engine-b', first.epoch + 1)
    with pytest.raises(leases.LeaseLost):
        leases.renew(first, ttl=60)  # the stalled engine learns it lost the boot
    assert leases.renew(second, ttl=60) is False


def test_release_hands_the_lease_over_at_once():
    first = leases.acquire(INSTANCE, 'engine-a', ttl=60)
    leases.release(first)
    assert leases.acquire(INSTANCE, 'engine-b', ttl=60).epoch == 2


def test_rollback_request_reaches_the_holder_and_later_holders():
    leases.request_rollback(INSTANCE)  # before any engine holds it
    held = leases.acquire(INSTANCE, 'engine-a', ttl=60)
    assert leases.rollback_requested(INSTANCE)
    assert leases.renew(held, ttl=60) is True


def test_fenced_flow_writes_fail_once_another_engine_holds_the_lease(
        admin_context, conf):
    flow_uuid = '6d0c43f4-0000-4000-8000-000000000002'
    flow_detail = runner.boot_flow_detail(INSTANCE, flow_uuid)
    stale = leases.acquire(INSTANCE, 'engine-a', ttl=0.01)
    connection = persistence.get_backend().get_connection()
    with persistence.fenced(flow_detail, stale):
        flow_detail.state = 'RUNNING'
        connection.update_flow_details(flow_detail)  # still held: written
        time.sleep(0.05)
        leases.acquire(INSTANCE, 'engine-b', ttl=60)
        flow_detail.state = 'FAILURE'
        with pytest.raises(leases.LeaseLost):
            connection.update_flow_details(flow_detail)
    assert persistence.get_flow_detail(flow_uuid).state == 'RUNNING'


def test_before_commit_runs_inside_the_taking_transaction():
    """What a process stalled there wrote is rolled back when it dies (or when
    PostgreSQL ends its idle transaction): the lease stays as it was."""

    def dies():
        raise RuntimeError('stalled and ended')

    with pytest.raises(RuntimeError):
        leases.acquire(INSTANCE, 'engine-a', ttl=60, before_commit=dies)  # insert
    first = leases.acquire(INSTANCE, 'engine-b', ttl=0.01)
    assert first.epoch == 1
    time.sleep(0.05)
    with pytest.raises(RuntimeError):
        leases.acquire(INSTANCE, 'engine-a', ttl=60, before_commit=dies)  # update
    calls = []
    second = leases.acquire(INSTANCE, 'engine-c', ttl=60,
                            before_commit=lambda: calls.append(1))
    assert (second.owner, second.epoch, calls) == ('engine-c', 2, [1])
    assert leases.acquire(INSTANCE, 'engine-d', ttl=60,
                          before_commit=lambda: calls.append(2)) is None
    assert calls == [1]  # not taken: not called


def test_postgresql_ends_transactions_left_idle_by_a_stalled_engine(monkeypatch):
    from provisioner.db import api as db_api
    created = {}
    real_create_engine = db_api.sa.create_engine
    monkeypatch.setattr(db_api.sa, 'create_engine',
                        lambda url, **kwargs: created.update(kwargs)
                        or real_create_engine('sqlite://'))
    monkeypatch.setattr(db_api, '_idle_transaction_timeout', 3.0)
    db_api._create_engine('postgresql+psycopg2://user@db/provisioner')
    assert created['connect_args'] == {
        'options': '-c idle_in_transaction_session_timeout=3000'}
