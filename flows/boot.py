"""The boot flow: the documented request flow from claim to a running domain.

    guard -> hold quota -> select hosts
          -> reschedule( claim
                         -> [fetch image -> root disk] | [ports -> dhcp, config drive,
                                                          volumes]
                         -> define -> start -> (poll power state) )
          -> mark active

The independent preparation steps run in parallel. Every step reverts what it made,
so a failure anywhere leaves the instance in ERROR and nothing else behind. A spawn
failure on one host is undone there and retried on the next alternate host.
"""

from taskflow.patterns import graph_flow
from taskflow.patterns import linear_flow

from provisioner.conf import CONF

from flows import constants as c
from flows.steps import configdrive
from flows.steps import domain
from flows.steps import image
from flows.steps import lifecycle
from flows.steps import network
from flows.steps import quota
from flows.steps import reschedule
from flows.steps import scheduling
from flows.steps import volume


def _prepare_resources_flow():
    flow = graph_flow.Flow(c.PREPARE_RESOURCES)
    ports = network.AllocatePorts(c.ALLOCATE_PORTS)
    volumes = volume.CreateVolumes(c.CREATE_VOLUMES)
    flow.add(image.FetchImage(c.FETCH_IMAGE),
             image.CreateRootDisk(c.CREATE_ROOT_DISK),
             ports,
             network.ReserveDhcp(c.RESERVE_DHCP),
             configdrive.BuildConfigDrive(c.BUILD_CONFIG_DRIVE),
             volumes)
    # Data links order the rest; this one keeps the documented task_state order
    # (networking before block_device_mapping). Allocating ports is a quick DB step.
    flow.link(ports, volumes)
    return flow


def wait_for_boot_flow(retry_name=c.WAIT_FOR_BOOT_RETRY, name=c.WAIT_FOR_BOOT):
    """Poll the domain's power state until it runs (the rebuild's too)."""
    poll = domain.PowerStatePoll(retry_name,
                                 timeout=CONF.compute.boot_timeout,
                                 interval=CONF.compute.power_poll_interval)
    flow = linear_flow.Flow('%s-flow' % name, retry=poll)
    flow.add(domain.WaitForBoot(name))
    return flow


def _claim_and_spawn_flow():
    """Everything done on the chosen host, retried on the alternates."""
    controller = reschedule.Reschedule(c.RESCHEDULE,
                                       max_attempts=CONF.scheduler.max_attempts)
    flow = linear_flow.Flow(c.RESCHEDULE_FLOW, retry=controller)
    flow.add(scheduling.ClaimResources(c.CLAIM_RESOURCES),
             _prepare_resources_flow(),
             domain.DefineDomain(c.DEFINE_DOMAIN),
             domain.StartDomain(c.START_DOMAIN),
             wait_for_boot_flow())
    return flow


def create_flow():
    """Build the boot flow; the instance id comes from the store (constants.INSTANCE_ID)."""
    flow = linear_flow.Flow(c.BOOT_FLOW)
    flow.add(lifecycle.InstanceLifecycleGuard(c.LIFECYCLE_GUARD),
             quota.HoldQuota(c.HOLD_QUOTA),
             scheduling.SelectHosts(c.SELECT_HOSTS),
             _claim_and_spawn_flow(),
             lifecycle.MarkActive(c.MARK_ACTIVE))
    return flow
