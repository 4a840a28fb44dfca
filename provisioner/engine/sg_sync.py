"""After a security group change, converge the filters of the ports it touches on
their hosts (provisioner.worker.sg_agent; all-in-one: this host's driver).

What changes and what to name: a rule of a group (the group), a port's groups (the
port, and its groups before and after: their members changed), a port's port
security or address pairs (the port and its groups), a port bound or released (its
ports and their groups). ``provisioner.network.port_filters.plan`` finds the ports.
"""

import logging

from provisioner import deployment
from provisioner.network import port_filters
from provisioner import virt
from provisioner.worker import sg_agent

LOG = logging.getLogger(__name__)


def _push(host, states):
    if deployment.mode() == deployment.DISTRIBUTED:
        sg_agent.SecurityGroupAgentAPI().sync_port_filters(host, states)
    else:
        virt.get_driver().sync_port_filters(states)


def sync(port_ids=(), group_ids=(), strict=True):
    """Push every touched bound port's filter to its host. Not ``strict``: a host
    that fails is logged (the next change of its ports repairs it)."""
    for host, states in sorted(port_filters.plan(port_ids, group_ids).items()):
        try:
            _push(host, states)
        except Exception as exc:
            if strict:
                raise
            LOG.warning('Host %s did not take the filters of ports %s (%s); the next '
                        'change of their groups repairs it', host,
                        ', '.join(s['port_id'] for s in states), exc)
