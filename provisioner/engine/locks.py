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


def _path(instance_id):
    return os.path.join(CONF.state_path, 'locks', '%s.lock' % instance_id)


def _still_linked(lock_file, path):
    """Whether the locked file is still the one at path: forget() may have unlinked
    it while this process waited for it."""
    try:
        here = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(lock_file.fileno())
    return (here.st_dev, here.st_ino) == (held.st_dev, held.st_ino)


@contextlib.contextmanager
def instance_lock(instance_id, wait=0, on_wait=None):
    """Hold the instance's lock; wait up to `wait` seconds for its current holder."""
    path = _path(instance_id)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    while True:
        with open(path, 'a+') as lock_file:
            _take(lock_file, instance_id, wait, on_wait)
            if not _still_linked(lock_file, path):
                continue  # its holder deleted the instance: lock the path anew
            lock_file.seek(0)
            lock_file.truncate()
            lock_file.write(str(os.getpid()))
            lock_file.flush()
            try:
                yield
            finally:
                lock_file.seek(0)
                lock_file.truncate()
            return


def forget(instance_id):
    """Remove the lock file of a deleted instance; call it holding the lock.

    Whoever waits for the lock meanwhile finds its file unlinked and locks the path
    anew (instance_lock), so no two processes ever hold "the" lock at once.
    """
    try:
        os.unlink(_path(instance_id))
    except FileNotFoundError:
        pass
