"""The CLI's start-up: a cold `provisioner` process, as a user types it (issue 12 item 1).

Times ``--version``, ``--help``, ``list --help`` and ``list`` through the REST API
(OS_AUTH_URL) against a port where nothing listens: the command fails fast, so what
is measured is the time to its error, i.e. start-up, configuration and the client.
Each runs RUNS times in fresh processes. Then a probe process runs the same commands
through ``provisioner.cmd.cli.main`` and lists the heavy modules left in
``sys.modules``.

Fails loudly (exit status 1, a FAILED line per broken rule) when a median is over
BUDGET_S or a heavy module is imported. Timing is machine dependent, so this is a
benchmark (tox -e bench), not a unit test: tests/unit/test_cli_startup.py holds the
timing-free half.
"""

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from tests import cli_probe

RUNS = int(os.environ.get('PROVISIONER_TEST_STARTUP_RUNS', '10'))
BUDGET_S = 0.3

# Nothing of these for --version and --help: they serve the database, the engine,
# the hypervisor, the API server or tokens, never the parser.
HEAVY = ('taskflow', 'sqlalchemy', 'alembic', 'oslo_messaging', 'oslo_policy',
         'oslo_service', 'oslo_db', 'libvirt', 'cryptography', 'webob', 'cheroot',
         'networkx', 'jsonschema', 'eventlet')
# --help and --version do not even load the configuration.
HEAVY_FOR_HELP = HEAVY + ('oslo_config', 'stevedore')

REST_ERROR = 'No provisioner-api answered'




def _command():
    script = os.path.join(os.path.dirname(sys.executable), 'provisioner')
    if os.path.exists(script):
        return [script]
    found = shutil.which('provisioner')
    return [found] if found else [sys.executable, '-m', 'provisioner.cmd.cli']


def _closed_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _environments(home):
    plain = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    plain['XDG_CACHE_HOME'] = os.path.join(home, 'cache')
    rest = dict(plain, OS_AUTH_URL='http://127.0.0.1:%d/identity/v3' % _closed_port(),
                OS_USERNAME='bench', OS_PASSWORD='bench-password',
                OS_PROJECT_NAME='bench')
    return plain, rest


def _percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def _time(argv, env, fails):
    samples = []
    for _ in range(RUNS):
        started = time.perf_counter()
        done = subprocess.run(_command() + argv, env=env, capture_output=True,
                              text=True, timeout=60)
        samples.append(time.perf_counter() - started)
        if fails and (done.returncode == 0 or REST_ERROR not in done.stderr):
            raise RuntimeError('provisioner %s was to fail fast with "%s", got exit %d: '
                               '%s' % (' '.join(argv), REST_ERROR, done.returncode,
                                       done.stderr.strip()))
        if not fails and done.returncode != 0:
            raise RuntimeError('provisioner %s failed (exit %d): %s'
                               % (' '.join(argv), done.returncode, done.stderr.strip()))
    return samples


def _probe(argv, env):
    return cli_probe.probe(argv, env, timeout=60)['modules']


_heavy = cli_probe.heavy


def run():
    failures = []
    with tempfile.TemporaryDirectory(prefix='provisioner-bench-startup-') as home:
        plain, rest = _environments(home)
        print('command: %s; %d cold processes each; budget: median < %.0f ms'
              % (' '.join(_command()), RUNS, BUDGET_S * 1000), flush=True)
        for label, argv, env, fails, heavy in (
                ('provisioner --version', ['--version'], plain, False, HEAVY_FOR_HELP),
                ('provisioner --help', ['--help'], plain, False, HEAVY_FOR_HELP),
                ('provisioner list --help', ['list', '--help'], plain, False,
                 HEAVY_FOR_HELP),
                ('provisioner list (REST, to the error)', ['list'], rest, True, HEAVY)):
            samples = _time(argv, env, fails)
            median = statistics.median(samples)
            verdict = 'ok' if median < BUDGET_S else 'FAILED'
            print('%-40s median %6.1f ms, p90 %6.1f ms (n=%d)  target < %.0f ms: %s'
                  % (label, median * 1000, _percentile(samples, 0.9) * 1000,
                     len(samples), BUDGET_S * 1000, verdict), flush=True)
            if verdict != 'ok':
                failures.append('%s: median %.0f ms, over the %.0f ms budget'
                                % (label, median * 1000, BUDGET_S * 1000))
            found = _heavy(_probe(argv, env), heavy)
            print('%-40s heavy modules imported: %s'
                  % ('', ', '.join(found) if found else 'none'), flush=True)
            if found:
                failures.append('%s imports %s' % (label, ', '.join(found)))
    if failures:
        print('\nstartup bench FAILED:', file=sys.stderr)
        for failure in failures:
            print('  FAILED: %s' % failure, file=sys.stderr)
        print('(find the importer with: python -X importtime -c "import '
              'provisioner.cmd.cli")', file=sys.stderr, flush=True)
        raise SystemExit(1)
    print('startup: every command within budget, nothing heavy imported.', flush=True)


if __name__ == '__main__':
    run()
