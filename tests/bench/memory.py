"""Engine RSS after 10,000 boots (issue 12: no growth beyond caches with a bound).

One process boots, one instance after the other, as flow_overhead does: the whole
boot flow on libvirt's test:/// driver and SQLite, here with the serial engine
(``[compute] max_parallel_steps = 1``), each instance deleted once active (its
flows destroyed, all it held released), as instances come and go in a long-lived
engine. RSS (VmRSS, after a full garbage collection) is read
before the first boot and every SAMPLE boots, printed every CHECKPOINT.

Levelled: RSS grew by less than LEVEL_MIB over the last TAIL boots. The bounded
caches (the flow store's written-atom and stored-atom caches, the build-request
cache, SQLAlchemy's statement cache) are full within the first ~1,000 boots.

A boot (create, run, show, delete) takes 0.1-0.5 s on 2 shared cores, so the run
stops at BUDGET_S when 10,000 do not fit; the growth over the last TAIL boots is
then extrapolated from the slope of RSS over the second half of the boots run.
"""

import gc
import time

from tests.bench import common
from tests.bench import flow_overhead

BOOTS = 10_000
CHECKPOINT = 1_000  # printed
SAMPLE = 250  # read: the slope of a short run has points enough
TAIL = 5_000
LEVEL_MIB = 3.0
BUDGET_S = 660


def rss_mib():
    """This process's resident set, MiB, after a full collection."""
    gc.collect()
    with open('/proc/self/status') as status:
        return next(int(line.split()[1]) for line in status
                    if line.startswith('VmRSS:')) / 1024.0


def slope(points):
    """Least-squares MiB per 1,000 boots over [(boots, MiB), ...]; None under 2."""
    if len(points) < 2:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return 1000 * sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def tail_growth(points):
    """(MiB grown over the last TAIL boots, the MiB per 1,000 boots it was
    extrapolated from, or None when measured); the growth is None when too few
    boots ran to tell."""
    last_boots, last_mib = points[-1]
    for boots, mib in points:
        if boots == last_boots - TAIL:
            return last_mib - mib, None
    per_1000 = slope([p for p in points if p[0] >= last_boots / 2])
    return (None if per_1000 is None else per_1000 * TAIL / 1000), per_1000


def run():
    with common.deployment('test:///default') as (root, api):
        flow_overhead.prepare(root)
        common.CONF.set_override('max_parallel_steps', 1, 'compute')
        points = [(0, rss_mib())]
        print('engine RSS before the first boot: %.1f MiB' % points[0][1], flush=True)
        started = time.monotonic()
        boots = 0
        while boots < BOOTS:
            flow_overhead.boot_once(api, 'mem-%d' % boots)
            boots += 1
            out_of_time = time.monotonic() - started > BUDGET_S
            if boots % SAMPLE == 0 or out_of_time:
                points.append((boots, rss_mib()))
            if boots % CHECKPOINT == 0 or out_of_time:
                print('engine RSS after {:,} boots: {:.1f} MiB ({:.0f} s)'.format(
                    boots, points[-1][1], time.monotonic() - started), flush=True)
            if out_of_time:
                print('stopped at the budget of %d s: %d boots ran' % (BUDGET_S, boots))
                break
        elapsed = time.monotonic() - started
    growth, per_1000 = tail_growth(points)
    levelled = growth is not None and growth < LEVEL_MIB
    print('RSS %.1f -> %.1f MiB over %d boots (%.1f boots/s); over the last %d: %s%s; '
          '%s' % (points[0][1], points[-1][1], boots, boots / elapsed, TAIL,
                  'unknown' if growth is None else '%+.1f MiB' % growth,
                  ' (extrapolated from %+.2f MiB per 1,000 boots)' % per_1000
                  if growth is not None and per_1000 is not None else '',
                  'levelled' if levelled else 'NOT levelled'), flush=True)
    return {'points': [{'boots': b, 'mib': m} for b, m in points], 'boots': boots,
            'elapsed_s': elapsed, 'tail_boots': TAIL, 'tail_mib': growth,
            'extrapolated': per_1000 is not None, 'slope_mib_per_1000': per_1000,
            'levelled': levelled}
