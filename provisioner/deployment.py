"""How this process's deployment runs, decided once, when the process starts.

Two deployments, one code path (README.rst, "Deployments"):

* **all-in-one** (nothing names a broker): this process runs the flows, and its own
  host is the hypervisor;
* **distributed** (``[DEFAULT] transport_url`` names a broker): engines run the
  flows from the jobboard, each hypervisor host's worker runs that host's steps,
  and a host is reached over RPC.

``mode()`` is the one place that reads which of the two the configuration says.
Each entry point (provisioner.cmd) builds its process's ``Deployment`` once, from
it (provisioner.engine.deployments), and passes it to what needs it; nothing else
asks again.
"""

import dataclasses

from provisioner import rpc

ALL_IN_ONE = 'all-in-one'
DISTRIBUTED = 'distributed'


def mode():
    """ALL_IN_ONE or DISTRIBUTED, as the loaded configuration says."""
    return DISTRIBUTED if rpc.configured_transport_url() else ALL_IN_ONE


@dataclasses.dataclass(frozen=True)
class Deployment:
    """What a process of this deployment has to work with.

    ``runner``      persists flows and runs them here (provisioner.engine.runner);
    ``flow_view``   reads a persisted flow as a graph (provisioner.engine.flow_view);
    ``dispatcher``  where an accepted request's flow runs: this process's threads or
                    the jobboard (provisioner-api; None where flows run in the
                    caller, as the all-in-one CLI runs them);
    ``hypervisor``  this host's hypervisor driver, all-in-one (None distributed:
                    the hosts' workers have theirs);
    ``hosts``       how a host is reached for its console and maintenance: this
                    process's driver, or the host's worker over RPC;
    ``port_filters`` pushes ports' security group filters to their hosts after a
                    change (``sync(port_ids, group_ids, strict)``,
                    provisioner.engine.sg_sync).
    """

    mode: str
    runner: object = None
    flow_view: object = None
    dispatcher: object = None
    hypervisor: object = None
    hosts: object = None
    port_filters: object = None

    @property
    def distributed(self):
        return self.mode == DISTRIBUTED
