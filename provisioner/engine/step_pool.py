"""The thread pool the parallel engines run their steps in: a scheduled step is never
cancelled.

TaskFlow marks a step RUNNING before it hands it to the pool, and a suspension
cancels the futures still queued there. A cancelled step stays RUNNING in the flow
store, so nothing after it is "left to run", and the engine ends the flow REVERTED
although nothing failed or reverted (taskflow's builder, game_over): the instance
would keep all it holds, with a flow no resume or rollback accepts. So the futures
TaskFlow gets are running from the start, cannot be cancelled, and a suspension
waits for the queued steps as for the running ones (a step boundary, all the same).
"""

from concurrent import futures


class UncancellablePool(futures.Executor):
    """Wraps an executor: ``submit`` returns a future that ``cancel()`` leaves alone.

    An Executor, as TaskFlow's parallel engine checks its ``executor`` option.
    """

    def __init__(self, pool):
        self._pool = pool

    def submit(self, fn, *args, **kwargs):
        outer = futures.Future()
        outer.set_running_or_notify_cancel()  # from now on cancel() returns False
        self._pool.submit(fn, *args, **kwargs).add_done_callback(
            lambda inner: _copy_outcome(inner, outer))
        return outer

    def shutdown(self, wait=True, cancel_futures=False):
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def _copy_outcome(inner, outer):
    if inner.cancelled():  # the pool itself was shut down with work queued
        outer.set_exception(futures.CancelledError())
    elif inner.exception() is not None:
        outer.set_exception(inner.exception())
    else:
        outer.set_result(inner.result())
