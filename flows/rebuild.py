"""The rebuild flow: a new root disk and config drive for an existing server.

    guard -> power off -> fetch the new image -> new disk -> swap it in
          -> new config drive -> redefine the domain -> [start -> (poll running)]
          -> delete the replaced disk and drive -> record

Every host step runs on the instance's host (its worker, distributed) and undoes
what it made; the replaced disk and drive stay until the rebuilt domain is in, so
a rollback leaves the server as it was (the guard then restores its row). A server
that was stopped is not started: it ends stopped, as Nova's.
"""

from taskflow.patterns import linear_flow

from flows import boot
from flows import constants as c
from flows.steps import power
from flows.steps import rebuild


def rebuild_flow(keep_stopped=False):
    flow = linear_flow.Flow(c.REBUILD_FLOW)
    flow.add(rebuild.RebuildGuard(c.REBUILD_GUARD),
             rebuild.PowerOffForRebuild(c.POWER_OFF_FOR_REBUILD),
             rebuild.FetchRebuildImage(c.FETCH_REBUILD_IMAGE),
             rebuild.CreateRebuildDisk(c.CREATE_REBUILD_DISK),
             rebuild.SwapRootDisk(c.SWAP_ROOT_DISK),
             rebuild.RebuildConfigDrive(c.REBUILD_CONFIG_DRIVE),
             rebuild.RedefineDomain(c.REDEFINE_DOMAIN))
    if not keep_stopped:
        flow.add(power.PowerOnDomain(c.START_REBUILT_DOMAIN),
                 boot.wait_for_boot_flow(c.WAIT_FOR_REBUILD_RETRY, c.WAIT_FOR_REBUILD))
    flow.add(rebuild.DeleteReplacedFiles(c.DELETE_REPLACED_FILES),
             rebuild.RecordRebuild(c.RECORD_REBUILD,
                                   inject={'keep_stopped': bool(keep_stopped)}))
    return flow


def factory(keep_stopped=False):
    """(flow name, factory, factory arguments), for save_factory_details."""
    return c.REBUILD_FLOW, rebuild_flow, [bool(keep_stopped)]
