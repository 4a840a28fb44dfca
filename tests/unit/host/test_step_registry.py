"""The registry of host steps: every host half under one stable name, found by it, and
by the class paths release 2.1 used; nothing else."""

import dataclasses
import inspect

import pytest

from flows.steps import base
from flows.steps import domain
from flows.steps import registry


def _defined_in(module, kind):
    return [cls for cls in vars(module).values() if inspect.isclass(cls)
            and issubclass(cls, kind) and cls.__module__ == module.__name__]


def test_every_host_half_is_registered_under_its_modules_name():
    for module in registry.HOST_STEP_MODULES:
        resource = module.__name__.rpartition('.')[2]
        for step in _defined_in(module, base.HostStep):
            assert step.name.startswith(resource + '.'), step
            assert registry.host_step(step.name) is step
        for task in _defined_in(module, base.HostTask):
            if task.step is not None:
                assert task.step.__module__ == module.__name__  # one module per step
                assert registry.engine_half(task.step.name) is task


# Host steps added since release 2.1 (no class path of that release).
SINCE_2_1 = ['rebuild.power_off', 'rebuild.fetch_image', 'rebuild.create_disk',
             'rebuild.swap_root_disk', 'rebuild.config_drive', 'rebuild.redefine_domain',
             'rebuild.delete_replaced_files', 'snapshot.create', 'snapshot.delete',
             'snapshot.copy_volume', 'migration.prepare_target',
             'migration.migrate_domain', 'migration.forget_source',
             'image_snapshot.capture', 'image_snapshot.upload',
             'image_snapshot.delete_capture']


def test_the_registered_names_are_release_2_1s_steps_none_missing():
    expected = sorted(list(registry.RELEASE_2_1_PATHS) + SINCE_2_1)
    assert sorted(base.REGISTERED) == expected
    assert sorted(base.ENGINE_HALVES) == expected


def test_a_step_is_found_by_its_name_or_by_its_path_in_release_2_1():
    assert registry.host_step('domain.define') is domain.DefineDomainOnHost
    assert (registry.host_step_named('flows.host.domain_steps.DefineDomain')
            is domain.DefineDomainOnHost)
    assert (registry.host_step_of_release_2_1('flows.host.attach_steps.AttachVolume')
            is registry.host_step('attach.plug'))
    assert registry.release_2_1_path('domain.define') == (
        'flows.host.domain_steps.DefineDomain')
    assert registry.engine_half('flows.tasks.domain_tasks.DestroyDomain') is (
        domain.DestroyDomain)
    assert registry.release_2_1_task_path('attach.delete_volume') == (
        'flows.tasks.attach_tasks.DeleteVolumeFile')


@pytest.mark.parametrize('step', [
    'domain.nope', 'os.system', 'flows.steps.domain.DefineDomainOnHost',
    'flows.tasks.domain_tasks.DefineDomain', 'flows.host.base.driver', '', None, 42,
    ['domain.define'], {'domain.define': 1}])
def test_anything_else_is_refused(step):
    with pytest.raises(registry.UnknownStep):
        registry.host_step_named(step)
    with pytest.raises(registry.UnknownStep):
        registry.host_step(step)


def test_release_2_1_runs_no_step_named_by_this_release():
    for refused in ('domain.define', 'flows.tasks.domain_tasks.DefineDomain'):
        with pytest.raises(registry.UnknownStep, match='Refusing step'):
            registry.host_step_of_release_2_1(refused)


@pytest.mark.parametrize('task', ['domain.nope', 'flows.host.domain_steps.DestroyDomain',
                                  'flows.tasks.scheduler_tasks.ReleaseClaim', None])
def test_a_deferred_row_naming_no_engine_half_is_refused(task):
    with pytest.raises(registry.UnknownStep):
        registry.engine_half(task)


def test_two_steps_cannot_share_a_name():
    with pytest.raises(TypeError, match="both named 'domain.define'"):
        type('Impostor', (base.HostStep,), {'name': 'domain.define'})
    assert registry.host_step('domain.define') is domain.DefineDomainOnHost
    with pytest.raises(TypeError, match='two engine halves'):
        type('Impostor', (base.HostTask,), {'step': domain.DefineDomainOnHost})
    assert registry.engine_half('domain.define') is domain.DefineDomain


def test_an_engine_half_needs_a_registered_host_half():
    unnamed = type('Unnamed', (base.HostStep,), {})
    with pytest.raises(TypeError, match='no registered name'):
        type('Orphan', (base.HostTask,), {'step': unnamed})


def test_every_payload_is_a_frozen_dataclass():
    for step in base.REGISTERED.values():
        for payload in (step.Payload, step.UndoPayload):
            assert dataclasses.is_dataclass(payload), step
            assert payload.__dataclass_params__.frozen, step
