"""The L2 agent's RPC: engines push each host the state of a network it holds.

l2population as Neutron's, by state rather than by deltas: whenever a port of a
network binds or goes, the engine sends every host holding the network (the hosts
with a port on it and its DHCP host) the network, the underlay addresses of the
other holders to flood to and, to the DHCP host, every port's MAC -> IP; a host that
no longer holds it is told to remove its bridge and VXLAN device. Each message
converges the host on that state, so a lost or repeated one is repaired by the next.

API version history (namespace ``l2agent``, on ``[worker] topic``, server = host):

    1.0 - Initial version: sync_network.
"""

import logging

from provisioner.conf import CONF
from provisioner import rpc

LOG = logging.getLogger(__name__)

NAMESPACE = 'l2agent'
VERSION = '1.0'


def sync_network(driver, net, member, entries=None):
    """Converge this host on the network: held (``net['peers']`` to flood to, and
    ``entries`` pinned when its DHCP server is here) or removed."""
    if not member:
        LOG.info('Removing network %s: no port of it is left here', net['id'])
        driver.delete_network(net)
        return
    driver.ensure_network(net)
    if entries is not None and driver.serves_dhcp(net):
        driver.sync_dhcp(net, entries)


class L2AgentEndpoint:
    """On each worker: its host's side of l2population."""

    def __init__(self, driver):
        self.target = rpc.endpoint_target(VERSION, NAMESPACE)
        self._driver = driver

    def sync_network(self, ctxt, net, member, entries=None):
        sync_network(self._driver, net, member, entries)


class L2AgentAPI:
    """Calls the L2 agent of one host (the worker there)."""

    def __init__(self):
        messaging = rpc.messaging()
        target = messaging.Target(topic=CONF.worker.topic, namespace=NAMESPACE,
                                  version=VERSION)
        self._client = messaging.get_rpc_client(rpc.get_transport(), target)

    def sync_network(self, host, net, member, entries=None):
        # Heartbeats bound a call to a host that is down; a busy one may take long.
        cctxt = self._client.prepare(server=host, timeout=CONF.worker.task_timeout,
                                     call_monitor_timeout=CONF.worker.heartbeat_timeout)
        return cctxt.call({}, 'sync_network', net=net, member=member, entries=entries)
