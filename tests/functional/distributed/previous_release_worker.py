"""provisioner-worker as the previous release ran it: worker RPC API 2.0 only.

Its endpoint refuses what 2.1 and 2.2 added (``undo_step``'s cause, a step named by
its registered name), as that release's did: it runs a step named by the class
path that release defined it at (``flows.host.domain_steps.DefineDomain``), and
nothing else. The engines must be capped (``[upgrade_levels] worker = 2.0``) to
talk to it.
"""

import sys

from provisioner.cmd import worker
from provisioner.worker import endpoint
from provisioner.worker import service

from flows.steps import registry


class PreviousReleaseEndpoint(endpoint.HostStepsEndpoint):
    """The steps' endpoint as that release served it: 2.0, no undo cause, steps
    named by class path."""

    version = '2.0'
    _step_class = staticmethod(registry.host_step_of_release_2_1)


class PreviousReleaseWorker(service.WorkerService):
    def endpoints(self):
        return [PreviousReleaseEndpoint(self.host)
                if isinstance(e, endpoint.HostStepsEndpoint) else e
                for e in super().endpoints()]


if __name__ == '__main__':
    service.WorkerService = PreviousReleaseWorker
    sys.exit(worker.main())
