"""Nova's os-server-external-events, for admins: what Neutron and Cinder tell Nova
about a server (a port plugged, a volume extended...).

provisioner's flows wait for no such event (the host reports a plug itself), so an
event is acknowledged for a server that exists (code 200) and refused for one that
does not (404), with Nova's overall status: 200 all, 207 some, 404 none.
"""

from provisioner.api.compute.servers import compute
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner import exception

_NAMES = {(2, 1): ('network-changed', 'network-vif-plugged', 'network-vif-unplugged',
                   'network-vif-deleted'),
          (2, 51): ('volume-extended',), (2, 76): ('power-update',),
          (2, 82): ('accelerator-request-bound',)}


def _schema(req):
    names = [n for since, found in _NAMES.items() if req.api_version >= since
             for n in found]
    event = {'type': 'object', 'required': ['name', 'server_uuid'],
             'additionalProperties': False,
             'properties': {'name': {'type': 'string', 'enum': names},
                            'server_uuid': {'type': 'string', 'format': 'uuid'},
                            'status': {'type': 'string',
                                       'enum': ['failed', 'completed', 'in-progress']},
                            'tag': {'type': 'string', 'maxLength': 255}}}
    return {'type': 'object', 'required': ['events'], 'additionalProperties': False,
            'properties': {'events': {'type': 'array', 'minItems': 1,
                                      'items': event}}}


@wsgi.route('POST', '/v2.1/os-server-external-events')
def create(req):
    body = validation.validate(req.json_body(), _schema(req))
    if not req.context.is_admin:
        raise exception.Forbidden(reason='Server external events are for the cloud '
                                         'administrator and the services')
    api, answered = compute(req), []
    for event in body['events']:
        event = dict(event, status=event.get('status', 'completed'))
        try:
            api.server_record(event['server_uuid'])
            event['code'] = 200
        except exception.NotFound:
            event.update(code=404, status='failed')
        answered.append(event)
    codes = {e['code'] for e in answered}
    status = 200 if codes == {200} else 404 if codes == {404} else 207
    return wsgi.json_response({'events': answered}, status)
