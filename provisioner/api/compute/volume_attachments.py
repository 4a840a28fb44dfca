"""Nova's os-volume_attachments: a server's volumes, attached and detached as flows.

``openstack server add volume`` POSTs here; the attach is an instance action
(``attach_volume``) whose persisted flow makes the volume's file on the server's
host if it has none yet and hot-plugs it into the domain; ``server remove volume``
DELETEs, and a ``detach_volume`` flow unplugs it, waiting for the guest to let go.
Both answer at once (200 / 202, as Nova's), the volume showing attaching or
detaching until the flow ends. Nova's 2.1 shapes: ``id`` and ``volumeId`` are the
volume's id, ``serverId`` and ``device``.
"""

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
    instance_id, attached = _attached(req, server_id)
    return wsgi.json_response({'volumeAttachments': [
        views.attachment(instance_id, v['id'], v['device']) for v in attached]})


@wsgi.route('GET', '/v2.1/servers/{server_id}/os-volume_attachments/{volume_id}')
def show_attachment(req, server_id, volume_id):
    instance_id, attached = _attached(req, server_id)
    for volume in attached:
        if volume['id'] == volume_id:
            return wsgi.json_response({'volumeAttachment': views.attachment(
                instance_id, volume['id'], volume['device'])})
    raise exception.NotFound(kind='Volume attachment',
                             name='%s of server %s' % (volume_id, server_id))


@wsgi.route('POST', '/v2.1/servers/{server_id}/os-volume_attachments')
@validation.schema(schemas.ATTACH)
def attach(req, server_id, body):
    instance_id = compute(req).server_record(server_id)['id']
    volume_id = body['volumeAttachment']['volumeId']
    action_id = volume_api.VolumeAPI(req.context).request_attach(
        instance_id, volume_id)
    req.deployment.dispatcher.run_action(instance_id, action_id)
    # The device is the host's choice, known once the flow plugged the volume in.
    return wsgi.json_response({'volumeAttachment': views.attachment(
        instance_id, volume_id, None)})


@wsgi.route('DELETE', '/v2.1/servers/{server_id}/os-volume_attachments/{volume_id}')
def detach(req, server_id, volume_id):
    instance_id = compute(req).server_record(server_id)['id']
    action_id = volume_api.VolumeAPI(req.context).request_detach(
        instance_id, volume_id)
    req.deployment.dispatcher.run_action(instance_id, action_id)
    return wsgi.empty_response(202)
