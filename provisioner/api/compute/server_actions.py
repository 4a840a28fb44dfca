"""POST /servers/{id}/action: power actions, console output, and provisioner's own.

Nova's actions ``os-stop``, ``os-start``, ``reboot``, ``rebuild``
(provisioner.api.compute.rebuild), ``createImage`` (a snapshot into a new image,
by its own persisted flow: flows.create_image), ``os-getConsoleOutput``,
``os-migrateLive`` (provisioner.api.compute.migrate_server),
``lock`` and ``unlock`` (while locked, only an admin acts on the server),
``addSecurityGroup`` and ``removeSecurityGroup`` (the server's ports carry the
groups), ``trigger_crash_dump`` (2.17: an NMI into the guest, by its host), plus
two documented provisioner actions on an interrupted boot:
``{"provisioner:resume": null}`` continues it from its last persisted step and
``{"provisioner:rollback": null}`` undoes every step it ran. Each power action is
recorded (an instance action under the request's id) and carried out by its own
persisted flow, with revert, like the boot. The body names one action
(schemas.ACTION); each action's handler takes its argument as ``body``, checked
by the action's own schema.
"""

from provisioner.api.compute import migrate_server
from provisioner.api.compute import floating_ips
from provisioner.api.compute import rebuild
from provisioner.api.compute.schemas import servers as schemas
from provisioner.api.compute.servers import compute
from provisioner.api.network import common
from provisioner.api import urls
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.compute import actions
from provisioner.network import security_groups


def _power(req, server_id, action, hard=False):
    api = compute(req)
    instance_id, action_id = api.power_action(api.server_record(server_id)['id'],
                                              action, hard=hard)
    req.deployment.dispatcher.run_action(instance_id, action_id)
    return wsgi.empty_response(202)


def _stop(req, server_id, body):
    return _power(req, server_id, actions.STOP)


def _start(req, server_id, body):
    return _power(req, server_id, actions.START)


@validation.schema(schemas.REBOOT)
def _reboot(req, server_id, body):
    return _power(req, server_id, actions.REBOOT, hard=body['type'].upper() == 'HARD')


@validation.schema(schemas.CONSOLE_OUTPUT)
def _console_output(req, server_id, body):
    length = (body or {}).get('length')
    length = int(length) if length is not None else None
    api = compute(req)
    output = api.console_output(api.server_record(server_id)['id'])
    if length not in (None, -1):
        # Nova's tail: the last `length` pieces between newlines, so a log ending
        # in one gives length - 1 lines and an empty last piece.
        output = '\n'.join(output.split('\n')[-length:]) if length else ''
    return wsgi.json_response({'output': output})


def _request(req, server_id, action):
    api = compute(req)
    instance_id = api.request(api.server_record(server_id)['id'], action)
    getattr(req.deployment.dispatcher, action)(instance_id)
    return wsgi.empty_response(202)


@validation.schema(schemas.RESUME)
def _resume(req, server_id, body):
    return _request(req, server_id, actions.RESUME)


@validation.schema(schemas.ROLLBACK)
def _rollback(req, server_id, body):
    return _request(req, server_id, actions.ROLLBACK)


@validation.schema(schemas.SECURITY_GROUP)
def _add_security_group(req, server_id, body):
    """Nova's addSecurityGroup: the group goes on every port of the server."""
    group_id = security_groups.add_to_server(
        req.context, compute(req).server_record(server_id)['id'], body['name'])
    # The server's ports carry it now: they are among the group's.
    common.sync_filters(req, group_ids=[group_id])
    return wsgi.empty_response(202)


@validation.schema(schemas.SECURITY_GROUP)
def _remove_security_group(req, server_id, body):
    group_id, port_ids = security_groups.remove_from_server(
        req.context, compute(req).server_record(server_id)['id'], body['name'])
    common.sync_filters(req, port_ids=port_ids, group_ids=[group_id])
    return wsgi.empty_response(202)


@validation.schema(schemas.LOCK, '2.1', '2.72')
@validation.schema(schemas.LOCK_V273, '2.73')
def _lock(req, server_id, body):
    api = compute(req)
    reason = (body or {}).get('locked_reason') if req.api_version >= (2, 73) else None
    api.lock(api.server_record(server_id)['id'], reason)
    return wsgi.empty_response(202)


def _network_proxy(schema):
    """Nova's nova-network fixed IP actions: gone (404) from 2.44; before, their
    body is checked, then they answer as Nova with Neutron (ports belong to the
    network API)."""
    @validation.schema(schema, '2.1', '2.43')
    def act(req, server_id, body):
        server = compute(req).server_record(server_id)
        if schema is schemas.ADD_FIXED_IP:
            raise wsgi.HTTPError(400, 'addFixedIp is not supported: attach a port to '
                                      'network %s with the network API instead'
                                 % body['networkId'])
        if body['address'] not in {a['ip'] for a in server['addresses']}:
            raise wsgi.HTTPError(400, "Instance %s does not have fixed IP '%s'."
                                 % (server['id'], body['address']))
        raise wsgi.HTTPError(400, 'removeFixedIp is not supported: the address '
                                  'belongs to a port; detach it with the network API')
    return act


@validation.schema(schemas.TRIGGER_CRASH_DUMP, '2.17')
def _trigger_crash_dump(req, server_id, body):
    compute(req).trigger_crash_dump(server_id)
    return wsgi.empty_response(202)


@validation.schema(schemas.CREATE_IMAGE)
def _create_image(req, server_id, body):
    """Nova's createImage: 202; the image's URL in Location below 2.45, its id in
    the body from 2.45 (``{"image_id": ...}``). The image exists (queued) at once."""
    api = compute(req)
    instance_id, action_id, image_id = api.create_image(
        api.server_record(server_id)['id'], body['name'], body.get('metadata'))
    req.deployment.dispatcher.run_action(instance_id, action_id)
    if req.api_version >= (2, 45):
        return wsgi.json_response({'image_id': image_id}, 202)
    # Nova's glance.generate_image_url: the image endpoint's images/<id>.
    response = wsgi.empty_response(202)
    response.headers['Location'] = '%s/image/images/%s' % (urls.public_base_url(req),
                                                           image_id)
    return response


@validation.schema(schemas.UNLOCK)
def _unlock(req, server_id, body):
    api = compute(req)
    api.unlock(api.server_record(server_id)['id'])
    return wsgi.empty_response(202)


@validation.schema(schemas.RESET_STATE)
def _reset_state(req, server_id, body):
    api = compute(req)
    api.reset_state(api.server_record(server_id)['id'], body['state'])
    return wsgi.empty_response(202)


@validation.schema(schemas.NO_ARGUMENT)
def _inject_network_info(req, server_id, body):
    """Nova's libvirt driver has nothing to inject either: checked, then done."""
    api = compute(req)
    api.check_admin_action(api.server_record(server_id)['id'],
                           'instance:inject_network_info')
    return wsgi.empty_response(202)


def _not_soft_deleted(action):
    """restore and forceDelete act on a soft-deleted server; provisioner deletes at
    once (Nova's reclaim_instance_interval 0), so no server is ever one."""
    @validation.schema(schemas.NO_ARGUMENT)
    def act(req, server_id, body):
        server = compute(req).server_record(server_id)
        raise wsgi.HTTPError(409, "Cannot '%s' instance %s while it is in vm_state %s"
                             % (action, server['id'], server['vm_state']))
    return act


# By the names schemas.ACTIONS lets through.
ACTIONS = {'os-stop': _stop, 'os-start': _start, 'reboot': _reboot,
           'os-getConsoleOutput': _console_output, 'provisioner:resume': _resume,
           'provisioner:rollback': _rollback, 'lock': _lock, 'unlock': _unlock,
           'rebuild': rebuild.rebuild_server, 'addSecurityGroup': _add_security_group,
           'removeSecurityGroup': _remove_security_group, 'createImage': _create_image,
           'addFixedIp': _network_proxy(schemas.ADD_FIXED_IP),
           'removeFixedIp': _network_proxy(schemas.REMOVE_FIXED_IP),
           'addFloatingIp': floating_ips.add_floating_ip,
           'removeFloatingIp': floating_ips.remove_floating_ip,
           'os-resetState': _reset_state, 'injectNetworkInfo': _inject_network_info,
           'restore': _not_soft_deleted('restore'),
           'forceDelete': _not_soft_deleted('forceDelete'),
           'os-migrateLive': migrate_server.migrate_live,
           'trigger_crash_dump': _trigger_crash_dump}


@wsgi.route('POST', '/v2.1/servers/{server_id}/action')
def action(req, server_id):
    body = req.json_body()
    # The server first, as Nova: any action on a missing server is a 404.
    compute(req).server_record(server_id)
    (name, argument), = validation.validate(body, schemas.ACTION).items()
    return ACTIONS[name](req, server_id=server_id, body=argument)
