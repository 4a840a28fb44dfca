"""The distributed engines' RSS over thousands of boots, and what grows (issue 21).

Two engines (tests/bench/traced_engine.py: the real daemon with tracemalloc on) and
two test:/// workers, as tests/bench/distributed.py runs them, take waves of WAVE
boots through provisioner-api; each wave is deleted once it is active, as instances
come and go in a long-lived cloud. Each engine's RSS (VmRSS) is read after every
wave. After WARM_UP waves (the bounded caches are full) each engine takes its
tracemalloc baseline; at the end it writes the allocations alive that were made
since, by line: "flat beyond caches with a bound", or the lines that keep growing.

Levelled: an engine's RSS grew by less than LEVEL_MIB over the second half of the
waves. tracemalloc slows the engines (a wave takes minutes on 2 cores, where the
plain daemons take about 30 s): ``engine-rss`` (run_untraced) runs the same waves
on the plain engines, for the RSS curve alone. Boots/s here are not the throughput
figure.
"""

import os
import signal
import time
import uuid

from tests.bench import distributed

WAVE = 100
WAVES = 24
WARM_UP = 4
LEVEL_MIB = 3.0
DELETE_TIMEOUT_S = 1800  # traced engines on 2 shared cores are slow
TRACED = 'tests.bench.traced_engine'


def _wave(dep, api, session, number):
    names = ['mem%d-%d-%s' % (number, n, uuid.uuid4().hex[:4]) for n in range(WAVE)]
    ids = [api.create_instance(name, 'pico', 'guest', ['net1']) for name in names]
    states = distributed._wait_done(dep, ids)
    for instance_id in ids:
        session.delete('compute', '/servers/%s' % instance_id)
    deadline = time.monotonic() + DELETE_TIMEOUT_S
    while dep.query("SELECT count(*) FROM instances WHERE id = ANY(?) AND vm_state "
                    "!= 'deleted'", (ids,))[0][0]:
        if time.monotonic() > deadline:
            raise RuntimeError('wave %d not deleted in %d s' % (number, DELETE_TIMEOUT_S))
        time.sleep(0.2)
    return states


def _signal_engines(dep):
    for host in distributed.ENGINES:
        os.kill(dep.processes[host].pid, signal.SIGUSR1)
    time.sleep(5)  # a snapshot of a traced heap takes a few seconds


def _measure(dep, root, figures, traced=True):
    traces = root / 'traces'
    traces.mkdir()
    dep.env['PROVISIONER_BENCH_TRACES'] = str(traces)
    figures['rss'] = []
    distributed._prepare(dep, root, engine_module=TRACED if traced else None)
    api = distributed._client(dep)
    session = api._session
    for number in range(WAVES):
        started = time.monotonic()
        states = _wave(dep, api, session, number)
        rss = distributed._engine_rss_mib(dep)
        figures['rss'].append({'boots': (number + 1) * WAVE, 'mib': rss})
        print('%5d boots (and deletes): wave in %.0f s, end states %s; engine RSS %s'
              % ((number + 1) * WAVE, time.monotonic() - started, states,
                 ', '.join('%s %.1f MiB' % kv for kv in sorted(rss.items()))),
              flush=True)
        if traced and number + 1 == WARM_UP:
            _signal_engines(dep)
    if traced:
        _signal_engines(dep)
    half = figures['rss'][len(figures['rss']) // 2]['mib']
    last = figures['rss'][-1]['mib']
    figures['growth_second_half_mib'] = {h: last[h] - half[h] for h in last}
    figures['levelled'] = all(g < LEVEL_MIB
                              for g in figures['growth_second_half_mib'].values())
    print('RSS growth over the second half (%d boots): %s -> %s'
          % (WAVES // 2 * WAVE, ', '.join(
              '%s %+.1f MiB' % kv for kv in sorted(
                  figures['growth_second_half_mib'].items())),
             'levelled' if figures['levelled'] else 'NOT levelled'), flush=True)
    for trace in sorted(traces.glob('*.txt')):
        print('tracemalloc of engine pid %s:\n%s' % (trace.stem, trace.read_text()))


def run():
    return distributed.on_a_deployment('provisioner-bench-mem-', 'pbm', _measure)


def run_untraced():
    return distributed.on_a_deployment(
        'provisioner-bench-rss-', 'pbr',
        lambda dep, root, figures: _measure(dep, root, figures, traced=False))
