"""The one engine builder (provisioner.engine.runner.build_engine): every run of every
flow gets its engine there, built as that kind of run needs it."""

import uuid

import pytest
from taskflow.engines.action_engine import engine as tf_engine
from taskflow import states as tf_states

from provisioner.compute import actions
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.engine import fault_points
from provisioner.engine import persistence
from provisioner.engine import remote
from provisioner.engine import runner
from provisioner.engine import step_records
from tests.unit.flows.conftest import atoms
from tests.unit.flows.conftest import boot_request

from flows import boot
from flows import constants as c
from flows import delete
from flows import power
from flows import volume

FACTORIES = [boot.create_flow, delete.create_flow, power.stop_flow, power.start_flow,
             power.reboot_flow, lambda: volume.attach_flow('v'),
             lambda: volume.detach_flow('v'), volume.delete_flow]
STORE = {c.INSTANCE_ID: 'i', c.HOST: 'h1'}


@pytest.mark.parametrize('remote_steps', [False, True])
@pytest.mark.parametrize('factory', FACTORIES)
def test_every_atom_of_every_flow_gets_the_records_port(factory, remote_steps):
    flow = factory()
    runner.build_engine(flow, STORE, remote_steps=remote_steps)
    for atom in atoms(flow):
        assert atom.records is step_records.RECORDS, atom.name


def test_a_step_without_the_port_says_who_gives_it():
    step = delete.create_flow().iter_nodes().__next__()[0]
    with pytest.raises(RuntimeError, match='the engine attaches one'):
        step.records.build_request('i')


def test_in_process_steps_run_on_the_shared_pool_or_in_turn(conf):
    engine = runner.build_engine(delete.create_flow(), STORE)
    assert type(engine) is tf_engine.ParallelActionEngine
    assert engine.options['executor'] is runner._step_executor()
    # The delete flows: in turn, whatever [compute] max_parallel_steps says.
    serial = runner.build_engine(delete.create_flow(), STORE, serial=True)
    assert type(serial) is tf_engine.SerialActionEngine
    conf.set_override('max_parallel_steps', 1, 'compute')
    assert type(runner.build_engine(boot.create_flow(), STORE)) is (
        tf_engine.SerialActionEngine)


def test_under_a_conductor_host_steps_go_to_the_workers(conf):
    conf.set_override('max_parallel_steps', 1, 'compute')  # no matter: the pool
    engine = runner.build_engine(delete.create_flow(), STORE, remote_steps=True)
    assert type(engine) is remote.RemoteStepsEngine
    assert engine.options['executor'] is runner._step_executor()
    assert engine.storage.fetch(c.HOST) == 'h1'


@pytest.mark.parametrize('remote_steps', [False, True])
def test_a_flow_run_once_leaves_nothing_in_the_flow_store(remote_steps):
    engine = runner.build_engine(delete.create_flow(), STORE, remote_steps=remote_steps)
    assert engine.storage.fetch(c.INSTANCE_ID) == 'i'
    assert persistence.get_flow_detail(engine.storage.flow_uuid) is None


@pytest.mark.parametrize('remote_steps', [False, True])
def test_a_persisted_flow_runs_on_its_flow_detail(api, remote_steps):
    instance_id = boot_request(api)
    with db_api.transaction() as session:
        flow_uuid = session.get(models.Instance, instance_id).flow_uuid
    engine = runner._load_engine(runner.boot_flow_detail(instance_id, flow_uuid), instance_id,
                                 remote_steps=remote_steps)
    assert engine.storage.flow_uuid == flow_uuid
    assert engine.storage.fetch(c.INSTANCE_ID) == instance_id


@pytest.mark.parametrize('remote_steps', [False, True])
def test_fault_points_are_installed_only_when_configured(conf, remote_steps):
    engine = runner.build_engine(delete.create_flow(), STORE, remote_steps=remote_steps)
    assert not isinstance(engine._task_executor, fault_points.FaultPoints)
    conf.set_override('fail_after_step', ['destroy-domain'], 'fault_injection')
    engine = runner.build_engine(delete.create_flow(), STORE, remote_steps=remote_steps)
    assert isinstance(engine._task_executor, fault_points.FaultPoints)


def test_every_run_builds_its_engine_here(api, monkeypatch):
    built = []
    original = runner.build_engine

    def spy(flow, *args, **kwargs):
        built.append(flow.name)
        return original(flow, *args, **kwargs)

    monkeypatch.setattr(runner, 'build_engine', spy)
    instance_id = boot_request(api, volumes=())
    assert api.run_boot(instance_id)['vm_state'] == 'active'
    _, action_id = api.power_action(instance_id, actions.STOP)
    assert runner.run_action(instance_id, action_id) == tf_states.SUCCESS
    runner.run_delete(instance_id)
    # A volume's delete run again after its row went (a crash at its end): done.
    assert runner.run_volume_delete(str(uuid.uuid4())) == tf_states.SUCCESS
    assert built == [c.BOOT_FLOW, c.STOP_FLOW, c.DELETE_FLOW, c.DELETE_VOLUME_FLOW]
