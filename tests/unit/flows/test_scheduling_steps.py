"""The scheduling steps alone: execute and revert called directly, on test:///."""

import pytest
import sqlalchemy as sa

from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from tests.unit.flows.conftest import boot_request
from tests import probes

from flows import constants as c
from flows.steps import scheduling


@pytest.fixture
def instance_id(api):
    return boot_request(api)


def test_select_hosts_offers_this_host_and_marks_scheduling(api, instance_id, conf):
    candidates = scheduling.SelectHosts(c.SELECT_HOSTS).execute(instance_id)
    assert candidates == [conf.host]
    assert api.show(instance_id)['task_state'] == states.SCHEDULING


def test_claim_then_its_revert(api, instance_id, conf):
    step = scheduling.ClaimResources(c.CLAIM_RESOURCES)
    host = step.execute(instance_id, [conf.host])
    assert host == conf.host and probes.has_claim(instance_id)
    assert api.show(instance_id)['host'] == conf.host
    step.revert(instance_id, result=host)
    step.revert(instance_id, result=host)  # a resumed revert finds nothing to release
    assert not probes.has_claim(instance_id)


def test_claim_skips_the_hosts_this_boot_failed_on(instance_id, conf):
    step = scheduling.ClaimResources(c.CLAIM_RESOURCES)
    with pytest.raises(exception.NoValidHost):
        step.execute(instance_id, [conf.host], failed_hosts=[conf.host])
    assert not probes.has_claim(instance_id)


def test_release_claim_gives_the_resources_back_once(instance_id, conf):
    scheduling.ClaimResources(c.CLAIM_RESOURCES).execute(instance_id, [conf.host])
    step = scheduling.ReleaseClaim(c.RELEASE_CLAIM)
    step.execute(instance_id)
    step.execute(instance_id)
    assert not probes.has_claim(instance_id)


def _vcpus_used(host):
    with db_api.transaction() as session:
        return session.execute(sa.select(models.Host.vcpus_used)
                               .where(models.Host.name == host)).scalar()


def test_claim_run_again_after_a_crash_counts_once(instance_id, conf):
    step = scheduling.ClaimResources(c.CLAIM_RESOURCES)
    before = _vcpus_used(conf.host)
    assert step.execute(instance_id, [conf.host]) == conf.host
    assert step.execute(instance_id, [conf.host]) == conf.host  # adopts its claim
    assert _vcpus_used(conf.host) == before + 1  # the tiny flavor's one vcpu
    step.revert(instance_id, result=conf.host)
    assert _vcpus_used(conf.host) == before
