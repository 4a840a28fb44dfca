"""The volume steps alone, as the engine runs them in-process: execute and revert
called directly, on test:///."""

import pytest

from provisioner.compute import states
from provisioner import naming
from provisioner.volume import volumes
from provisioner.engine.step_records import with_records
from tests.unit.flows.conftest import boot_request

from flows import constants as c
from flows.steps import volume


@pytest.fixture
def instance_id(api):
    return boot_request(api, volumes=(1, 2))


def _ids(instance_id):
    return [naming.volume_id(instance_id, index) for index in range(2)]


def test_create_volumes_then_their_revert(api, instance_id, hypervisor):
    step = with_records(volume.CreateVolumes(c.CREATE_VOLUMES))
    made = step.execute(instance_id=instance_id)
    assert step.execute(instance_id=instance_id) == made  # run again: adopted
    assert [(v['id'], v['size_gib']) for v in made] == list(zip(_ids(instance_id), [1, 2]))
    assert api.show(instance_id)['task_state'] == states.BLOCK_DEVICE_MAPPING
    assert [v['id'] for v in volumes.for_instance(instance_id)] == _ids(instance_id)
    assert len(hypervisor.leftovers(instance_id, _ids(instance_id))) == 2
    step.revert(instance_id=instance_id, result=made)
    step.revert(instance_id=instance_id, result=made)
    assert hypervisor.leftovers(instance_id, _ids(instance_id)) == []
    assert volumes.for_instance(instance_id) == []


def test_delete_volumes_removes_them_and_their_rows_once(instance_id, hypervisor):
    with_records(volume.CreateVolumes(c.CREATE_VOLUMES)).execute(instance_id=instance_id)
    step = with_records(volume.DeleteVolumes(c.DELETE_VOLUMES))
    step.execute(instance_id=instance_id)
    step.execute(instance_id=instance_id)
    assert hypervisor.leftovers(instance_id, _ids(instance_id)) == []
    assert volumes.for_instance(instance_id) == []
