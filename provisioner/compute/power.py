"""Which power actions apply to which instances, and the task_state each one shows.

As in Nova: stop an active instance, start a stopped one, reboot an active one
(a hard reboot also starts a stopped one); one task at a time.
"""

from provisioner.compute import actions
from provisioner.compute import states
from provisioner import exception

_TRANSITIONS = {
    actions.STOP: ((states.ACTIVE,), states.POWERING_OFF),
    actions.START: ((states.STOPPED,), states.POWERING_ON),
}


def transition(action, hard=False):
    """(vm_states the action applies to, task_state while it runs)."""
    if action == actions.REBOOT:
        if hard:
            return (states.ACTIVE, states.STOPPED), states.REBOOTING_HARD
        return (states.ACTIVE,), states.REBOOTING
    try:
        return _TRANSITIONS[action]
    except KeyError:
        raise exception.Invalid(reason='unknown power action %s' % action) from None


def outcome(action):
    """(vm_state, power_state) an instance is in once the action succeeded."""
    if action == actions.STOP:
        return states.STOPPED, states.SHUTDOWN
    return states.ACTIVE, states.RUNNING
