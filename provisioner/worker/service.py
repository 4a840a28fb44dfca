"""provisioner-worker: serve this host's steps, report its resources, replay reverts.

One worker per hypervisor host (``[DEFAULT] host`` names it). It reports capacity and
liveness every ``[worker] report_interval``; the scheduler skips hosts whose worker
stopped reporting. Reverts and cleanups that engines could not deliver while it was
away are replayed at start and at every report, oldest first.
"""

import logging
import threading

import sqlalchemy as sa

from provisioner.catalog import hosts
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.maintenance import host as maintenance
from provisioner.maintenance import reconciler
from provisioner import rpc
from provisioner import virt
from provisioner.worker import endpoint

LOG = logging.getLogger(__name__)


def replay_deferred_steps(host):
    """Run the reverts and cleanups deferred to this host, oldest first; count them."""
    table = models.DeferredHostStep
    with db_api.transaction() as session:
        pending = session.execute(sa.select(table).where(table.host == host)
                                  .order_by(table.id)).scalars().all()
    for row in pending:
        payload = row.payload
        LOG.info('Replaying deferred %s of %s for instance %s', payload['method'],
                 row.name, row.instance_id)
        endpoint.run_step(payload['method'], row.task, row.name, payload['arguments'],
                          payload.get('result'), payload.get('flow_failures'))
        with db_api.transaction() as session:
            session.execute(sa.delete(table).where(table.id == row.id))
    return len(pending)


class WorkerService:
    def __init__(self, host=None):
        self.host = host or CONF.host
        self._stop = threading.Event()
        self._server = None
        self._reconciler = reconciler.Reconciler(self.host, virt.get_driver())

    def report(self):
        try:
            hosts.report_capacity(self.host, virt.get_driver().capacity())
            replay_deferred_steps(self.host)
        except Exception:  # the next report tries again; the worker keeps serving
            LOG.exception('Reporting host %s failed', self.host)

    def start(self):
        driver = virt.get_driver()
        driver.check_state_path()
        self.report()
        self._server = rpc.get_server(CONF.worker.topic, self.host,
                                      [endpoint.HostStepsEndpoint(self.host),
                                       maintenance.HostMaintenanceEndpoint(driver)])
        self._server.start()
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
