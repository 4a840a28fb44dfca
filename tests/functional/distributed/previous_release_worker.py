"""provisioner-worker as the previous release ran it: worker RPC API 2.0 only.

Its endpoint refuses what 2.1 added (``undo_step``'s cause), as that release's did;
the engines must be capped (``[upgrade_levels] worker = 2.0``) to talk to it.
"""

import sys

from provisioner.cmd import worker
from provisioner.worker import endpoint
from provisioner.worker import service


class PreviousReleaseEndpoint(endpoint.HostStepsEndpoint):
    """The steps' endpoint as that release served it: 2.0, no undo cause."""

    version = '2.0'


class PreviousReleaseWorker(service.WorkerService):
    def endpoints(self):
        return [PreviousReleaseEndpoint(self.host)
                if isinstance(e, endpoint.HostStepsEndpoint) else e
                for e in super().endpoints()]


if __name__ == '__main__':
    service.WorkerService = PreviousReleaseWorker
    sys.exit(worker.main())
