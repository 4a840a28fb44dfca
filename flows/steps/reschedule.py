"""The retry controller around claim -> spawn: reschedule a failed boot to another host.

When a step between the claim and the running domain fails, TaskFlow first reverts
every step of the attempt -- on the host that failed, claim included -- and only then
asks this controller for the next attempt, which provides the hosts failed so far;
the claim step skips them. Errors no other host would fix are never rescheduled.
"""

import logging

from taskflow import retry

from provisioner.compute import instances
from provisioner.quota import counters
from provisioner.compute import states
from provisioner import exception

from flows import constants
from flows.steps import base
from flows.steps import lifecycle

LOG = logging.getLogger(__name__)

# Bad requests and bad images fail the same way everywhere; NoValidHost means no
# other host is left. InjectedFault is a test's "fail here", wherever here is.
NOT_RESCHEDULABLE = (exception.Invalid, exception.ImageInvalid, exception.NotFound,
                     exception.NoValidHost, exception.InjectedFault, counters.OverQuota)


def _reschedulable(failures):
    return bool(failures) and not any(f.check(*NOT_RESCHEDULABLE)
                                      for f in failures.values())


class Reschedule(retry.Retry):
    """Provide the hosts this boot failed on; retry on the next alternate or give up."""

    default_provides = constants.FAILED_HOSTS

    def __init__(self, name, max_attempts):
        super().__init__(name=name)
        self._max_attempts = max_attempts

    def on_failure(self, history, *args, **kwargs):
        failures = history[-1][1]
        if len(history) < self._max_attempts and _reschedulable(failures):
            return retry.RETRY
        # Plain REVERT would undo this subflow only and let the boot "succeed".
        return retry.REVERT_ALL

    def execute(self, history, instance_id):
        if not len(history):
            return []
        previous, failures = history[-1]
        failed_host = instances.host_of(instance_id)
        failed = list(previous) + [h for h in [failed_host] if h and h not in previous]
        why = base.describe_failures(failures)
        LOG.warning('Rescheduling instance %s (attempt %d of %d) after host %s failed: '
                    '%s', instance_id, len(history) + 1, self._max_attempts,
                    failed_host, why)
        instances.update(instance_id, task_state=states.SCHEDULING)
        now = instances.now()
        instances.record_event(instance_id, constants.RESCHEDULE, failed_host, now,
                               'Success', lifecycle.RESCHEDULE_MESSAGE
                               % (len(history) + 1, self._max_attempts, failed_host,
                                  why))
        return failed

    def revert(self, history, *args, **kwargs):
        pass
