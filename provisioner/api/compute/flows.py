"""provisioner's flow extension: the flow that carried out an instance action.

``GET /compute/v2.1/servers/{server_id}/os-instance-actions/{request_id}/flow``
answers what os-instance-actions has no place for: the flow's real steps (atoms),
the sub-flows holding them (groups), their execution-order links, each atom's
live state, every step and revert as a timed bar (steps) and the boot's
reschedule attempts. Same policy as the action (``instance:actions``): another
project's server, or a request id of another server, is 404. Cheap enough to
poll every second while a boot runs (the structure is compiled once).

    {"flow": {"name", "action", "request_id", "state",
              "atoms": [{"name", "kind", "group", "state", "host", "started_at",
                         "finished_at", "attempt", "error"}],
              "groups": [{"name", "kind", "retry", "parent"}],
              "links": [{"from", "to"}],
              "attempts": [{"attempt", "host", "failed", "error"}],
              "steps": [{"atom", "phase", "result", "host", "started_at",
                         "finished_at", "attempt", "request_id", "error"}]}}

Times are UTC with microseconds and a Z (2026-11-23T14:42:38.469947Z).
"""

from provisioner.api import common
from provisioner.api.compute.servers import compute
from provisioner.api import wsgi

_TIMES = ('started_at', 'finished_at')


def _timed(item):
    return dict(item, **{key: common.isotime_us(item[key]) for key in _TIMES})


@wsgi.route('GET', '/v2.1/servers/{server_id}/os-instance-actions/{request_id}/flow')
def show(req, server_id, request_id):
    flow = req.deployment.flow_view.show(compute(req), server_id, request_id)
    flow['atoms'] = [_timed(atom) for atom in flow['atoms']]
    flow['steps'] = [_timed(step) for step in flow['steps']]
    return wsgi.json_response({'flow': flow})
