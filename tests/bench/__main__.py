"""tox -e bench: python -m tests.bench [flow|real]..."""

import sys

from tests.bench import flow_overhead
from tests.bench import real_boot

BENCHES = {'flow': flow_overhead.run, 'real': real_boot.run}


def main(argv):
    for name in argv or list(BENCHES):
        print('== %s' % name, flush=True)
        BENCHES[name]()


if __name__ == '__main__':
    main(sys.argv[1:])
