"""provisioner-worker as the previous release ran it: worker RPC API 2.0 only.

Its endpoint refuses what 2.1 added (``undo_step``'s cause), as that release's did;
the engines must be capped (``[upgrade_levels] worker = 2.0``) to talk to it.
"""

import sys

from provisioner.cmd import worker
from provisioner.worker import endpoint
from provisioner.worker import service


class PreviousReleaseWorker(service.WorkerService):
    def endpoints(self):
        return [endpoint.HostStepsEndpoint(self.host, version='2.0')
                if isinstance(e, endpoint.HostStepsEndpoint) else e
                for e in super().endpoints()]


if __name__ == '__main__':
    service.WorkerService = PreviousReleaseWorker
    sys.exit(worker.main())
