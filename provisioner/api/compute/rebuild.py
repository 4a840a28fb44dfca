"""POST /servers/{id}/action {"rebuild": {...}}: Nova's rebuild.

The server gets a new root disk from ``imageRef`` and a new config drive (its new
name, metadata, key and user data), by a persisted flow with revert
(flows.rebuild). The answer is 202 with the server as PUT shows it, status REBUILD; no
adminPass (provisioner's guests take no password, as Nova's with
enable_instance_password off). Fields by microversion:
provisioner.api.compute.schemas.rebuild.
"""

import base64

from provisioner.api.compute.schemas import rebuild as schemas
from provisioner.api.compute.servers import compute
from provisioner.api.compute.views import servers as views
from provisioner.api import urls
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.compute import instances

# Request field -> the instance's column, for the fields of later microversions.
_LATER_FIELDS = {'description': 'description', 'hostname': 'hostname',
                 'trusted_image_certificates': 'trusted_certs'}


def changes(body):
    """The compute API's arguments for a rebuild body (validated)."""
    found = {'name': body.get('name'), 'properties': body.get('metadata'),
             'access_ips': {version: body[key] for version, key in (
                 ('v4', 'accessIPv4'), ('v6', 'accessIPv6')) if key in body},
             'fields': {column: body[field] for field, column in _LATER_FIELDS.items()
                        if field in body}}
    if 'key_name' in body:
        found['key_name'] = body['key_name']
    if 'user_data' in body:
        encoded = body['user_data']
        found['user_data'] = None if encoded is None else base64.b64decode(encoded)
    return found


@validation.schema(schemas.REBUILD, '2.1', '2.18')
@validation.schema(schemas.REBUILD_V219, '2.19', '2.53')
@validation.schema(schemas.REBUILD_V254, '2.54', '2.56')
@validation.schema(schemas.REBUILD_V257, '2.57', '2.62')
@validation.schema(schemas.REBUILD_V263, '2.63', '2.89')
@validation.schema(schemas.REBUILD_V290, '2.90')
def rebuild_server(req, server_id, body):
    api = compute(req)
    asked = changes(body)
    instance_id, action_id = api.rebuild(api.server_record(server_id)['id'],
                                         body['imageRef'], **asked)
    server = api.server_record(instance_id)  # as Nova answers: status REBUILD
    req.deployment.dispatcher.run_action(instance_id, action_id)
    view = views.updated(req, server)
    if req.api_version >= (2, 54):  # Nova's rebuild answer shows what may change
        view['key_name'] = asked.get('key_name', server['key_name'])
    if req.api_version >= (2, 57):
        user_data = (asked['user_data'] if 'user_data' in asked
                     else instances.user_data(instance_id))
        view['user_data'] = (None if user_data is None
                             else base64.b64encode(user_data).decode())
    return wsgi.json_response({'server': view}, 202,
                              {'Location': urls.service_url(req, 'v2.1', 'servers',
                                                            instance_id)})
