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
from flows.tasks import configdrive_tasks
from flows.tasks import domain_tasks
from flows.tasks import image_tasks
from flows.tasks import lifecycle_tasks
from flows.tasks import network_tasks
from flows.tasks import quota_tasks
from flows.tasks import reschedule
from flows.tasks import scheduler_tasks
from flows.tasks import volume_tasks


def _prepare_resources_flow():
    flow = graph_flow.Flow(c.PREPARE_RESOURCES)
    ports = network_tasks.AllocatePorts(c.ALLOCATE_PORTS)
    volumes = volume_tasks.CreateVolumes(c.CREATE_VOLUMES)
    flow.add(image_tasks.FetchImage(c.FETCH_IMAGE),
             image_tasks.CreateRootDisk(c.CREATE_ROOT_DISK),
             ports,
             network_tasks.ReserveDhcp(c.RESERVE_DHCP),
             configdrive_tasks.BuildConfigDrive(c.BUILD_CONFIG_DRIVE),
             volumes)
    # Data links order the rest; this one keeps the documented task_state order
    # (networking before block_device_mapping). Allocating ports is a quick DB step.
    flow.link(ports, volumes)
    return flow


def _wait_for_boot_flow():
    poll = domain_tasks.PowerStatePoll(c.WAIT_FOR_BOOT_RETRY,
                                       timeout=CONF.compute.boot_timeout,
                                       interval=CONF.compute.power_poll_interval)
    flow = linear_flow.Flow('%s-flow' % c.WAIT_FOR_BOOT, retry=poll)
    flow.add(domain_tasks.WaitForBoot(c.WAIT_FOR_BOOT))
    return flow


def _claim_and_spawn_flow():
    """Everything done on the chosen host, retried on the alternates."""
    controller = reschedule.Reschedule(c.RESCHEDULE,
                                       max_attempts=CONF.scheduler.max_attempts)
    flow = linear_flow.Flow(c.RESCHEDULE_FLOW, retry=controller)
    flow.add(scheduler_tasks.ClaimResources(c.CLAIM_RESOURCES),
             _prepare_resources_flow(),
             domain_tasks.DefineDomain(c.DEFINE_DOMAIN),
             domain_tasks.StartDomain(c.START_DOMAIN),
             _wait_for_boot_flow())
    return flow


def create_flow():
    """Build the boot flow; the instance id comes from the store (constants.INSTANCE_ID)."""
    flow = linear_flow.Flow(c.BOOT_FLOW)
    flow.add(lifecycle_tasks.InstanceLifecycleGuard(c.LIFECYCLE_GUARD),
             quota_tasks.HoldQuota(c.HOLD_QUOTA),
             scheduler_tasks.SelectHosts(c.SELECT_HOSTS),
             _claim_and_spawn_flow(),
             lifecycle_tasks.MarkActive(c.MARK_ACTIVE))
    return flow
