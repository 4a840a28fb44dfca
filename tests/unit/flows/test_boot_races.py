"""A boot and a delete of one instance race (all-in-one: boot --no-wait, delete).

Whichever takes the instance's lock first runs; a boot that comes second to a
finished delete makes nothing, even when it read the instance just before the delete
took the lock."""

from provisioner.compute import instances
from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner.engine import persistence
from provisioner.engine import runner
from tests.unit.flows.conftest import boot_request
from tests.unit.flows.conftest import leftovers


def _flow_uuid(instance_id):
    with db_api.transaction() as session:
        return instances.get_row(session, instance_id).flow_uuid


def test_a_boot_coming_after_its_instance_was_deleted_makes_nothing(api, hypervisor):
    instance_id = boot_request(api)
    flow_uuid = _flow_uuid(instance_id)  # what the late boot read before the delete
    api.delete(instance_id)
    assert persistence.get_flow_detail(flow_uuid) is None

    assert runner.run_boot(instance_id, flow_uuid) is None
    assert persistence.get_flow_detail(flow_uuid) is None  # no flow made again
    assert leftovers(hypervisor, api, instance_id) == []
    with db_api.transaction() as session:
        assert instances.get_row(session, instance_id).vm_state == states.DELETED
