"""provisioner-engine with tracemalloc on, for the engine memory bench.

``kill -USR1`` writes, to ``$PROVISIONER_BENCH_TRACES/<pid>.txt``, the allocations
still alive that were made since the first USR1 (the first one takes the baseline),
grouped by the line that made them, largest growth first. It is the real daemon
otherwise (tests/deployment.py starts it with ``module=``); tracemalloc makes it
slower, so its timings are not the bench's.
"""

import os
import signal
import sys
import tracemalloc

from provisioner.cmd import engine

FRAMES = 1  # grouped by line: the cheapest tracing
TOP = 25
_baseline = []


def _write(text):
    directory = os.environ['PROVISIONER_BENCH_TRACES']
    with open(os.path.join(directory, '%d.txt' % os.getpid()), 'a') as out:
        out.write(text)


def _dump(signum, frame):
    snapshot = tracemalloc.take_snapshot().filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__)])
    if not _baseline:
        _baseline.append(snapshot)
        _write('baseline: %.1f MiB traced\n' % (tracemalloc.get_traced_memory()[0]
                                                / 2 ** 20))
        return
    growth = snapshot.compare_to(_baseline[0], 'lineno')
    lines = ['growth since the baseline: %.1f MiB traced now'
             % (tracemalloc.get_traced_memory()[0] / 2 ** 20)]
    for stat in growth[:TOP]:
        lines.append('  %+8.1f KiB %+7d blocks  %s'
                     % (stat.size_diff / 1024, stat.count_diff, stat.traceback[0]))
    _write('\n'.join(lines) + '\n')


def main():
    tracemalloc.start(FRAMES)
    signal.signal(signal.SIGUSR1, _dump)
    return engine.main()


if __name__ == '__main__':
    sys.exit(main())
