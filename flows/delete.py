"""The delete flow: tear down everything an instance owns, in reverse order of boot.

Every step is idempotent and finds its resources by deterministic names, so deleting a
half-built, failed or interrupted instance works, and an interrupted delete is finished
by running delete again.
"""

from taskflow.patterns import linear_flow

from flows import constants as c
from flows.tasks import configdrive_tasks
from flows.tasks import domain_tasks
from flows.tasks import image_tasks
from flows.tasks import lifecycle_tasks
from flows.tasks import network_tasks
from flows.tasks import quota_tasks
from flows.tasks import scheduler_tasks
from flows.tasks import volume_tasks


def create_flow():
    flow = linear_flow.Flow(c.DELETE_FLOW)
    flow.add(domain_tasks.DestroyDomain(c.DESTROY_DOMAIN),
             configdrive_tasks.DeleteConfigDrive(c.DELETE_CONFIG_DRIVE),
             image_tasks.DeleteRootDisk(c.DELETE_ROOT_DISK),
             volume_tasks.DeleteVolumes(c.DELETE_VOLUMES),
             network_tasks.ReleaseDhcp(c.RELEASE_DHCP),
             network_tasks.ReleasePorts(c.RELEASE_PORTS),
             scheduler_tasks.ReleaseClaim(c.RELEASE_CLAIM),
             quota_tasks.ReleaseQuota(c.RELEASE_QUOTA),
             domain_tasks.DeleteInstanceFiles(c.DELETE_INSTANCE_FILES),
             lifecycle_tasks.MarkDeleted(c.MARK_DELETED))
    return flow
