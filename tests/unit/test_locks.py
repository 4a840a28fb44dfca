import os
import threading
import time

import pytest

from provisioner.engine import locks
from provisioner import exception


def _hold(instance_id, seconds, held):
    with locks.instance_lock(instance_id):
        held.set()
        time.sleep(seconds)


def test_a_held_instance_is_refused_at_once_with_the_holder():
    held = threading.Event()
    holder = threading.Thread(target=_hold, args=('i-1', 0.5, held))
    holder.start()
    held.wait()
    try:
        with pytest.raises(exception.Conflict) as err:
            with locks.instance_lock('i-1'):
                pass
        assert 'being worked on by process' in str(err.value)
    finally:
        holder.join()


def test_waiting_takes_the_lock_when_the_holder_lets_go():
    held = threading.Event()
    holder = threading.Thread(target=_hold, args=('i-2', 0.3, held))
    holder.start()
    held.wait()
    waits = []
    with locks.instance_lock('i-2', wait=5, on_wait=waits.append):
        assert not holder.is_alive() or held.is_set()
    holder.join()
    assert len(waits) == 1


def test_other_instances_are_independent():
    with locks.instance_lock('i-3'):
        with locks.instance_lock('i-4'):
            pass


def test_forget_removes_the_file_and_a_waiter_then_locks_the_path_anew(conf):
    lock_file = os.path.join(conf.state_path, 'locks', 'i-5.lock')
    waiting, took = threading.Event(), []

    def waiter():
        with locks.instance_lock('i-5', wait=5, on_wait=lambda holder: waiting.set()):
            took.append(os.path.exists(lock_file))
            # Whoever comes next is refused: the waiter holds the one lock there is.
            with pytest.raises(exception.Conflict):
                with locks.instance_lock('i-5'):
                    pass

    with locks.instance_lock('i-5'):
        thread = threading.Thread(target=waiter)
        thread.start()
        assert waiting.wait(5)
        locks.forget('i-5')  # as a delete does, holding the lock
        assert not os.path.exists(lock_file)
    thread.join()
    assert took == [True]


def test_forget_without_a_lock_file_is_a_no_op(conf):
    locks.forget('never-locked')
