"""Steps that give the instance its addresses (documented steps 22-24)."""

import logging

from provisioner.compute import instances
from provisioner.compute import states
from provisioner import naming
from provisioner.network import ipam

from flows import constants
from flows.host import network_steps
from flows.tasks import base

LOG = logging.getLogger(__name__)


class AllocatePorts(base.ProvisionerTask):
    """Allocate a fixed IP and a MAC from IPAM on each requested network, or bind
    the port a user made first.

    Reversion strategy: delete the ports the boot made and unbind the user's (they
    stay, as Neutron's); a re-run adopts the ports an interrupted run allocated.
    """

    default_provides = constants.PORTS

    def execute(self, instance_id):
        instances.advance_task_state(instance_id, states.NETWORKING)
        req = instances.build_request(instance_id)
        return ipam.allocate_ports(instance_id, [dict(nic) for nic in req.nics],
                                   req.project_id)

    def revert(self, instance_id, result, **kwargs):
        LOG.warning('Releasing the ports of instance %s', instance_id)
        base.undo('release ports', ipam.release_ports, instance_id)


class ReleasePorts(base.ProvisionerTask):
    """Release the instance's fixed IPs and MACs."""

    def execute(self, instance_id):
        ipam.release_ports(instance_id)


class ReserveDhcp(base.HostTask):
    """Plug each port's network on this host and pin its IP as a DHCP host entry.

    Reversion strategy: drop the instance's DHCP entries, found from its ports.
    """

    step = network_steps.ReserveDhcp

    def build_payload(self, instance_id, ports):
        return network_steps.DhcpPayload(
            instance_id, ports, naming.hostname(instances.build_request(instance_id).name))

    def build_undo_payload(self, instance_id, ports=None):
        # The ports argument first, not the database: a revert replayed late (its
        # worker was down) runs after AllocatePorts' revert released the rows.
        return _dhcp_payload(instance_id, ports)


def _dhcp_payload(instance_id, ports=None):
    return network_steps.DhcpPayload(
        instance_id, ports if ports is not None else ipam.ports_for(instance_id))


class ReleaseDhcp(base.HostTask):
    """Drop the instance's DHCP host entries."""

    deferrable = True
    step = network_steps.ReleaseDhcp

    def build_payload(self, instance_id, ports=None):
        # Read now: a deferred run finds the ports in its payload, as ReleasePorts
        # runs right after this step.
        return _dhcp_payload(instance_id, ports)
