"""Host side of the power steps: stop, start and reboot the instance's domain.

The shutdown timeout is this host's [compute] shutdown_timeout.
"""

import dataclasses
import logging

from provisioner.conf import CONF

from flows.host import base

LOG = logging.getLogger(__name__)


def power_on(instance_id):
    base.driver().power_on(instance_id)


def power_off_at_once(instance_id):
    base.driver().power_off(instance_id, 0)


class PowerOffDomain(base.HostStep):
    """Shut the guest down, powering it off after the timeout; True if it shut down."""

    def run(self, payload):
        clean = base.driver().power_off(payload.instance_id,
                                        CONF.compute.shutdown_timeout)
        if not clean:
            LOG.warning('Instance %s did not shut down within %d s; powered it off',
                        payload.instance_id, CONF.compute.shutdown_timeout)
        return clean

    def undo(self, payload, result):
        LOG.warning('Starting the domain of instance %s again', payload.instance_id)
        base.undo('start domain again', power_on, payload.instance_id)


class PowerOnDomain(base.HostStep):
    def run(self, payload):
        power_on(payload.instance_id)

    def undo(self, payload, result):
        LOG.warning('Powering the domain of instance %s off again', payload.instance_id)
        base.undo('power off domain', power_off_at_once, payload.instance_id)


@dataclasses.dataclass(frozen=True)
class RebootPayload:
    instance_id: str
    hard: bool


class RebootDomain(base.HostStep):
    Payload = RebootPayload

    def run(self, payload):
        base.driver().reboot(payload.instance_id, payload.hard)

    def undo(self, payload, result):
        LOG.warning('Making sure the domain of instance %s runs', payload.instance_id)
        base.undo('start domain', power_on, payload.instance_id)
