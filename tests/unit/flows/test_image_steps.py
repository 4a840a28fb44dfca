"""The image steps alone, as the engine runs them in-process: execute and revert
called directly, on test:///."""

import os

import pytest

from provisioner.engine.step_records import with_records
from tests.unit.flows.conftest import boot_request

from flows import constants as c
from flows.steps import image


@pytest.fixture
def instance_id(api):
    return boot_request(api)


def test_fetch_image_caches_the_kernel_and_ramdisk(instance_id, catalog):
    files = with_records(image.FetchImage(c.FETCH_IMAGE)).execute(instance_id=instance_id)
    again = with_records(image.FetchImage(c.FETCH_IMAGE)).execute(instance_id=instance_id)
    assert again == files  # the cache is reused, nothing copied twice
    with open(files['kernel'], 'rb') as kernel:
        assert kernel.read() == catalog['kernel'].read_bytes()


def test_root_disk_then_its_revert_then_delete(instance_id, hypervisor):
    files = with_records(image.FetchImage(c.FETCH_IMAGE)).execute(instance_id=instance_id)
    step = with_records(image.CreateRootDisk(c.CREATE_ROOT_DISK))
    disk = step.execute(instance_id=instance_id, image_files=files)
    assert step.execute(instance_id=instance_id, image_files=files) == disk  # adopted
    assert hypervisor.leftovers(instance_id) == ['root disk %s' % disk]
    step.revert(instance_id=instance_id, result=disk)
    step.revert(instance_id=instance_id, result=disk)
    assert hypervisor.leftovers(instance_id) == []
    step.execute(instance_id=instance_id, image_files=files)
    delete = image.DeleteRootDisk(c.DELETE_ROOT_DISK)
    delete.execute(instance_id=instance_id)
    delete.execute(instance_id=instance_id)
    assert hypervisor.leftovers(instance_id) == []
    assert os.path.exists(files['kernel'])  # the shared cache stays
