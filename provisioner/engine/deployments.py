"""Build the process's Deployment (provisioner.deployment) from the configuration.

Each entry point calls ``build`` once, at start, and passes the result on: the
API application, the compute and catalog services, the CLI's commands.
"""

from provisioner.conf import CONF
from provisioner import deployment
from provisioner.engine import flow_view
from provisioner.engine import runner
from provisioner.engine import sg_sync


def build(dispatching=False):
    """This process's Deployment, in the mode the configuration says.

    ``dispatching``: the process accepts requests whose flows run elsewhere than
    in the caller (provisioner-api): all-in-one in this process's threads,
    distributed on the jobboard's engines.
    """
    if deployment.mode() == deployment.DISTRIBUTED:
        return distributed(dispatching)
    return all_in_one(dispatching)


def all_in_one(dispatching=False):
    from provisioner.maintenance import host as host_maintenance
    from provisioner import virt
    dispatcher = None
    if dispatching:
        from provisioner.engine import dispatch
        dispatcher = dispatch.LocalDispatcher()
    driver = virt.get_driver()
    return deployment.Deployment(
        deployment.ALL_IN_ONE, runner=runner, flow_view=flow_view, dispatcher=dispatcher,
        hypervisor=driver, hosts=host_maintenance.LocalHostMaintenance(driver, CONF.host),
        port_filters=sg_sync)


def distributed(dispatching=False):
    from provisioner.maintenance import rpcapi as maintenance_rpcapi
    dispatcher = None
    if dispatching:
        from provisioner.engine import dispatch
        dispatcher = dispatch.JobboardDispatcher()
    return deployment.Deployment(
        deployment.DISTRIBUTED, runner=runner, flow_view=flow_view, dispatcher=dispatcher,
        hosts=maintenance_rpcapi.HostMaintenanceAPI(), port_filters=sg_sync)
