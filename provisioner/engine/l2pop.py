"""l2population: after a port binds or goes, tell each host holding its network.

Distributed only: all-in-one there is one host, and its own boot steps plug the
network there (isolated, or one VXLAN segment with nobody to flood to).
"""

import logging

from provisioner import deployment
from provisioner.network import segments
from provisioner.worker import l2

LOG = logging.getLogger(__name__)


def sync(network_ids, leaving=(), excluding_instance=None, strict=True):
    """Push the networks' state to their L2 agent hosts (provisioner.worker.l2).

    ``leaving``: hosts a port just left (with ``excluding_instance``: the instance
    whose ports are going); a host no longer holding a network removes it. Not
    ``strict``: a host that fails is logged (a cleanup; the next sync repairs it).
    """
    if deployment.mode() != deployment.DISTRIBUTED:
        return
    api = l2.L2AgentAPI()
    for network_id in sorted(set(network_ids)):
        plan = segments.sync_plan(network_id, excluding_instance, leaving)
        if plan is None:
            continue
        calls = []
        for host, address in sorted(plan['members'].items()):
            peers = sorted(set(plan['members'].values()) - {address})
            entries = plan['entries'] if host == plan['dhcp_host'] else None
            calls.append((host, dict(plan['network'], peers=peers), True, entries))
        calls += [(host, plan['network'], False, None) for host in plan['remove']]
        for host, net, member, entries in calls:
            try:
                api.sync_network(host, net, member, entries)
            except Exception as exc:
                if strict:
                    raise
                LOG.warning('L2 agent of host %s did not sync network %s (%s); the '
                            'next change of the network repairs it', host,
                            network_id, exc)
