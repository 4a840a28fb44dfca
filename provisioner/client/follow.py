"""Following a flow from outside its process: poll the instance, print each new step.

The distributed CLI over RPC and the REST client both run no flow themselves: they
poll the instance (documented step 29) until it is no longer building, or gone,
and report each step as its event appears.
"""

import time

from provisioner import exception
from provisioner import progress as step_progress

POLL_INTERVAL = 0.5
# vm_state values as the API shows them (OS-EXT-STS:vm_state): the client reads the
# wire, never the server's modules.
BUILDING = 'building'
DELETED = 'deleted'


def follow(show, instance_id, progress, seen, until_gone=False, last=None,
           interval=None):
    """Poll ``show(instance_id)`` until the instance leaves BUILDING (or is gone).

    ``seen`` events were reported already; ``last`` is what the instance looked
    like before, returned marked deleted when ``until_gone`` and it disappears.
    """
    while True:
        try:
            info = show(instance_id)
        except exception.NotFound:
            if until_gone and last is not None:
                return dict(last, vm_state=DELETED, task_state=None)
            raise
        seen = report_new_events(info['events'], seen, progress)
        last = info
        if not until_gone and info['vm_state'] != BUILDING:
            return info
        time.sleep(interval or POLL_INTERVAL)


def report_new_events(events, seen, progress):
    """Report the finished steps after the first ``seen``; how many are seen now."""
    if progress is not None:
        for event in events[seen:]:
            progress(step_progress.StepEvent(event['name'], True, event['result'],
                                             event['duration'], event['message']))
    return max(seen, len(events))
