"""Per-instance locks so two processes never run one instance's flow at once.

All-in-one uses a file lock under state_path: the kernel drops it when its holder dies,
even by kill -9, so an interrupted boot can be resumed at once.
"""

import contextlib
import fcntl
import os
import time

from provisioner.conf import CONF
from provisioner import exception


def _take(lock_file, instance_id, wait, on_wait):
    deadline = time.monotonic() + wait
    announced = False
    while True:
        try:
            fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            lock_file.seek(0)
            holder = lock_file.read().strip() or 'another process'
            if time.monotonic() >= deadline:
                raise exception.Conflict(
                    reason='Instance %s is being worked on by process %s; wait for '
                           'it or stop it first.' % (instance_id, holder)) from None
            if on_wait is not None and not announced:
                on_wait(holder)
                announced = True
            time.sleep(0.1)


@contextlib.contextmanager
def instance_lock(instance_id, wait=0, on_wait=None):
    """Hold the instance's lock; wait up to `wait` seconds for its current holder."""
    directory = os.path.join(CONF.state_path, 'locks')
    os.makedirs(directory, mode=0o700, exist_ok=True)
    path = os.path.join(directory, '%s.lock' % instance_id)
    with open(path, 'a+') as lock_file:
        _take(lock_file, instance_id, wait, on_wait)
        lock_file.seek(0)
        lock_file.truncate()
        lock_file.write(str(os.getpid()))
        lock_file.flush()
        try:
            yield
        finally:
            lock_file.seek(0)
            lock_file.truncate()
