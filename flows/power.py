"""The power action flows: stop, start and reboot an instance.

    guard -> host step (power off | power on | reboot) -> record the power state

The guard and the last step run on the engine; the host step on the instance's host
(its worker, distributed). The store holds the instance id, the action id and the
host. A host step that fails is undone (the domain as it was), the guard then clears
task_state and finishes the action with the fault; the instance keeps its vm_state.
"""

from taskflow.patterns import linear_flow

from provisioner.compute import actions

from flows import constants as c
from flows.steps import power


def _power_flow(flow_name, action, host_step):
    flow = linear_flow.Flow(flow_name)
    flow.add(power.PowerActionGuard(c.POWER_ACTION_GUARD),
             host_step,
             power.RecordPowerState(c.RECORD_POWER_STATE,
                                    inject={'power_action': action}))
    return flow


def stop_flow():
    return _power_flow(c.STOP_FLOW, actions.STOP,
                       power.PowerOffDomain(c.POWER_OFF_DOMAIN))


def start_flow():
    return _power_flow(c.START_FLOW, actions.START,
                       power.PowerOnDomain(c.POWER_ON_DOMAIN))


def reboot_flow(hard=False):
    return _power_flow(c.REBOOT_FLOW, actions.REBOOT,
                       power.RebootDomain(c.REBOOT_DOMAIN,
                                          inject={'hard': bool(hard)}))


def factory(action, hard=False):
    """(flow name, factory, factory arguments) of an action, for save_factory_details."""
    if action == actions.REBOOT:
        return c.REBOOT_FLOW, reboot_flow, [bool(hard)]
    if action == actions.STOP:
        return c.STOP_FLOW, stop_flow, []
    if action == actions.START:
        return c.START_FLOW, start_flow, []
    raise ValueError('%s is not a power action' % action)
