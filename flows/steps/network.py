"""The network steps: give the instance its addresses and pin them in DHCP
(documented steps 22-24, and the delete flow's release-dhcp and release-ports).

Ports are allocated and released on the engine (IPAM is rows in the database); the
DHCP entries are made on the instance's host.
"""

import dataclasses
import logging

from provisioner.compute import states
from provisioner import naming

from flows import constants
from flows.steps import base

LOG = logging.getLogger(__name__)



def _hostname(req):
    return req.hostname or naming.hostname(req.name)

class AllocatePorts(base.ProvisionerTask):
    """Allocate a fixed IP and a MAC from IPAM on each requested network, or bind
    the port a user made first.

    Reversion strategy: delete the ports the boot made and unbind the user's (they
    stay, as Neutron's); a re-run adopts the ports an interrupted run allocated.
    """

    default_provides = constants.PORTS

    def execute(self, instance_id):
        self.records.advance_task_state(instance_id, states.NETWORKING)
        req = self.records.build_request(instance_id)
        return self.records.allocate_ports(instance_id, [dict(nic) for nic in req.nics],
                                           req.project_id)

    def revert(self, instance_id, result, **kwargs):
        LOG.warning('Releasing the ports of instance %s', instance_id)
        base.undo('release ports', self.records.release_ports, instance_id)


class ReleasePorts(base.ProvisionerTask):
    """Release the instance's fixed IPs and MACs; the hosts holding their networks
    learn it (the last port of a network on a host takes its bridge away), and so do
    the hosts of the ports whose rules name the ports' groups."""

    def execute(self, instance_id):
        ports = self.records.ports_for(instance_id)
        networks = [port['network']['id'] for port in ports]
        groups = self.records.security_groups_of([port['id'] for port in ports])
        host = self.records.host_of(instance_id)
        self.records.release_ports(instance_id)
        self.records.sync_networks(networks, leaving=[host] if host else [],
                                   strict=False)
        # Their groups lost members: rules naming them as remote group shrink.
        self.records.sync_port_filters(group_ids=groups, strict=False)


@dataclasses.dataclass(frozen=True)
class DhcpPayload:
    """The instance's ports as IPAM allocated them: id, mac, ip and network."""

    instance_id: str
    ports: list
    hostname: str | None = None


def ensure_port_filters(ports):
    """Each port's security groups filter, before a domain uses it (a port of a
    flow persisted before filters carries no 'security': it gets none)."""
    for port in ports:
        if port.get('security'):
            base.driver().ensure_port_filter(port['security'])


def release_dhcp(payload):
    """The ports' DHCP entries and their filters (no domain uses them any more:
    the domain steps ran or were undone before)."""
    for port in payload.ports:
        base.undo('drop DHCP entry %s' % port['mac'],
                  base.driver().release_dhcp, port['network'], port['mac'])
        base.undo('delete filter of port %s' % port['id'],
                  base.driver().delete_port_filter, port['id'])


class ReserveDhcpOnHost(base.HostStep):
    """Plug each port's network on this host and pin its IP as a DHCP host entry."""

    name = 'network.reserve_dhcp'
    Payload = DhcpPayload
    UndoPayload = DhcpPayload

    def run(self, payload):
        drv = base.driver()
        for port in payload.ports:
            drv.ensure_network(port['network'])
            drv.reserve_dhcp(port['network'], port['mac'], port['ip'], payload.hostname)

    def undo(self, payload, result):
        LOG.warning('Dropping the DHCP entries of instance %s', payload.instance_id)
        release_dhcp(payload)


class ReserveDhcp(base.HostTask):
    """Plug each port's network on this host and pin its IP as a DHCP host entry;
    then the other hosts holding the network flood to this one, and its DHCP host
    (when elsewhere) pins the IP (l2population, provisioner.engine.l2pop).

    Reversion strategy: drop the instance's DHCP entries, found from its ports, and
    tell the hosts holding their networks that they are gone.
    """

    step = ReserveDhcpOnHost

    def build_payload(self, instance_id, ports):
        # The segment, the DHCP host and the peers to flood to, for the claimed host
        # (read, not required: the atom's requirements are resume keys).
        host = self.records.host_of(instance_id)
        if host is not None:
            ports = self.records.bind_ports(ports, host)
        return DhcpPayload(
            instance_id, ports,
            _hostname(self.records.build_request(instance_id)))

    def record(self, result, instance_id, ports):
        self.records.sync_networks([port['network']['id'] for port in ports])
        return result

    def build_undo_payload(self, instance_id, ports=None):
        # The ports argument first, not the database: a revert replayed late (its
        # worker was down) runs after AllocatePorts' revert released the rows.
        return _dhcp_payload(self.records, instance_id, ports)

    def record_undo(self, instance_id, ports=None):
        networks = [port['network']['id'] for port in (ports or [])]
        host = self.records.host_of(instance_id)  # the claim is released later
        base.undo('tell the hosts of its networks', self.records.sync_networks,
                  networks, [host] if host else [], instance_id, False)


def _dhcp_payload(records, instance_id, ports=None):
    return DhcpPayload(
        instance_id, ports if ports is not None else records.ports_for(instance_id))


class ReleaseDhcpOnHost(base.HostStep):
    name = 'network.release_dhcp'
    Payload = DhcpPayload

    def run(self, payload):
        release_dhcp(payload)


class ReleaseDhcp(base.HostTask):
    """Drop the instance's DHCP host entries."""

    deferrable = True
    step = ReleaseDhcpOnHost

    def build_payload(self, instance_id, ports=None):
        # Read now: a deferred run finds the ports in its payload, as ReleasePorts
        # runs right after this step.
        return _dhcp_payload(self.records, instance_id, ports)
