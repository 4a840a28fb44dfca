"""tox -e bench: python -m tests.bench [BENCH]... (BENCH: a key of BENCHES; all by default).

Each bench prints its detail and returns its figures; at the end one table shows
every target of issue 12 with what was measured and a verdict (MET, MISSED, or not
measured when its bench was not run or could not run here), then the scale curve
(item 4), also drawn as a PNG under the bench output directory.

Exit status: 1 when the start-up budget is broken (tests/bench/startup.py) or a
bench failed to run; a missed target is reported, not a failure.
"""

import sys
import time
import traceback

from tests.bench import api
from tests.bench import bind
from tests.bench import distributed
from tests.bench import engine_memory
from tests.bench import flow_overhead
from tests.bench import images
from tests.bench import memory
from tests.bench import real_boot
from tests.bench import report
from tests.bench import scheduler
from tests.bench import startup

BENCHES = {'flow': flow_overhead.run, 'real': real_boot.run,
           'scheduler': scheduler.run, 'distributed': distributed.run,
           'api': api.run, 'images': images.run, 'memory': memory.run,
           'engine-memory': engine_memory.run, 'engine-rss': engine_memory.run_untraced,
           'startup': startup.run, 'bind': bind.run}


def main(argv):
    unknown = [name for name in argv if name not in BENCHES]
    if unknown:
        print('unknown bench %s; choose from %s' % (', '.join(unknown), ', '.join(BENCHES)),
              file=sys.stderr)
        return 2
    results, broken = {}, []
    for name in argv or list(BENCHES):
        print('== %s' % name, flush=True)
        started = time.monotonic()
        try:
            results[name] = BENCHES[name]()
            if isinstance(results[name], dict) and results[name].get('error'):
                broken.append(name)  # it reports what it measured before the error
        except Exception:
            traceback.print_exc()
            broken.append(name)
            print('bench %s FAILED to run' % name, file=sys.stderr, flush=True)
        print('(%s: %.0f s)' % (name, time.monotonic() - started), flush=True)

    print()
    print(report.format_table('Issue 12 targets (this run; 2 shared cores: timings are '
                              'noisy, ratios are measured side by side)',
                              report.issue_rows(results)))
    print()
    print(report.format_table('Scale curve (issue 12 item 4)', report.scale_rows(results)))
    if 'distributed' in results or 'scheduler' in results:
        png = report.plot_scale(results, report.output_dir() / 'scale.png')
        print('scale curve plot: %s' % (png or 'not drawn (matplotlib is not installed)'))
    startup_failures = getattr(results.get('startup'), 'failures', [])
    if startup_failures:
        print('\nFAILED: the CLI start-up budget: %s' % '; '.join(startup_failures),
              file=sys.stderr)
    if broken:
        print('FAILED to run: %s' % ', '.join(broken), file=sys.stderr)
    return 1 if startup_failures or broken else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
