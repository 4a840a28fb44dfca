"""The state file of a run (``STATE_DIR/hosts.json``): what up made, for people and
tests to read. The kernel objects are the truth; this is their record."""

import contextlib
import fcntl
import json
import os

from namespace_hosts import names


def load(run_names):
    """The run's state, or None when it has none."""
    try:
        with open(run_names.state_file) as state:
            return json.load(state)
    except FileNotFoundError:
        return None


def save(run_names, state):
    temporary = run_names.state_file + '.new'
    with open(temporary, 'w') as out:
        json.dump(state, out, indent=2, sort_keys=True)
        out.write('\n')
    os.replace(temporary, run_names.state_file)


def require(run_names):
    state = load(run_names)
    if state is None:
        raise _no_state(run_names)
    return state


def _no_state(run_names):
    return names.UsageError('%s has no hosts (no %s): start them with tools/hosts up '
                            '--name %s' % (run_names.tag, run_names.state_file,
                                           run_names.tag))


@contextlib.contextmanager
def locked(run_names):
    """Changes to one run, one at a time (a lock on its state directory)."""
    try:
        fd = os.open(run_names.state_dir, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        raise _no_state(run_names)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def make_dir(run_names):
    """The run's new state directory, marked as this tool's (down removes only that)."""
    path = run_names.state_dir
    if os.path.exists(path) and os.listdir(path):
        raise names.UsageError('state directory %s exists, is not empty and was not made '
                               'by tools/hosts up --name %s: give another --state-dir'
                               % (path, run_names.tag))
    os.makedirs(path, mode=0o755, exist_ok=True)
    with open(os.path.join(path, names.MARKER), 'w') as marker:
        marker.write(run_names.tag + '\n')


def is_ours(run_names):
    try:
        with open(os.path.join(run_names.state_dir, names.MARKER)) as marker:
            return marker.read().strip() == run_names.tag
    except OSError:
        return False
