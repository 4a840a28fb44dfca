"""Host side of the DHCP steps: plug the instance's networks, pin and drop its IPs."""

import dataclasses
import logging

from flows.host import base

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class DhcpPayload:
    """The instance's ports as IPAM allocated them: id, mac, ip and network."""

    instance_id: str
    ports: list
    hostname: str | None = None


def release_dhcp(payload):
    for port in payload.ports:
        base.undo('drop DHCP entry %s' % port['mac'],
                  base.driver().release_dhcp, port['network'], port['mac'])


class ReserveDhcp(base.HostStep):
    """Plug each port's network on this host and pin its IP as a DHCP host entry."""

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


class ReleaseDhcp(base.HostStep):
    Payload = DhcpPayload

    def run(self, payload):
        release_dhcp(payload)
