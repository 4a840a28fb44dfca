"""The delete flow: tear down everything an instance owns, in reverse order of boot.

Every step is idempotent and finds its resources by deterministic names, so deleting a
half-built, failed or interrupted instance works, and an interrupted delete is finished
by running delete again.
"""

from taskflow.patterns import linear_flow

from flows import constants as c
from flows.steps import configdrive
from flows.steps import domain
from flows.steps import image
from flows.steps import lifecycle
from flows.steps import network
from flows.steps import quota
from flows.steps import scheduling
from flows.steps import volume


def create_flow():
    flow = linear_flow.Flow(c.DELETE_FLOW)
    flow.add(domain.DestroyDomain(c.DESTROY_DOMAIN),
             configdrive.DeleteConfigDrive(c.DELETE_CONFIG_DRIVE),
             image.DeleteRootDisk(c.DELETE_ROOT_DISK),
             volume.DeleteVolumes(c.DELETE_VOLUMES),
             network.ReleaseDhcp(c.RELEASE_DHCP),
             network.ReleasePorts(c.RELEASE_PORTS),
             scheduling.ReleaseClaim(c.RELEASE_CLAIM),
             quota.ReleaseQuota(c.RELEASE_QUOTA),
             domain.DeleteInstanceFiles(c.DELETE_INSTANCE_FILES),
             lifecycle.MarkDeleted(c.MARK_DELETED))
    return flow
