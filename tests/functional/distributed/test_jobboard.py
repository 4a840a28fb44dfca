"""The engines' jobboard on the real Redis: a poll for unclaimed jobs costs the same
round trips with 3 pending jobs as with 30, and gives them oldest first."""

import secrets

import pytest

from provisioner.engine import jobs
from tests import deployment


@pytest.fixture
def board():
    try:
        client = deployment._redis()
    except deployment.Unavailable as exc:
        pytest.skip(str(exc))
    name = 'provisioner-test-board-%s' % secrets.token_hex(4)
    conf = jobs._redis_conf(deployment.REDIS_URL)
    conf['namespace'] = name
    board = jobs.RedisJobBoard(name, conf)
    board.connect()
    yield board
    board.close()
    for key in client.scan_iter(match='%s*' % name):
        client.delete(key)


def _round_trips(board, monkeypatch):
    calls = []
    execute_command = board._client.execute_command
    monkeypatch.setattr(board._client, 'execute_command',
                        lambda *args, **kwargs: calls.append(args[0])
                        or execute_command(*args, **kwargs))
    pipeline = board._client.pipeline

    def counted_pipeline(*args, **kwargs):
        pipe = pipeline(*args, **kwargs)
        execute = pipe.execute
        pipe.execute = lambda: calls.append('PIPELINE') or execute()
        return pipe

    monkeypatch.setattr(board._client, 'pipeline', counted_pipeline)
    return calls


@pytest.mark.parametrize('pending', [3, 30])
def test_unclaimed_jobs_in_two_round_trips_oldest_first(board, monkeypatch, pending):
    posted = [board.post('boot-%d' % n, details={'n': n}) for n in range(pending)]
    for job in posted[:2]:
        board.claim(job, 'another-engine', expiry=60)
    stock = [job.uuid for job in super(jobs.RedisJobBoard, board).iterjobs(
        only_unclaimed=True, ensure_fresh=True)]
    calls = _round_trips(board, monkeypatch)
    unclaimed = [job.uuid for job in board.iterjobs(only_unclaimed=True,
                                                    ensure_fresh=True)]
    # What the stock iterator finds, but in the order the jobs were posted.
    assert unclaimed == [job.uuid for job in posted[2:]]
    assert set(stock) == set(unclaimed)
    assert calls == ['HGETALL', 'PIPELINE']
    # A job handed back is unclaimed again.
    monkeypatch.undo()
    # A job handed back (or whose engine died) is unclaimed again, and first.
    board.abandon(posted[0], 'another-engine')
    assert [job.uuid for job in board.iterjobs(only_unclaimed=True)][0] == posted[0].uuid
