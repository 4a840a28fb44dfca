"""The quota steps alone: execute and revert called directly, on test:///."""

from provisioner.quota import counters
from tests.unit.flows.conftest import boot_request

from flows import constants as c
from flows.steps import quota


def _in_use(api):
    return {row['resource']: row['in_use']
            for row in counters.show(api.context.project_id)}


def test_hold_keeps_the_reservation_and_its_revert_gives_it_back(api):
    before = _in_use(api)
    instance_id = boot_request(api)
    held = _in_use(api)
    assert held != before  # the API reserved the boot's quota with its row
    step = quota.HoldQuota(c.HOLD_QUOTA)
    step.execute(instance_id)
    assert _in_use(api) == held
    step.revert(instance_id, result=None)
    step.revert(instance_id, result=None)  # a resumed revert gives nothing twice
    assert _in_use(api) == before


def test_release_gives_a_deleted_instances_quota_back_once(api):
    before = _in_use(api)
    instance_id = boot_request(api)
    step = quota.ReleaseQuota(c.RELEASE_QUOTA)
    step.execute(instance_id)
    step.execute(instance_id)
    assert _in_use(api) == before
