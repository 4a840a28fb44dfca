"""The lifecycle steps alone: execute and revert called directly, on test:///."""

import pytest
from taskflow.types import failure as tf_failure

from provisioner.catalog import common
from provisioner.catalog import flavors
from provisioner.compute import instances
from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from tests.unit.flows.conftest import boot_request

from flows import constants as c
from flows.steps import lifecycle


def _state(api, instance_id):
    info = api.show(instance_id)
    return info['vm_state'], info['power_state'], info['task_state']


def test_guard_does_nothing_forward_and_its_revert_records_the_fault(api):
    instance_id = boot_request(api)
    guard = lifecycle.InstanceLifecycleGuard(c.LIFECYCLE_GUARD)
    guard.execute(instance_id)
    assert _state(api, instance_id)[0] == states.BUILDING
    failures = {c.CREATE_ROOT_DISK: tf_failure.Failure.from_exception(
        exception.InjectedFault(step=c.CREATE_ROOT_DISK))}
    guard.revert(instance_id, result=None, flow_failures=failures)
    guard.revert(instance_id, result=None, flow_failures=failures)  # a resumed revert
    assert _state(api, instance_id)[0] == states.ERROR
    assert api.show(instance_id)['fault'] == (
        'create-root-disk: Injected fault at step create-root-disk')


def test_guard_revert_without_a_known_cause_says_so(api):
    instance_id = boot_request(api)
    lifecycle.InstanceLifecycleGuard(c.LIFECYCLE_GUARD).revert(
        instance_id, result=None, flow_failures={})
    assert api.show(instance_id)['fault'] == 'Boot failed for an unknown reason.'


def test_mark_active_then_mark_deleted(api):
    instance_id = boot_request(api)
    lifecycle.MarkActive(c.MARK_ACTIVE).execute(instance_id)
    lifecycle.MarkActive(c.MARK_ACTIVE).execute(instance_id)  # run again: same
    assert _state(api, instance_id) == (states.ACTIVE, states.RUNNING, None)
    assert api.show(instance_id)['launched_at'] is not None
    lifecycle.MarkDeleted(c.MARK_DELETED).execute(instance_id)
    with db_api.transaction() as session:
        row = instances.get_row(session, instance_id)
        assert (row.vm_state, row.power_state, row.task_state) == (
            states.DELETED, states.NOSTATE, None)
        assert row.deleted_at is not None


def test_an_instance_holds_its_flavor_in_use_until_mark_deleted(api):
    instance_id = boot_request(api)
    in_use = common.instances_using(models.Instance.flavor_id)
    with pytest.raises(exception.Conflict, match='in use by vm1'):
        flavors.delete('tiny')
    lifecycle.MarkDeleted(c.MARK_DELETED).execute(instance_id)
    with db_api.transaction() as session:
        assert in_use(session, common.find(session, models.Flavor, 'tiny',
                                           'Flavor')) == ''


def test_an_instances_host_and_user_data_are_read_alone_or_not_found(api):
    instance_id = boot_request(api)
    assert instances.host_of(instance_id) is None  # not placed yet
    instances.update(instance_id, host='h1')
    assert instances.host_of(instance_id) == 'h1'
    assert instances.user_data(instance_id) == b'hello'  # boot_request's
    for read in (instances.host_of, instances.user_data):
        with pytest.raises(exception.NotFound, match='Instance no-such-id'):
            read('no-such-id')
