"""Host selection over 10,000 and 100,000 hosts, and claim throughput under contention.

Selection: the scheduler's two queries (measure the candidates, then the best few in
weight order) against 10,000 host rows, all of which pass the filters -- the worst
case for the weighing; then, on PostgreSQL (where a deployment of that size keeps
its database), against 100,000 (issue 12 item 4's scale curve). Claims: 16 threads
claim and release on 4 hosts as fast as they can, every claim an atomic conditional
UPDATE.
"""

import statistics
import threading
import time
import uuid

import sqlalchemy as sa

from provisioner.catalog import flavors
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.scheduler import claims
from provisioner.scheduler import filters
from provisioner.scheduler import manager
from tests.bench import common
from tests import deployment

HOSTS = 10_000
SELECTIONS = 200
MANY_HOSTS = 100_000
MANY_SELECTIONS = 20  # each reads 100,000 rows: bounded time
CLAIM_THREADS = 16
CLAIMS_PER_THREAD = 50


def _add_hosts(n, first=0):
    now = models.utcnow()
    rows = [{'id': str(uuid.uuid4()), 'name': 'host-%05d' % i, 'vcpus': 32 + i % 32,
             'memory_mib': 65536 + (i * 977) % 65536, 'disk_gib': 2000,
             'vcpus_used': 0, 'memory_mib_used': 0, 'disk_gib_used': 0,
             'cpu_allocation_ratio': 4.0, 'ram_allocation_ratio': 1.0,
             'disk_allocation_ratio': 1.0, 'hypervisor_type': 'qemu', 'arch': 'x86_64',
             'enabled': True, 'updated_at': now, 'availability_zone': 'nova'}
            for i in range(first, first + n)]
    with db_api.connection() as conn:
        conn.execute(sa.insert(models.Host), rows)


def _selection_times(runs=SELECTIONS):
    from provisioner.catalog import hosts
    spec = filters.RequestSpec(vcpus=2, ram_mib=2048, disk_gib=20,
                               alive_since=hosts.down_cutoff())
    times = []
    for i in range(runs + 5):
        start = time.perf_counter()
        chosen = manager.select_hosts(spec)
        if i >= 5:
            times.append((time.perf_counter() - start) * 1000)
    assert len(chosen) == CONF.scheduler.max_attempts
    return times


def _claim_throughput(api):
    flavors.create('bench', 1, 64, 1)
    ids = []
    for t in range(CLAIM_THREADS):
        ids.append([api.create_instance('c%d-%d' % (t, i), 'bench', 'guest', ['net1'])
                    for i in range(CLAIMS_PER_THREAD)])
    targets = ['host-%05d' % i for i in range(4)]
    barrier = threading.Barrier(CLAIM_THREADS + 1)

    def worker(mine):
        barrier.wait()
        for n, instance_id in enumerate(mine):
            assert claims.claim(instance_id, targets[n % 4], 1, 64, 1)
            claims.release(instance_id)

    threads = [threading.Thread(target=worker, args=(mine,)) for mine in ids]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    return 2 * CLAIM_THREADS * CLAIMS_PER_THREAD / elapsed


def _selection_point(label, hosts, times):
    print('%s: host selection over %d hosts: %s' % (label, hosts, common.summary(times)),
          flush=True)
    return {'backend': label, 'hosts': hosts, 'median_ms': statistics.median(times),
            'p90_ms': sorted(times)[int(round(0.9 * (len(times) - 1)))],
            'runs': len(times)}


def _run_on(label, connection, many_hosts=False):
    """Selection points (and claims/s) on one database; 100,000 hosts if asked."""
    with common.deployment('test:///default') as (root, api):
        if connection:
            CONF.set_override('connection', connection, 'database')
            db_api.dispose()
            from provisioner.db import migration
            migration.db_sync()
            from provisioner.compute import api as compute_api
            from provisioner.identity import service as identity
            identity.bootstrap('admin', 'bench', 'admin')
            from provisioner.engine import deployments
            api = compute_api.ComputeAPI(identity.validate(
                identity.authenticate('admin', 'bench', 'admin')),
                deployments.all_in_one())
        from provisioner.quota import counters
        from provisioner.catalog import images, networks
        from provisioner import virt
        counters.set_limits(api.context.project_id, instances=-1, vcpus=-1, ram_mib=-1)
        kernel = root / 'vmlinuz'
        kernel.write_bytes(b'k')
        images.create('guest', kernel=str(kernel))
        networks.create(virt.get_driver(), 'net1', '10.97.0.0/22')
        _add_hosts(HOSTS)
        points = [_selection_point(label, HOSTS, _selection_times())]
        per_second = _claim_throughput(api)
        print('%s: claim + release, %d threads on 4 hosts: %.0f operations/s'
              % (label, CLAIM_THREADS, per_second), flush=True)
        if many_hosts:
            for first in range(HOSTS, MANY_HOSTS, HOSTS):
                _add_hosts(HOSTS, first)
            points.append(_selection_point(label, MANY_HOSTS,
                                           _selection_times(MANY_SELECTIONS)))
    return points, per_second


def run():
    selection, claims_per_s = [], {}
    try:
        with deployment.throwaway_database('provisioner_bench') as url:
            points, claims_per_s['PostgreSQL'] = _run_on('PostgreSQL', url, True)
            selection += points
        many_on_sqlite = False
    except deployment.Unavailable as exc:
        print('PostgreSQL: skipped (%s); 100,000 hosts on SQLite instead' % exc)
        many_on_sqlite = True
    points, claims_per_s['SQLite'] = _run_on('SQLite', None, many_on_sqlite)
    return {'selection': points + selection, 'claims_per_s': claims_per_s}
