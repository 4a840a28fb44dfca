"""Distributed mode: takeover after kill -9, boot throughput, RPC cost per step, and
how cost grows with the boots in flight (issue 12 item 4).

Two engines and two workers run as the real daemons against this machine's
PostgreSQL, RabbitMQ and Redis (tests/deployment.py); the workers' hypervisor is
libvirt's test:/// driver, so what is measured is provisioner's own machinery.

The scale curve (flavor pico: a root disk of the image's size, so that test:///'s
fixed-size pools hold every boot) submits 1, 10, 100 and then, when the rate seen
at 100 says it takes under IN_FLIGHT_BUDGET_S, 1,000 boots at once; for each:
boots/s (first request to last boot finished), the p99 and median of the recorded
step durations (instance events), and the p99 of whole boots (request to
launched_at). The engines' RSS is read from /proc before and after each level.
"""

import concurrent.futures
import os
import pathlib
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import uuid

from tests.bench import common
from tests.bench import report
from tests import deployment

ENGINES = ('bench-engine-a', 'bench-engine-b')
WORKERS = ('bench-worker-a', 'bench-worker-b')
BOOTS = 100
CLIENT_THREADS = 8
TAKEOVERS = 7
TAKEOVER_IN_FLIGHT = 200
IN_FLIGHT = (1, 10, 100, 1000)
IN_FLIGHT_BUDGET_S = 240  # a level expected to take longer is skipped (and said so)
# Every engine's: the scale curve makes 1,300 ports, beyond [quota] port's 500.
ENGINE_CONF = '[quota]\nport = -1\n'


def _cli(dep, *args):
    """The provisioner CLI: db-sync and bootstrap on the database, everything else
    through provisioner-api once it runs."""
    env = dict(dep.env, OS_USERNAME='admin', OS_PASSWORD='bench-secret',
               OS_PROJECT_NAME='admin')
    if dep.api_url:
        env['OS_AUTH_URL'] = dep.api_url + '/identity'
    subprocess.run([sys.executable, '-m', 'provisioner.cmd.cli', '--config-file',
                    str(dep.config_file)] + [str(a) for a in args],
                   check=True, env=env, cwd=deployment.REPO, capture_output=True)


def _prepare(dep, root, engine_module=None):
    """The catalog, quotas, two engines (``engine_module``: run instead of
    provisioner.cmd.engine) and two test:/// workers."""
    kernel = root / 'state' / 'import' / 'vmlinuz'  # the default image directory
    kernel.parent.mkdir(mode=0o750, parents=True, exist_ok=True)
    kernel.write_bytes(b'kernel')
    _cli(dep, 'db-sync')
    _cli(dep, 'bootstrap', '--username', 'admin', '--password', 'bench-secret',
         '--project', 'admin')
    # Workers read no database (issue 13): they fetch images over HTTP, and their host
    # is recorded by an engine from their first report. Clients reach the cloud
    # through the same provisioner-api.
    dep.serve_images()
    _cli(dep, 'flavor', 'create', 'nano', '--vcpus', 1, '--ram', 64, '--disk', 1)
    # The scale curve's 1,211 boots stay: a 1 GiB root disk each would fill test:///'s
    # fixed-size pools (~100 per host); a root disk of the image's own size does not.
    _cli(dep, 'flavor', 'create', 'pico', '--vcpus', 1, '--ram', 64, '--disk', 0)
    _cli(dep, 'image', 'create', 'guest', '--kernel', kernel)
    _cli(dep, 'network', 'create', 'net1', '--cidr', '10.213.0.0/16')
    _cli(dep, 'quota', 'set', '--instances', 10000, '--vcpus', 10000, '--ram', 10 ** 7,
         '--volumes-gib', 10 ** 6)
    for host in ENGINES:
        dep.start('engine', host, ENGINE_CONF, module=engine_module)
    for host in WORKERS:
        node = root / ('%s.xml' % host)
        node.write_text('<node/>')
        dep.start('worker', host, '[libvirt]\nconnection_uri = test://%s\n' % node)
        deadline = time.monotonic() + 30
        while not dep.query('SELECT count(*) FROM hosts WHERE name = ?', (host,))[0][0]:
            if time.monotonic() > deadline:
                raise RuntimeError('no engine recorded host %s in 30 s' % host)
            time.sleep(0.1)
        # test:/// hosts are small; the bench measures the machinery, not capacity.
        _cli(dep, 'host', 'set', host, '--ram-allocation-ratio', 100,
             '--cpu-allocation-ratio', 100, '--disk-allocation-ratio', 100)


def _client(dep):
    """This process as a client of provisioner-api (the CLI's REST door)."""
    from provisioner.client import compute
    from provisioner.client import http
    from provisioner.conf import CONF
    CONF(['--config-file', str(dep.config_file)], project='provisioner')
    return compute.RestComputeAPI(http.Session(dep.api_url + '/identity', 'admin',
                                               'bench-secret', 'admin'))


def _states(dep, ids):
    rows = dep.query('SELECT vm_state, count(*) FROM instances WHERE id = ANY(?) '
                     'GROUP BY vm_state', (list(ids),))
    return dict(rows)


def _wait_done(dep, ids, timeout=600):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        states = _states(dep, ids)
        if not states.get('building'):
            return states
        time.sleep(0.05)
    raise RuntimeError('boots still building after %d s: %s' % (timeout, states))


def throughput(dep, api):
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(CLIENT_THREADS) as pool:
        ids = list(pool.map(lambda n: api.create_instance('tp-%d' % n, 'nano', 'guest',
                                                          ['net1']), range(BOOTS)))
    posted = time.monotonic() - started
    states = _wait_done(dep, ids)
    elapsed = time.monotonic() - started
    print('boots through 2 engines + 2 workers (test:///): %d in %.1f s = %.1f boots/s '
          '(requests accepted in %.1f s); end states %s'
          % (BOOTS, elapsed, BOOTS / elapsed, posted, states), flush=True)
    for fault, count in dep.query('SELECT fault, count(*) FROM instances WHERE '
                                  "vm_state = 'error' GROUP BY fault"):
        print('  %d ended in error: %s' % (count, fault))
    return {'boots': BOOTS, 'elapsed_s': elapsed, 'boots_per_s': BOOTS / elapsed,
            'accepted_per_s': BOOTS / posted, 'end_states': states}


def _engine_rss_mib(dep):
    rss = {}
    for host in ENGINES:
        proc = dep.processes.get(host)
        try:
            with open('/proc/%d/status' % proc.pid) as status:
                rss[host] = next(int(line.split()[1]) for line in status
                                 if line.startswith('VmRSS:')) / 1024.0
        except (AttributeError, OSError, StopIteration):
            pass
    return rss


def _latencies(dep, ids):
    """(step durations in ms, whole boots in s) recorded for these instances."""
    steps = [row[0] * 1000 for row in dep.query(
        'SELECT EXTRACT(EPOCH FROM finished_at - started_at) FROM instance_events '
        'WHERE instance_id = ANY(?) AND finished_at IS NOT NULL', (list(ids),))]
    boots = [row[0] for row in dep.query(
        'SELECT EXTRACT(EPOCH FROM launched_at - created_at) FROM instances '
        'WHERE id = ANY(?) AND launched_at IS NOT NULL', (list(ids),))]
    return [float(v) for v in steps], [float(v) for v in boots]


def in_flight_curve(dep, api, booted_before):
    """Boots/s and latencies at each level of IN_FLIGHT; engine RSS along the way."""
    levels, rss = [], [{'boots': booted_before, 'mib': _engine_rss_mib(dep)}]
    booted, rate = booted_before, None
    for count in IN_FLIGHT:
        if rate and count / rate > IN_FLIGHT_BUDGET_S:
            reason = ('expected to take %.0f s at %.1f boots/s (budget %d s)'
                      % (count / rate, rate, IN_FLIGHT_BUDGET_S))
            print('%d boots in flight: skipped, %s' % (count, reason), flush=True)
            levels.append({'boots': count, 'skipped': reason})
            continue
        started = time.monotonic()
        names = ['fl%d-%d-%s' % (count, n, uuid.uuid4().hex[:4]) for n in range(count)]
        with concurrent.futures.ThreadPoolExecutor(CLIENT_THREADS) as pool:
            ids = list(pool.map(lambda name: api.create_instance(
                name, 'pico', 'guest', ['net1']), names))
        states = _wait_done(dep, ids, timeout=max(600, count * 2))
        elapsed = time.monotonic() - started
        rate = count / elapsed
        steps, boots = _latencies(dep, ids)
        booted += count
        level = {'boots': count, 'elapsed_s': elapsed, 'boots_per_s': rate,
                 'step_p99_ms': report.percentile(steps, 0.99),
                 'step_median_ms': statistics.median(steps),
                 'boot_p99_s': report.percentile(boots, 0.99) if boots else float('nan'),
                 'end_states': states}
        levels.append(level)
        rss.append({'boots': booted, 'mib': _engine_rss_mib(dep)})
        print('%4d boots in flight: %.1f s = %.1f boots/s; step p99 %.1f ms (median %.1f '
              'ms, %d steps); whole boot p99 %.2f s; end states %s; engine RSS %s'
              % (count, elapsed, rate, level['step_p99_ms'], level['step_median_ms'],
                 len(steps), level['boot_p99_s'], states,
                 ', '.join('%s %.0f MiB' % kv for kv in sorted(rss[-1]['mib'].items()))),
              flush=True)
        for fault, errors in dep.query('SELECT fault, count(*) FROM instances WHERE id = '
                                       "ANY(?) AND vm_state = 'error' GROUP BY fault",
                                       (ids,)):
            print('  %d ended in error: %s' % (errors, fault), flush=True)
    return levels, rss


def _orphans(dep, engine):
    """The boots an engine was running: still building, their lease its own."""
    return [row[0] for row in dep.query(
        'SELECT l.instance_id FROM instance_leases l JOIN instances i ON i.id = '
        "l.instance_id WHERE l.owner LIKE ? AND i.vm_state = 'building'",
        (engine + ':%',))]


def _follow_takeover(dep, orphans, survivor, killed, timeout=600):
    """Seconds from the kill until each orphan's lease is the survivor's, and until
    the orphan ended; polled every 50 ms."""
    taken, ended = {}, {}
    deadline = time.monotonic() + timeout
    while len(ended) < len(orphans) and time.monotonic() < deadline:
        for instance_id, owner, vm_state in dep.query(
                'SELECT l.instance_id, l.owner, i.vm_state FROM instance_leases l JOIN '
                'instances i ON i.id = l.instance_id WHERE l.instance_id = ANY(?)',
                (orphans,)):
            now = time.monotonic() - killed
            if owner.startswith(survivor + ':'):
                taken.setdefault(instance_id, now)
            if vm_state != 'building':
                ended.setdefault(instance_id, now)
        time.sleep(0.05)
    return taken, ended


def takeover_in_flight(dep, api, count=TAKEOVER_IN_FLIGHT):
    """kill -9 of one engine while ``count`` boots are in flight: how long the boots
    it was running wait for the other engine to take them over, and to end."""
    survivor, doomed = ENGINES
    names = ['tif-%d-%s' % (n, uuid.uuid4().hex[:4]) for n in range(count)]
    with concurrent.futures.ThreadPoolExecutor(CLIENT_THREADS) as pool:
        ids = list(pool.map(lambda name: api.create_instance(
            name, 'pico', 'guest', ['net1']), names))
    deadline = time.monotonic() + 30
    while not _orphans(dep, doomed) and time.monotonic() < deadline:
        time.sleep(0.05)  # the engine to kill is between two boots
    in_flight = _states(dep, ids).get('building', 0)
    os.kill(dep.processes[doomed].pid, signal.SIGKILL)
    killed = time.monotonic()
    orphans = _orphans(dep, doomed)
    taken, ended = _follow_takeover(dep, orphans, survivor, killed)
    states = _wait_done(dep, ids)
    dep.stop(doomed)  # reaps it
    dep.start('engine', doomed, ENGINE_CONF)
    if not orphans:
        reason = 'the engine killed was running none of the %d boots' % count
        print('takeover with %d boots in flight: not measured, %s' % (count, reason))
        return {'skipped': reason}
    # A boot the dead engine had claimed but not yet leased has no lease to take: it
    # is counted once it ends.
    takeover_s = [taken.get(i, ended.get(i, float('inf'))) for i in orphans]
    print('kill -9 of an engine with %d of %d boots in flight: %d boots it was running '
          'taken over by the other engine in median %.2f s, p99 %.2f s; ended in median '
          '%.2f s, p99 %.2f s after the kill; end states %s'
          % (in_flight, count, len(orphans), statistics.median(takeover_s),
             report.percentile(takeover_s, 0.99), statistics.median(ended.values()),
             report.percentile(list(ended.values()), 0.99), states), flush=True)
    return {'in_flight': in_flight, 'boots': count, 'orphans': len(orphans),
            'takeover_s': takeover_s, 'ended_s': list(ended.values()),
            'end_states': states}


def takeover(dep, api):
    """kill -9 the engine running a boot; time until the other engine finishes it."""
    survivor, doomed = ENGINES
    for host in ENGINES:
        dep.stop(host)
    dep.start('engine', survivor, ENGINE_CONF)
    samples = []
    for n in range(TAKEOVERS):
        os.kill(dep.processes[survivor].pid, signal.SIGSTOP)  # let the doomed one claim
        dep.start('engine', doomed, ENGINE_CONF +
                  '[fault_injection]\ncrash_after_step = create-volumes\n')
        instance_id = api.create_instance('to-%d-%s' % (n, uuid.uuid4().hex[:6]), 'nano',
                                          'guest', ['net1'], [1])
        assert dep.wait_exit(doomed) == -signal.SIGKILL
        killed = time.monotonic()
        os.kill(dep.processes[survivor].pid, signal.SIGCONT)
        states = _wait_done(dep, [instance_id])
        samples.append((time.monotonic() - killed) * 1000)
        assert states == {'active': 1}, states
    print('takeover after kill -9 (claim_ttl default), kill to active: %s'
          % common.summary(samples), flush=True)
    return samples


def rpc_step_cost(dep):
    """One host-side step through the RPC executor vs. in-process, both no-ops."""
    from provisioner.conf import CONF
    from provisioner import virt
    from provisioner.worker import rpcapi as worker_rpcapi
    from flows.steps import domain
    task = domain.DestroyDomain('destroy-domain')
    workers = worker_rpcapi.WorkerAPI()
    remote_ms = []
    for _ in range(200):
        began = time.perf_counter()
        workers.run_step(WORKERS[0], task.step.name, task.name,
                         {'instance_id': str(uuid.uuid4())})
        remote_ms.append((time.perf_counter() - began) * 1000)
    with tempfile.TemporaryDirectory() as tmp:
        node = pathlib.Path(tmp) / 'node.xml'
        node.write_text('<node/>')
        CONF.set_override('connection_uri', 'test://%s' % node, 'libvirt')
        virt.reset_driver()
        local_ms = []
        for _ in range(200):
            began = time.perf_counter()
            task.execute(str(uuid.uuid4()))
            local_ms.append((time.perf_counter() - began) * 1000)
    print('host-side step, in-process: %s' % common.summary(local_ms))
    overhead = statistics.median(remote_ms) - statistics.median(local_ms)
    print('host-side step through the RPC executor: %s; overhead %.2f ms per step'
          % (common.summary(remote_ms), overhead), flush=True)
    return overhead


def on_a_deployment(prefix, tag, measure):
    """measure(dep, root, figures) on a fresh distributed deployment under a temporary
    root; its figures (an error among them: what was measured before still counts).
    The deployment and the root are removed whatever happens."""
    root = pathlib.Path(tempfile.mkdtemp(prefix=prefix))
    try:
        dep = deployment.Deployment(root, root / 'state', 'test:///default', tag)
    except (deployment.Unavailable, ImportError) as exc:
        print('skipped: %s' % exc)
        shutil.rmtree(root, ignore_errors=True)
        return {'skipped': str(exc)}
    figures = {}
    try:
        measure(dep, root, figures)
    except Exception as exc:
        traceback.print_exc()
        figures['error'] = '%s: %s' % (type(exc).__name__, exc)
    finally:
        dep.destroy(os.environ.get('PROVISIONER_BENCH_LOG_DIR'))
        shutil.rmtree(root, ignore_errors=True)
    return figures


def _measure(dep, root, figures):
    _prepare(dep, root)
    api = _client(dep)
    figures['rpc_overhead_ms'] = rpc_step_cost(dep)
    figures.update(throughput(dep, api))
    figures['in_flight'], figures['engine_rss'] = in_flight_curve(
        dep, api, figures['boots'])
    figures['takeover_in_flight'] = takeover_in_flight(dep, api)
    figures['takeover_ms'] = takeover(dep, api)


def run():
    return on_a_deployment('provisioner-bench-dist-', 'pbd', _measure)
