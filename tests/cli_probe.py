"""Which modules the provisioner CLI imports: run it in a fresh interpreter and look.

Shared by the start-up unit test (no timing: stable in CI) and the start-up bench.
"""

import json
import subprocess
import sys

_PROBE = r'''
import contextlib, io, json, sys
from provisioner.cmd import cli
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
    try:
        code = cli.main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
try:  # the peak resident memory of this process since its exec (Linux)
    with open('/proc/self/status') as status:
        peak_kib = next(int(line.split()[1]) for line in status
                        if line.startswith('VmHWM:'))
except (OSError, StopIteration):
    peak_kib = None
print(json.dumps({'code': code, 'output': out.getvalue(), 'peak_rss_kib': peak_kib,
                  'modules': sorted(m for m, v in sys.modules.items() if v is not None)}))
'''


def probe(argv, env, timeout=120):
    """{code, output, peak_rss_kib, modules} of ``provisioner ARGV`` run by cli.main
    in a new process."""
    done = subprocess.run([sys.executable, '-c', _PROBE] + list(argv), env=env,
                          capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError('start-up probe of %s failed: %s' % (argv, done.stderr))
    return json.loads(done.stdout.splitlines()[-1])


def heavy(modules, names):
    """The packages of ``names`` among ``modules`` (by top-level name)."""
    return sorted({m.split('.')[0] for m in modules} & set(names))
