"""Orchestration overhead of one boot: the whole flow on libvirt's test:/// driver.

test:/// is a real in-process hypervisor (define, start, networks, pools) that costs
~0.2 ms a call, so what remains is provisioner's own cost: TaskFlow, persistence of
every step in SQLite, instance events, IPAM, claims, config drive, image cache hit.
The same flow is also run with one step at a time, on TaskFlow's stock SQLAlchemy
backend for comparison, and on TaskFlow's in-memory backend: no flow store at all,
the floor that any store under TaskFlow's engine can reach. The four alternate boot
by boot.
"""

import statistics
import time

from taskflow.persistence.backends import impl_memory
from taskflow.persistence.backends import impl_sqlalchemy

from provisioner.catalog import flavors
from provisioner.catalog import images
from provisioner.network import shared as networks
from provisioner.compute import instances
from provisioner.db import api as db_api
from provisioner.engine import runner
from provisioner.engine import persistence
from provisioner import virt
from tests.bench import common

RUNS = 30
WARMUP = 3
MODES = ('parallel', 'serial', 'stock', 'memory')


class _StockBackend(impl_sqlalchemy.SQLAlchemyBackend):
    """TaskFlow's backend as shipped, on the same database."""

    def __init__(self, engine):
        super().__init__({'connection': engine.url.render_as_string()}, engine=engine)


class _MemoryBackend(impl_memory.MemoryBackend):
    """TaskFlow's in-memory backend: the flow's atoms are never written anywhere."""

    def __init__(self, engine):
        super().__init__({})
        self.engine = engine  # persistence.get_backend() keeps one on db_api's engine


def paired_ratio(times):
    """stock / ours, the median over the alternated pairs (boots run side by side)."""
    return statistics.median(s / o for o, s in zip(times['parallel'], times['stock']))


def _flow_uuid(instance_id):
    with db_api.transaction() as session:
        return instances.get_row(session, instance_id).flow_uuid


def boot_once(api, name):
    instance_id = api.create_instance(name, 'tiny', 'guest', ['net1'], [1], b'user data')
    start = time.perf_counter()
    runner.run_boot(instance_id, _flow_uuid(instance_id))
    elapsed = (time.perf_counter() - start) * 1000
    info = api.show(instance_id)
    assert info['vm_state'] == 'active', info['fault']
    api.delete(instance_id)
    return elapsed


def _use(mode, others):
    """Configure the next boot: ours (parallel or serial steps), or one of the
    ``others`` backends (stock, memory) by its mode."""
    if mode == 'serial':
        common.CONF.set_override('max_parallel_steps', 1, 'compute')
    else:
        common.CONF.clear_override('max_parallel_steps', 'compute')
    persistence._backend = others.get(mode)  # None: ours, made anew


def _boot_times(api, others):
    """Each mode's boot times, the modes alternated boot by boot: the machine's other
    load falls on all of them alike, so their ratio holds even when times drift."""
    times = {mode: [] for mode in MODES}
    for i in range(WARMUP + RUNS):
        for mode in MODES:
            _use(mode, others)
            elapsed = boot_once(api, '%s-%d' % (mode, i))
            if i >= WARMUP:
                times[mode].append(elapsed)
    _use('parallel', others)
    return times


def prepare(root):
    """What boot_once boots in a deployment under root: its own test:/// node
    (empty), flavor tiny, image guest and network net1."""
    node = root / 'node.xml'
    node.write_text('<node/>')
    common.CONF.set_override('connection_uri', 'test://%s' % node, 'libvirt')
    virt.reset_driver()
    kernel, ramdisk = root / 'vmlinuz', root / 'initrd'
    kernel.write_bytes(b'k' * 4096)
    ramdisk.write_bytes(b'r' * 4096)
    flavors.create('tiny', 1, 128, 1)
    images.create('guest', kernel=str(kernel), ramdisk=str(ramdisk))
    networks.create(virt.get_driver(), 'net1', '10.99.0.0/16')


def run():
    with common.deployment('test:///default') as (root, api):
        prepare(root)
        engine = db_api.get_engine()
        times = _boot_times(api, {'stock': _StockBackend(engine),
                                  'memory': _MemoryBackend(engine)})
    ours, serial, stock = times['parallel'], times['serial'], times['stock']
    print('boot flow on test:/// + SQLite, parallel steps (default): %s'
          % common.summary(ours))
    print('boot flow on test:/// + SQLite, max_parallel_steps = 1:   %s'
          % common.summary(serial))
    print('same flow (parallel) on the stock TaskFlow backend:      %s'
          % common.summary(stock))
    print("same flow (parallel), TaskFlow's in-memory backend:     %s"
          % common.summary(times['memory']))
    print('  (no flow store at all: 1/%.1f of stock, the floor of any store under '
          "TaskFlow's engine)" % (statistics.median(stock) / statistics.median(
              times['memory'])))
    print('ours / stock, same run: 1/%.1f of the medians; 1/%.1f the median of each '
          'alternated pair (target: 1/10 or better, and < 40 ms)'
          % (statistics.median(stock) / statistics.median(ours), paired_ratio(
              {'parallel': ours, 'stock': stock})))
    return {'parallel': ours, 'serial': serial, 'stock': stock, 'memory': times['memory']}
