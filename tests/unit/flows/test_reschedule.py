"""The reschedule controller alone: its decisions and what it records, on test:///."""

from taskflow import retry
from taskflow.types import failure as tf_failure

from provisioner.compute import states
from provisioner.engine import remote
from provisioner import exception
from tests.unit.flows.conftest import boot_request

from flows import constants as c
from flows.steps import reschedule
from flows.steps import scheduling


def _history(*attempts):
    return retry.History(list(attempts))


def _failed(exc):
    return {c.DEFINE_DOMAIN: tf_failure.Failure.from_exception(exc)}


def test_a_host_failure_is_retried_until_the_attempts_run_out():
    controller = reschedule.Reschedule(c.RESCHEDULE, max_attempts=2)
    lost = _failed(remote.WorkerUnreachable(host='h1', step=c.DEFINE_DOMAIN,
                                            reason='timeout'))
    assert controller.on_failure(_history(([], lost))) == retry.RETRY
    assert controller.on_failure(_history(([], lost), (['h1'], lost))) == retry.REVERT_ALL


def test_what_no_other_host_would_fix_reverts_the_whole_boot():
    controller = reschedule.Reschedule(c.RESCHEDULE, max_attempts=3)
    for exc in (exception.InjectedFault(step=c.DEFINE_DOMAIN),
                exception.NoValidHost(reason='none left')):
        assert controller.on_failure(_history(([], _failed(exc)))) == retry.REVERT_ALL


def test_execute_provides_the_failed_hosts_and_records_the_attempt(api, conf):
    instance_id = boot_request(api)
    scheduling.ClaimResources(c.CLAIM_RESOURCES).execute(instance_id, [conf.host])
    controller = reschedule.Reschedule(c.RESCHEDULE, max_attempts=3)
    assert controller.execute(_history(), instance_id) == []
    failed = _failed(remote.WorkerUnreachable(host=conf.host, step=c.DEFINE_DOMAIN,
                                              reason='timeout'))
    assert controller.execute(_history(([], failed)), instance_id) == [conf.host]
    info = api.show(instance_id)
    assert info['task_state'] == states.SCHEDULING
    assert [e['host'] for e in info['events'] if e['name'] == c.RESCHEDULE] == [conf.host]
    controller.revert(_history(([], failed)))  # nothing to undo
