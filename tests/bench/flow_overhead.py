"""Orchestration overhead of one boot: the whole flow on libvirt's test:/// driver.

test:/// is a real in-process hypervisor (define, start, networks, pools) that costs
~0.2 ms a call, so what remains is provisioner's own cost: TaskFlow, persistence of
every step in SQLite, instance events, IPAM, claims, config drive, image cache hit.
The same flow is also run on TaskFlow's stock SQLAlchemy backend for comparison.
"""

import time

from taskflow.persistence.backends import impl_sqlalchemy

from provisioner.catalog import flavors
from provisioner.catalog import images
from provisioner.catalog import networks
from provisioner.compute import instances
from provisioner.db import api as db_api
from provisioner.engine import runner
from provisioner.engine import persistence
from provisioner import virt
from tests.bench import common

RUNS = 30
WARMUP = 3


class _StockBackend(impl_sqlalchemy.SQLAlchemyBackend):
    """TaskFlow's backend as shipped, on the same database."""

    def __init__(self, engine):
        super().__init__({'connection': engine.url.render_as_string()}, engine=engine)


def _flow_uuid(instance_id):
    with db_api.transaction() as session:
        return instances.get_row(session, instance_id).flow_uuid


def _boot_times(api, tmp, label):
    times = []
    for i in range(WARMUP + RUNS):
        instance_id = api.create_instance('%s-%d' % (label, i), 'tiny', 'guest', ['net1'],
                                          [1], b'user data')
        start = time.perf_counter()
        runner.run_boot(instance_id, _flow_uuid(instance_id))
        elapsed = (time.perf_counter() - start) * 1000
        info = api.show(instance_id)
        assert info['vm_state'] == 'active', info['fault']
        api.delete(instance_id)
        if i >= WARMUP:
            times.append(elapsed)
    return times


def run():
    with common.deployment('test:///default') as (root, api):
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

        ours = _boot_times(api, root, 'parallel')
        common.CONF.set_override('max_parallel_steps', 1, 'compute')
        serial = _boot_times(api, root, 'serial')
        common.CONF.clear_override('max_parallel_steps', 'compute')
        persistence._backend = _StockBackend(db_api.get_engine())
        stock = _boot_times(api, root, 'stock')
    print('boot flow on test:/// + SQLite, parallel steps (default): %s'
          % common.summary(ours))
    print('boot flow on test:/// + SQLite, max_parallel_steps = 1:   %s'
          % common.summary(serial))
    print('same flow (parallel) on the stock TaskFlow backend:      %s'
          % common.summary(stock))
    return ours, serial, stock
