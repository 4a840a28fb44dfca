"""provisioner-worker: serve this host's steps, report its resources to the engines.

One worker per hypervisor host (``[DEFAULT] host`` names it). It has no database: it
casts its capacity and liveness to the engines every ``[worker] report_interval``
(``provisioner.worker.engine_rpcapi``), and the engine that takes a report records it and
replays the reverts and cleanups deferred while this worker was away.
"""

import logging
import threading

from provisioner.conf import CONF
from provisioner.maintenance import host as maintenance
from provisioner.maintenance import reconciler
from provisioner import rpc
from provisioner import virt
from provisioner.worker import endpoint
from provisioner.worker import engine_rpcapi
from provisioner.worker import l2
from provisioner.worker import sg_agent

LOG = logging.getLogger(__name__)


class WorkerService:
    def __init__(self, host=None):
        self.host = host or CONF.host
        self._stop = threading.Event()
        self._server = None
        self._reconciler = reconciler.Reconciler(self.host, virt.get_driver())

    def endpoints(self):
        """The RPC endpoints this worker serves; one per API namespace."""
        return [endpoint.HostStepsEndpoint(self.host),
                maintenance.HostMaintenanceEndpoint(virt.get_driver()),
                l2.L2AgentEndpoint(virt.get_driver()),
                sg_agent.SecurityGroupAgentEndpoint(virt.get_driver())]

    def report(self):
        try:
            engine_rpcapi.EngineAPI().report_host(self.host,
                                                  virt.get_driver().capacity())
        except Exception:  # the next report tries again; the worker keeps serving
            LOG.exception('Reporting host %s failed', self.host)

    def start(self):
        virt.get_driver().check_state_path()
        # Before serving: DHCP namespaces gone with a reboot, dnsmasqs killed.
        virt.get_driver().restore_networks()
        self._server = rpc.get_server(CONF.worker.topic, self.host, self.endpoints())
        self._server.start()
        # After the server: the engine replays deferred steps as soon as it hears.
        self.report()
        LOG.info('Worker of host %s serving %s.%s', self.host, CONF.worker.topic,
                 self.host)
        self._reconciler.start()  # audits this host through the engines

    def wait(self):
        while not self._stop.wait(CONF.worker.report_interval):
            self.report()
        self._reconciler.stop()
        self._server.stop()
        self._server.wait()

    def stop(self):
        self._stop.set()
