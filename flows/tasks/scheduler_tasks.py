"""Steps that choose a host and claim its resources (documented steps 8-11)."""

import logging

from provisioner.compute import instances
from provisioner.compute import states
from provisioner import exception
from provisioner.scheduler import claims
from provisioner.scheduler import filters
from provisioner.scheduler import manager

from flows import constants
from flows.tasks import base

LOG = logging.getLogger(__name__)


def _request_spec(instance_id):
    req = instances.build_request(instance_id)
    return filters.RequestSpec(vcpus=req.vcpus, ram_mib=req.ram_mib, disk_gib=req.disk_gib)


class SelectHosts(base.ProvisionerTask):
    """Filter and weigh the hosts; provide the best first, then alternates.

    Reversion strategy: none; choosing changes nothing.
    """

    default_provides = constants.HOST_CANDIDATES

    def execute(self, instance_id):
        instances.advance_task_state(instance_id, states.SCHEDULING)
        return manager.select_hosts(_request_spec(instance_id))


class ClaimResources(base.ProvisionerTask):
    """Claim the flavor's resources on the first candidate that still has room.

    Reversion strategy: release the instance's claim, whichever host holds it.
    """

    default_provides = constants.HOST

    def execute(self, instance_id, host_candidates):
        spec = _request_spec(instance_id)
        for host in host_candidates:
            if claims.claim(instance_id, host, spec.vcpus, spec.ram_mib, spec.disk_gib):
                instances.update(instance_id, host=host)
                return host
        raise exception.NoValidHost(
            reason='every candidate host (%s) filled up before the claim'
                   % ', '.join(host_candidates))

    def revert(self, instance_id, result, **kwargs):
        LOG.warning('Releasing the resource claim of instance %s', instance_id)
        base.undo('release claim', claims.release, instance_id)


class ReleaseClaim(base.ProvisionerTask):
    """Give the instance's claimed resources back to its host."""

    def execute(self, instance_id):
        claims.release(instance_id)
