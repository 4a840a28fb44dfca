"""Steps that give the instance its addresses (documented steps 22-24)."""

import logging
import re

from provisioner.compute import instances
from provisioner.compute import states
from provisioner.network import ipam

from flows import constants
from flows.tasks import base

LOG = logging.getLogger(__name__)


def hostname(instance_name):
    """The guest's hostname: the instance name folded to an RFC 1123 label."""
    label = re.sub(r'[^a-z0-9-]', '-', instance_name.lower()).strip('-')
    return label[:63] or 'instance'


class AllocatePorts(base.ProvisionerTask):
    """Allocate a fixed IP and a MAC from IPAM on each requested network.

    Reversion strategy: release the instance's ports; a re-run adopts the ports an
    interrupted run allocated.
    """

    default_provides = constants.PORTS

    def execute(self, instance_id):
        instances.advance_task_state(instance_id, states.NETWORKING)
        network_ids = instances.build_request(instance_id).network_ids
        return ipam.allocate_ports(instance_id, network_ids)

    def revert(self, instance_id, result, **kwargs):
        LOG.warning('Releasing the ports of instance %s', instance_id)
        base.undo('release ports', ipam.release_ports, instance_id)


class ReleasePorts(base.ProvisionerTask):
    """Release the instance's fixed IPs and MACs."""

    def execute(self, instance_id):
        ipam.release_ports(instance_id)


def release_dhcp(instance_id, ports=None):
    """Drop the DHCP entries of the given ports, or of the instance's ports."""
    for port in ports if ports is not None else ipam.ports_for(instance_id):
        base.undo('drop DHCP entry %s' % port['mac'],
                  base.driver().release_dhcp, port['network'], port['mac'])


class ReserveDhcp(base.HostTask):
    """Plug each port's network on this host and pin its IP as a DHCP host entry.

    Reversion strategy: drop the instance's DHCP entries, found from its ports.
    """

    def execute(self, instance_id, ports):
        name = hostname(instances.build_request(instance_id).name)
        drv = base.driver()
        for port in ports:
            drv.ensure_network(port['network'])
            drv.reserve_dhcp(port['network'], port['mac'], port['ip'], name)

    def revert(self, instance_id, result, ports=None, **kwargs):
        LOG.warning('Dropping the DHCP entries of instance %s', instance_id)
        # The ports argument, not the database: a revert replayed late (its worker was
        # down) runs after AllocatePorts' revert released the rows.
        release_dhcp(instance_id, ports)


class ReleaseDhcp(base.HostTask):
    """Drop the instance's DHCP host entries."""

    deferrable = True

    def capture(self, arguments):
        # Run late, it would find no ports: ReleasePorts runs right after it.
        return dict(arguments, ports=ipam.ports_for(arguments['instance_id']))

    def execute(self, instance_id, ports=None):
        release_dhcp(instance_id, ports)
