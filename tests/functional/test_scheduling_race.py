"""200 boots racing for room for 50, through the compute API on threads.

The hypervisor is libvirt's test:/// driver (a real in-process one); the database is
a throwaway PostgreSQL database, or the all-in-one SQLite file. Hosts are registered
through report_capacity, as their workers do.
"""

import os
import pathlib
import shutil
import tempfile
import threading
import time

import pytest
import sqlalchemy as sa

from provisioner.catalog import flavors
from provisioner.catalog import hosts
from provisioner.catalog import images
from provisioner.network import shared as networks
from provisioner.compute import api as compute_api
from provisioner.quota import counters
from provisioner.compute import states
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import migration
from provisioner.db import models
from provisioner.engine import deployments
from provisioner.identity import service as identity
from provisioner import virt
from tests import deployment as test_deployment
from tests import process

BOOTS = int(os.environ.get("RACE_BOOTS", 200))
HOSTS = int(os.environ.get("RACE_HOSTS", 10))
SLOTS_PER_HOST = 5
REPORT_INTERVAL = 5  # seconds, as a worker's [worker] report_interval


@pytest.fixture
def database(request):
    if request.param == 'sqlite':
        yield None
        return
    try:
        with test_deployment.throwaway_database('provisioner_race') as url:
            yield url
            db_api.dispose()  # the drop must not wait for this process's pool
    except test_deployment.Unavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture
def deployment(database):
    root = pathlib.Path(tempfile.mkdtemp(prefix='provisioner-race-'))
    node = root / 'node.xml'
    node.write_text('<node/>')
    CONF([], project='provisioner', default_config_files=[])
    CONF.set_override('state_path', str(root / 'state'))
    CONF.set_override('host', 'api-host')
    CONF.set_override('image_directories', [str(root)], 'image')
    CONF.set_override('connection_uri', 'test://%s' % node, 'libvirt')
    CONF.set_override('virt_type', 'qemu', 'libvirt')
    if database:
        CONF.set_override('connection', database, 'database')
    try:
        migration.db_sync()
        identity.bootstrap('admin', 'race', 'admin')
        context = identity.validate(identity.authenticate('admin', 'race', 'admin'))
        counters.set_limits(context.project_id, instances=-1, vcpus=-1, ram_mib=-1)
        flavors.create('one', 1, 64, 1)
        kernel = root / 'vmlinuz'
        kernel.write_bytes(b'kernel')
        images.create('guest', kernel=str(kernel))
        networks.create(virt.get_driver(), 'net1', '10.98.0.0/23')
        # The API host reports itself before each boot; it takes no part here.
        hosts.report_capacity(CONF.host, virt.get_driver().capacity())
        hosts.update(CONF.host, enabled=False)
        _report_racks()
        for i in range(HOSTS):
            hosts.update('rack-%02d' % i, cpu_allocation_ratio=1.0)
        yield compute_api.ComputeAPI(context, deployments.all_in_one())
    finally:
        process.reset_state()
        CONF.reset()
        shutil.rmtree(root, ignore_errors=True)


def _report_racks():
    for i in range(HOSTS):
        hosts.report_capacity('rack-%02d' % i, {
            'vcpus': SLOTS_PER_HOST, 'memory_mib': 65536, 'disk_gib': 1000,
            'hypervisor_type': 'qemu', 'arch': 'x86_64'})


def _overcommitted():
    h = models.Host
    with db_api.connection() as conn:
        return conn.execute(sa.select(h.name, h.vcpus_used).where(
            h.vcpus_used > h.vcpus * h.cpu_allocation_ratio)).all()


@pytest.mark.parametrize('database', ['postgresql', 'sqlite'], indirect=True)
def test_200_racing_boots_fill_exactly_the_room_for_50(deployment):
    api = deployment
    ids = [api.create_instance('race-%03d' % i, 'one', 'guest', ['net1'])
           for i in range(BOOTS)]
    start, done = threading.Barrier(BOOTS + 2), threading.Event()
    errors, seen_overcommit = [], []

    def boot(instance_id):
        start.wait()
        try:
            api.run_boot(instance_id)
        except Exception as exc:  # reported below, never lost in a thread
            errors.append(repr(exc))

    def watch():  # usage must never exceed capacity, not only at the end
        start.wait()
        last_report = time.monotonic()
        while not done.is_set():
            seen_overcommit.extend(_overcommitted())
            # The racks keep reporting as their workers would: on a slow machine
            # the race outlasts [scheduler] host_down_time, and silent hosts are
            # (rightly) no longer scheduled onto.
            if time.monotonic() - last_report > REPORT_INTERVAL:
                _report_racks()
                last_report = time.monotonic()
            done.wait(0.05)

    threads = [threading.Thread(target=boot, args=(i,)) for i in ids]
    watcher = threading.Thread(target=watch)
    for t in threads + [watcher]:
        t.start()
    start.wait()
    for t in threads:
        t.join()
    done.set()
    watcher.join()

    assert errors == []
    assert seen_overcommit == [] and _overcommitted() == []
    rows = [api.show(i) for i in ids]
    active = [r for r in rows if r['vm_state'] == states.ACTIVE]
    failed = [r for r in rows if r['vm_state'] == states.ERROR]
    assert len(active) == HOSTS * SLOTS_PER_HOST
    assert len(failed) == BOOTS - len(active)
    assert all('No valid host was found' in r['fault'] for r in failed), \
        {r['fault'] for r in failed}
    used = {h['name']: h['vcpus_used'] for h in hosts.list_all()}
    assert used == dict({'rack-%02d' % i: SLOTS_PER_HOST for i in range(HOSTS)},
                        **{CONF.host: 0})
    assert sorted(r['host'] for r in active) == sorted(
        'rack-%02d' % i for i in range(HOSTS) for _ in range(SLOTS_PER_HOST))
    for instance_id in ids:
        api.delete(instance_id)
    assert set(used) == {h['name'] for h in hosts.list_all()}
    assert all(h['vcpus_used'] == 0 for h in hosts.list_all())
