"""The security group agent's RPC: engines push a host the filters of its ports.

By state, as the L2 agent's (provisioner.worker.l2): whenever a rule, a port's
groups, its port security or a remote group's members change, the engine (or the
API process) sends each host holding an affected port that port's whole filter
state; the host redefines the port's filter (running guests follow at once). A
lost message is repaired by the next change of the port.

API version history (namespace ``sgagent``, on ``[worker] topic``, server = host):

    1.0 - Initial version: sync_port_filters.
"""

from provisioner.conf import CONF
from provisioner import rpc

NAMESPACE = 'sgagent'
VERSION = '1.0'


class SecurityGroupAgentEndpoint:
    """On each worker: its host's side of security groups."""

    def __init__(self, driver):
        self.target = rpc.endpoint_target(VERSION, NAMESPACE)
        self._driver = driver

    def sync_port_filters(self, ctxt, states, removed=()):
        self._driver.sync_port_filters(states, removed)


class SecurityGroupAgentAPI:
    """Calls the security group agent of one host (the worker there)."""

    def __init__(self):
        messaging = rpc.messaging()
        target = messaging.Target(topic=CONF.worker.topic, namespace=NAMESPACE,
                                  version=VERSION)
        self._client = messaging.get_rpc_client(rpc.get_transport(), target)

    def sync_port_filters(self, host, states, removed=()):
        cctxt = self._client.prepare(server=host, timeout=CONF.worker.task_timeout,
                                     call_monitor_timeout=CONF.worker.heartbeat_timeout)
        return cctxt.call({}, 'sync_port_filters', states=states,
                          removed=list(removed))
