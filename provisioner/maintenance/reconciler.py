"""The worker's periodic audit of its own host (``[worker] reconcile_interval``).

The worker has no database: it sends its inventory to an engine, which compares it
with the database, records what it must and answers with the findings. The worker
logs each, removes the recorded leftovers and, with ``[worker] reap_orphans``, the
orphans past their grace period, and tells the engine what it removed.
"""

import logging
import threading

from provisioner.conf import CONF
from provisioner.maintenance import findings
from provisioner.maintenance import host as host_side
from provisioner.maintenance import rpcapi
from provisioner import rpc

LOG = logging.getLogger(__name__)


def reconcile_once(host, driver, engine_api=None):
    """One audit of this host; the findings (dicts) the engine answered."""
    engine_api = engine_api or rpcapi.EngineMaintenanceAPI()
    answer = engine_api.reconcile_host(host, host_side.inventory(driver),
                                       CONF.worker.orphan_grace_period)
    found = findings.from_dicts(answer)
    for finding in found:
        LOG.warning('Host %s: %s %s %s (%s)', host, finding.problem, finding.kind,
                    finding.name, finding.reason)
    entries = findings.to_remove(found, reap=CONF.worker.reap_orphans)
    if entries:
        engine_api.record_removals(host, answer, host_side.remove(driver, entries))
    return found


class Reconciler:
    """A daemon thread running reconcile_once every [worker] reconcile_interval."""

    def __init__(self, host, driver):
        self._host = host
        self._driver = driver
        self._stop = threading.Event()
        self._thread = None

    def start(self):
        if CONF.worker.reconcile_interval <= 0:
            return
        self._thread = threading.Thread(target=self._loop, daemon=True,
                                        name='reconciler')
        self._thread.start()

    def _loop(self):
        # The first round at start: what was deferred while away goes at once.
        while not self._stop.is_set():
            try:
                reconcile_once(self._host, self._driver)
            except rpc.messaging_errors() as exc:
                LOG.warning('No engine answered the audit of host %s (%s); trying '
                            'again in %d s', self._host, type(exc).__name__,
                            CONF.worker.reconcile_interval)
            except Exception:  # the next round tries again; the worker keeps serving
                LOG.exception('Audit of host %s failed', self._host)
            self._stop.wait(CONF.worker.reconcile_interval)

    def stop(self):
        self._stop.set()
