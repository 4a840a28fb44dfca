"""POST /servers/{id}/action: power actions, console output, and provisioner's own.

Nova's actions ``os-stop``, ``os-start``, ``reboot`` and ``os-getConsoleOutput``,
plus two documented provisioner actions on an interrupted boot:
``{"provisioner:resume": null}`` continues it from its last persisted step and
``{"provisioner:rollback": null}`` undoes every step it ran. Each power action is
recorded (an instance action under the request's id) and carried out by its own
persisted flow, with revert, like the boot.
"""

from provisioner.api import common
from provisioner.api.compute import schemas
from provisioner.api.compute.servers import compute
from provisioner.api.compute.service import SERVICE
from provisioner.api import wsgi
from provisioner.compute import actions


def _power(req, server_id, action, hard=False):
    api = compute(req)
    instance_id, action_id = api.power_action(api.server_record(server_id)['id'],
                                              action, hard=hard)
    req.deployment.dispatcher.run_action(instance_id, action_id)
    return wsgi.empty_response(202)


def _stop(req, server_id, _body):
    return _power(req, server_id, actions.STOP)


def _start(req, server_id, _body):
    return _power(req, server_id, actions.START)


def _reboot(req, server_id, body):
    body = common.validate(body, schemas.REBOOT)
    return _power(req, server_id, actions.REBOOT, hard=body['type'].upper() == 'HARD')


def _console_output(req, server_id, body):
    body = common.validate(body, schemas.CONSOLE_OUTPUT) or {}
    length = body.get('length')
    length = int(length) if length is not None else None
    if length is not None and length < -1:
        raise wsgi.HTTPError(400, 'length must be -1 (everything) or at least 0')
    api = compute(req)
    output = api.console_output(api.server_record(server_id)['id'],
                                None if length in (None, -1) else length)
    return wsgi.json_response({'output': output})


def _resume_or_rollback(action):
    def handle(req, server_id, body):
        if body is not None:
            raise wsgi.HTTPError(400, 'provisioner:%s takes no arguments (null).'
                                 % action)
        api = compute(req)
        instance_id = api.request(api.server_record(server_id)['id'], action)
        getattr(req.deployment.dispatcher, action)(instance_id)
        return wsgi.empty_response(202)
    return handle


ACTIONS = {
    'os-stop': _stop,
    'os-start': _start,
    'reboot': _reboot,
    'os-getConsoleOutput': _console_output,
    'provisioner:resume': _resume_or_rollback(actions.RESUME),
    'provisioner:rollback': _resume_or_rollback(actions.ROLLBACK),
}


@SERVICE.route('POST', '/v2.1/servers/{server_id}/action')
def action(req, server_id):
    body = req.json_body()
    if len(body) != 1:
        raise wsgi.HTTPError(400, 'Give exactly one action, not %d: %s'
                             % (len(body), ', '.join(sorted(body)) or 'none'))
    (name, argument), = body.items()
    handler = ACTIONS.get(name)
    if handler is None:
        raise wsgi.HTTPError(400, 'There is no such action: %s' % name)
    return handler(req, server_id, argument)
