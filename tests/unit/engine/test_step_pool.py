"""A suspension never cancels a queued step, so a suspended flow never ends REVERTED."""

from concurrent import futures
import threading

import pytest
import taskflow.engines
from taskflow.patterns import linear_flow
from taskflow.patterns import unordered_flow
from taskflow import states as tf_states
from taskflow import task

from provisioner.engine import step_pool


class Step(task.Task):
    def execute(self):
        return self.name


class CancelSpy(futures.Executor):
    """Passes submits on; sets ``tried`` once the engine tried to cancel ``expected``
    futures."""

    def __init__(self, pool, expected):
        self._pool = pool
        self._left = expected
        self._lock = threading.Lock()
        self.tried = threading.Event()

    def submit(self, fn, *args, **kwargs):
        future = self._pool.submit(fn, *args, **kwargs)
        cancel = future.cancel

        def spy():
            with self._lock:
                self._left -= 1
                if self._left <= 0:
                    self.tried.set()
            return cancel()

        future.cancel = spy
        return future


@pytest.fixture
def busy_pool():
    """A one-thread pool whose thread is busy until ``release`` is set."""
    pool = futures.ThreadPoolExecutor(max_workers=1)
    release = threading.Event()
    pool.submit(release.wait)
    yield pool, release
    release.set()
    pool.shutdown(wait=True)


def test_a_suspension_waits_for_the_queued_steps_and_ends_suspended(busy_pool):
    pool, release = busy_pool
    spy = CancelSpy(step_pool.UncancellablePool(pool), expected=2)
    flow = linear_flow.Flow('boot').add(
        unordered_flow.Flow('prepare').add(Step('a'), Step('b')), Step('after'))
    engine = taskflow.engines.load(flow, engine='parallel', executor=spy)
    engine.compile()
    engine.prepare()  # the atoms are in the flow store before this thread reads them
    run = threading.Thread(target=engine.run, kwargs={'timeout': 0.01})
    run.start()
    # Both steps are RUNNING in the flow store, queued behind the busy thread.
    while engine.storage.get_atoms_states(['a', 'b']) != {
            'a': (tf_states.RUNNING, tf_states.EXECUTE),
            'b': (tf_states.RUNNING, tf_states.EXECUTE)}:
        run.join(0.005)
    engine.suspend()
    assert spy.tried.wait(10)  # TaskFlow's suspension tried to cancel both
    release.set()
    run.join(10)
    assert not run.is_alive()
    assert engine.storage.get_flow_state() == tf_states.SUSPENDED
    states = engine.storage.get_atoms_states(['a', 'b', 'after'])
    assert {name: state for name, (state, _) in states.items()} == {
        'a': tf_states.SUCCESS, 'b': tf_states.SUCCESS, 'after': tf_states.PENDING}


def test_the_pool_passes_results_and_errors_on():
    with futures.ThreadPoolExecutor(max_workers=1) as inner:
        pool = step_pool.UncancellablePool(inner)
        assert pool.submit(lambda x: x * 2, 21).result(10) == 42
        with pytest.raises(ZeroDivisionError):
            pool.submit(lambda: 1 / 0).result(10)
