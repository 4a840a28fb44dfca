"""Nova's os-volume_attachments: a server's volumes, attached and detached as flows.

``openstack server add volume`` POSTs here; the attach is an instance action
(``attach_volume``) whose persisted flow makes the volume's file on the server's
host if it has none yet and hot-plugs it into the domain; ``server remove volume``
DELETEs, and a ``detach_volume`` flow unplugs it, waiting for the guest to let go.
Both answer at once (200 / 202, as Nova's), the volume showing attaching or
detaching until the flow ends; the attach answers the device it reserved for the
volume (provisioner.volume.devices), under which the host plugs it in. The shapes
per version are views/volume_attachments.py's; from 2.49 an attach takes a device
``tag``; from 2.79 ``delete_on_termination``, which 2.85's PUT may restate: an
attached volume of the volume service outlives the server (false), a volume made
with the boot goes with it (true), and provisioner changes neither.
"""

from provisioner.api.compute import queries
from provisioner.api.compute.schemas import parameter_types
from provisioner.api.compute.schemas import volume_attachments as schemas
from provisioner.api.compute.servers import compute
from provisioner.api.compute.views import volume_attachments as views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner import exception
from provisioner.volume import api as volume_api
from provisioner.volume import volumes


def _attached(req, server_id):
    instance_id = compute(req).server_record(server_id)['id']
    return instance_id, [v for v in volumes.for_instance(instance_id)
                         if v['status'] in ('in-use', 'detaching', 'attaching')]


@wsgi.route('GET', '/v2.1/servers/{server_id}/os-volume_attachments')
def list_attachments(req, server_id):
    queries.check(req, ('limit', 'offset'))
    instance_id, attached = _attached(req, server_id)
    return wsgi.json_response({'volumeAttachments': [
        views.attachment(req, instance_id, v, v['device']) for v in attached]})


def _find(req, server_id, volume_id):
    instance_id, attached = _attached(req, server_id)
    for volume in attached:
        if volume['id'] == volume_id:
            return instance_id, volume
    raise exception.NotFound(kind='Volume attachment',
                             name='%s of server %s' % (volume_id, server_id))


@wsgi.route('GET', '/v2.1/servers/{server_id}/os-volume_attachments/{volume_id}')
def show_attachment(req, server_id, volume_id):
    instance_id, volume = _find(req, server_id, volume_id)
    return wsgi.json_response({'volumeAttachment': views.attachment(
        req, instance_id, volume, volume['device'])})


def _no_deleting(spec):
    if parameter_types.true(spec.get('delete_on_termination', False)):
        raise wsgi.HTTPError(400, 'delete_on_termination=true is not supported: a '
                                  'volume of the volume service outlives the server '
                                  'it is attached to; delete it after the server.')


@wsgi.route('POST', '/v2.1/servers/{server_id}/os-volume_attachments')
@validation.schema(schemas.ATTACH, '2.1', '2.48')
@validation.schema(schemas.ATTACH_V249, '2.49', '2.78')
@validation.schema(schemas.ATTACH_V279, '2.79')
def attach(req, server_id, body):
    instance_id = compute(req).server_record(server_id)['id']
    spec = body['volumeAttachment']
    _no_deleting(spec)
    volume_id = spec['volumeId']
    action_id, device = volume_api.VolumeAPI(req.context).request_attach(
        instance_id, volume_id, spec.get('tag'), spec.get('device'))
    req.deployment.dispatcher.run_action(instance_id, action_id)
    # The device is reserved with the attach; the host plugs the volume in under it.
    return wsgi.json_response({'volumeAttachment': views.attachment(
        req, instance_id, {'id': volume_id, 'index': None,
                           'attachment_tag': spec.get('tag')}, device, created=True)})


@wsgi.route('PUT', '/v2.1/servers/{server_id}/os-volume_attachments/{volume_id}')
@validation.schema(schemas.UPDATE_V285, '2.85')
def update(req, server_id, volume_id, body):
    """2.85: restating the attachment; swapping volumes is not supported."""
    spec = body['volumeAttachment']
    instance_id, volume = _find(req, server_id, volume_id)
    if spec['volumeId'] != volume_id:
        raise wsgi.HTTPError(400, 'Swapping the volume of an attachment is not '
                                  'supported: detach it and attach the other one.')
    shown = views.attachment(req, instance_id, volume, volume['device'])
    for field in ('serverId', 'device', 'tag'):
        if field in spec and spec[field] != shown.get(field):
            raise wsgi.HTTPError(400, 'The %s can not be updated.' % field)
    if 'delete_on_termination' in spec and parameter_types.true(
            spec['delete_on_termination']) != shown['delete_on_termination']:
        raise wsgi.HTTPError(400, 'delete_on_termination cannot be changed: a volume '
                                  'made with the boot goes with the server, one of '
                                  'the volume service outlives it.')
    return wsgi.empty_response(202)


@wsgi.route('DELETE', '/v2.1/servers/{server_id}/os-volume_attachments/{volume_id}')
def detach(req, server_id, volume_id):
    instance_id = compute(req).server_record(server_id)['id']
    action_id = volume_api.VolumeAPI(req.context).request_detach(
        instance_id, volume_id)
    req.deployment.dispatcher.run_action(instance_id, action_id)
    return wsgi.empty_response(202)
