"""The scheduling steps: choose a host and claim its resources (documented steps
8-11, and the delete flow's release-claim); engine only."""

import logging

from provisioner.catalog import hosts
from provisioner.compute import instances
from provisioner.compute import server_groups
from provisioner.compute import states
from provisioner.db import api as db_api
from provisioner import exception
from provisioner.scheduler import claims
from provisioner.scheduler import filters
from provisioner.scheduler import manager
from provisioner.volume import volumes

from flows import constants
from flows.steps import base
from flows.steps import lifecycle

LOG = logging.getLogger(__name__)

# A claim fails only when another boot took the host's last room since it was chosen;
# after this many fresh selections lost that race, the boot gives up.
MAX_CLAIM_ROUNDS = 20


def request_spec(instance_id, excluded_hosts=()):
    """What the instance asks of a host, with its group's hosts as they are now."""
    req = instances.build_request(instance_id)
    group_name = group_policy = None
    group_hosts = frozenset()
    if req.server_group_id:
        group_name, group_policy, per_host = server_groups.lookup(req.server_group_id)
        with db_api.transaction() as session:
            group_hosts = claims.full_hosts(
                session, (req.server_group_id, group_policy, per_host), instance_id)
    volume_host = None
    if req.boot_volume and req.boot_volume.get('existing'):
        volume_host = volumes.pinned_host(req.boot_volume['id'])
    return filters.RequestSpec(
        vcpus=req.vcpus, ram_mib=req.ram_mib, disk_gib=req.disk_gib,
        volume_host=volume_host, requested_host=req.requested_host,
        availability_zone=req.availability_zone, image_arch=req.image.get('arch'),
        image_hypervisor_type=req.image.get('hypervisor_type'),
        group_name=group_name, group_policy=group_policy, group_hosts=group_hosts,
        excluded_hosts=frozenset(excluded_hosts), alive_since=hosts.down_cutoff())


class SelectHosts(base.ProvisionerTask):
    """Filter and weigh the hosts; provide the best first, then alternates.

    Reversion strategy: none; choosing changes nothing.
    """

    default_provides = constants.HOST_CANDIDATES

    def execute(self, instance_id):
        instances.advance_task_state(instance_id, states.SCHEDULING)
        return manager.select_hosts(request_spec(instance_id))


def _naming_failed_attempts(no_valid_host, instance_id, failed_hosts):
    """NoValidHost that says first what failed on each host this boot already tried,
    e.g. 'No valid host was found: h1: create-volumes: <error>; ...; RetryFilter
    removed 1': that, not the filter, is why no host is left."""
    attempts = lifecycle.failed_attempts(instance_id) if failed_hosts else []
    if not attempts:
        return no_valid_host
    return exception.NoValidHost(reason='%s; %s' % ('; '.join(attempts),
                                                    no_valid_host.kwargs['reason']))


class ClaimResources(base.ProvisionerTask):
    """Claim the flavor's resources on the best candidate that has room.

    Candidates this boot already failed on are skipped. When every candidate filled
    up since the selection (boots racing), the hosts are selected again from the
    database as it is now, until a claim holds or no host is left (NoValidHost).

    Reversion strategy: release the instance's claim, whichever host holds it.
    """

    default_provides = constants.HOST

    def execute(self, instance_id, host_candidates, failed_hosts=()):
        req = instances.build_request(instance_id)
        group = None
        if req.server_group_id:
            group = (req.server_group_id,) + server_groups.lookup(req.server_group_id)[1:]
        candidates = [h for h in host_candidates if h not in failed_hosts]
        for _round in range(MAX_CLAIM_ROUNDS):
            for host in candidates:
                if claims.claim(instance_id, host, req.vcpus, req.ram_mib, req.disk_gib,
                                group=group):
                    instances.update(instance_id, host=host)
                    return host
            try:
                candidates = manager.select_hosts(request_spec(instance_id,
                                                               failed_hosts))
            except exception.NoValidHost as exc:
                raise _naming_failed_attempts(exc, instance_id, failed_hosts) from None
        raise exception.NoValidHost(
            reason='the chosen hosts kept filling up before the claim (%d selections)'
                   % MAX_CLAIM_ROUNDS)

    def revert(self, instance_id, result, **kwargs):
        LOG.warning('Releasing the resource claim of instance %s', instance_id)
        base.undo('release claim', claims.release, instance_id)


class ReleaseClaim(base.ProvisionerTask):
    """Give the instance's claimed resources back to its host."""

    def execute(self, instance_id):
        claims.release(instance_id)
