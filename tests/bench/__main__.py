"""tox -e bench: python -m tests.bench [BENCH]... (BENCH: a key of BENCHES; all by default)."""

import sys

from tests.bench import api
from tests.bench import distributed
from tests.bench import flow_overhead
from tests.bench import images
from tests.bench import real_boot
from tests.bench import scheduler
from tests.bench import startup

BENCHES = {'flow': flow_overhead.run, 'real': real_boot.run,
           'scheduler': scheduler.run, 'distributed': distributed.run,
           'api': api.run, 'images': images.run, 'startup': startup.run}


def main(argv):
    for name in argv or list(BENCHES):
        print('== %s' % name, flush=True)
        BENCHES[name]()


if __name__ == '__main__':
    main(sys.argv[1:])
