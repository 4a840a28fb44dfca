"""Client side of the engines' worker-facing RPC API: what a worker tells the engines.

API version history (the endpoint, ``provisioner.engine.reports``, serves the
newest; ``[upgrade_levels] engine`` caps what workers send during an upgrade):

* 1.0 - ``report_host(host, capacity)``: a worker's capacity and liveness, a cast
  to any engine (issue 13; until then the worker wrote the hosts row itself). The
  engine records it and replays the steps deferred to that host.

Imports nothing of the database. It lives with the worker, its only caller: the
engine (above the worker) imports the worker's modules, never the other way round.
"""

from provisioner.conf import CONF
from provisioner import rpc

BASE_VERSION = '1.0'
VERSION = '1.0'


class EngineAPI:
    """Casts to topic ``[engine] topic``: whichever engine takes it does the work."""

    def __init__(self):
        self.client = rpc.get_client(CONF.engine.topic, version=BASE_VERSION,
                                     version_cap=CONF.upgrade_levels.engine)

    def report_host(self, host, capacity):
        self.client.prepare(version='1.0').cast({}, 'report_host', host=host,
                                                capacity=capacity)
