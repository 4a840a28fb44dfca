"""Power actions as conductor jobs: host steps on the worker over fake://."""

from unittest import mock

from provisioner.compute import actions
from provisioner.engine import conductor
from provisioner.engine import jobs
from tests.unit.flows.conftest import boot_request
from tests.unit.flows.test_distributed_wiring import _run_job
from tests.unit.flows.test_distributed_wiring import cluster  # noqa: F401 (fixture)
from tests.unit.flows.test_distributed_wiring import FakeBoard

from flows import constants as c


def _run_power_job(board, instance_id, action_id):
    with mock.patch.object(jobs, 'get_board', return_value=board):
        job = jobs.post_action(instance_id, action_id)
    engine = conductor.Conductor(board)
    board.claim(job, engine.name)
    engine._work(conductor._Run(job))
    return job


def test_a_stop_job_runs_on_the_worker_and_is_consumed(cluster):  # noqa: F811
    board = FakeBoard()
    instance_id = boot_request(cluster)
    _run_job(board, instance_id)
    _instance_id, action_id = cluster.power_action(instance_id, actions.STOP)
    job = _run_power_job(board, instance_id, action_id)
    assert job.name == 'power-%s' % action_id
    assert job.details == {'action': jobs.POWER, 'instance_id': instance_id,
                           'action_id': action_id}
    info = cluster.show(instance_id)
    assert (info['vm_state'], info['power_state'], info['task_state']) == \
        ('stopped', 'shutdown', None)
    assert board.consumed[-1] == job.name


def test_a_failed_reboot_job_is_trashed(cluster, conf):  # noqa: F811
    board = FakeBoard()
    instance_id = boot_request(cluster)
    _run_job(board, instance_id)
    conf.set_override('fail_after_step', [c.REBOOT_DOMAIN], 'fault_injection')
    _instance_id, action_id = cluster.power_action(instance_id, actions.REBOOT)
    job = _run_power_job(board, instance_id, action_id)
    info = cluster.show(instance_id)
    assert (info['vm_state'], info['task_state']) == ('active', None)
    assert board.trashed == [job.name]
    assert actions.get_by_id(action_id)['message'].startswith(
        'Error: %s: Injected fault' % c.REBOOT_DOMAIN)
