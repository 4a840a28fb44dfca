import threading

import pytest
import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.scheduler import claims
from provisioner.scheduler import filters
from provisioner.scheduler import manager
from tests.unit import fixtures


def _usage(name):
    with db_api.transaction() as session:
        host = session.execute(sa.select(models.Host).where(models.Host.name == name)
                               ).scalar_one()
        return host.vcpus_used, host.memory_mib_used, host.disk_gib_used


def test_select_hosts_spreads_by_free_ram():
    fixtures.add_host('small', memory_mib=1024)
    fixtures.add_host('big', memory_mib=8192)
    spec = filters.RequestSpec(vcpus=1, ram_mib=512, disk_gib=1)
    assert manager.select_hosts(spec) == ['big', 'small']


def test_no_valid_host_says_which_filter_removed_how_many():
    fixtures.add_host('a', memory_mib=256)
    fixtures.add_host('b', memory_mib=256)
    fixtures.add_host('c', vcpus=1, memory_mib=4096)
    spec = filters.RequestSpec(vcpus=2, ram_mib=512, disk_gib=1)
    with pytest.raises(exception.NoValidHost) as err:
        manager.select_hosts(spec)
    assert '3 host(s) considered' in str(err.value)
    assert 'RamFilter removed 2' in str(err.value)
    assert 'VcpuFilter removed 1' in str(err.value)


def test_claim_and_release_are_idempotent(admin_context):
    fixtures.add_host('h1')
    instance_id = fixtures.add_instance(admin_context)
    assert claims.claim(instance_id, 'h1', 2, 1024, 10)
    assert claims.claim(instance_id, 'h1', 2, 1024, 10)  # a re-run adopts its claim
    assert _usage('h1') == (2, 1024, 10)
    assert claims.release(instance_id)
    assert not claims.release(instance_id)
    assert _usage('h1') == (0, 0, 0)


def test_claim_fails_on_a_full_host(admin_context):
    fixtures.add_host('h1', vcpus=2)
    first = fixtures.add_instance(admin_context, name='a')
    second = fixtures.add_instance(admin_context, name='b')
    assert claims.claim(first, 'h1', 2, 128, 1)
    assert not claims.claim(second, 'h1', 1, 128, 1)
    assert _usage('h1') == (2, 128, 1)


def test_racing_claims_never_overcommit(admin_context):
    fixtures.add_host('h1', vcpus=5)
    ids = [fixtures.add_instance(admin_context, name='vm%d' % i) for i in range(20)]
    results = []
    barrier = threading.Barrier(len(ids))

    def race(instance_id):
        barrier.wait()
        results.append(claims.claim(instance_id, 'h1', 1, 64, 1))

    threads = [threading.Thread(target=race, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 5
    assert _usage('h1') == (5, 320, 5)
