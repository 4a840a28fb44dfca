"""Remote consoles (Nova's POST /servers/{id}/remote-consoles, 2.6) and console
auth tokens (os-console-auth-tokens).

provisioner's guests have a serial console that is logged (os-getConsoleOutput),
and no console proxy: no VNC, SPICE, serial or MKS console can be handed out, so
every request is answered as Nova answers for a console type that is not enabled
(libvirt has no MKS: not implemented), and no console token ever exists.
"""

import copy

from provisioner.api.compute import hypervisors
from provisioner.api.compute.servers import compute
from provisioner.api import validation
from provisioner.api import wsgi

_CREATE_V26 = {
    'type': 'object',
    'properties': {'remote_console': {
        'type': 'object',
        'properties': {
            'protocol': {'type': 'string', 'enum': ['vnc', 'spice', 'serial', 'rdp']},
            'type': {'type': 'string', 'enum': ['novnc', 'xvpvnc', 'spice-html5',
                                                'serial', 'rdp-html5']}},
        'required': ['protocol', 'type'],
        'additionalProperties': False}},
    'required': ['remote_console'],
    'additionalProperties': False,
}
_CREATE_V28 = copy.deepcopy(_CREATE_V26)
_console = _CREATE_V28['properties']['remote_console']['properties']
_console['protocol']['enum'].append('mks')
_console['type']['enum'].append('webmks')


@wsgi.route('POST', '/v2.1/servers/{server_id}/remote-consoles')
@validation.schema(_CREATE_V26, '2.6', '2.7')
@validation.schema(_CREATE_V28, '2.8')
def create(req, server_id, body):
    compute(req).server_record(server_id)
    spec = body['remote_console']
    if spec['protocol'] == 'rdp':
        raise wsgi.HTTPError(400, 'Unavailable console type rdp.')
    if spec['protocol'] == 'mks':
        raise wsgi.HTTPError(501, 'Action not supported: libvirt guests have no MKS '
                                  'console.')
    raise wsgi.HTTPError(400, 'Unavailable console type %s.' % spec['type'])


@wsgi.route('GET', '/v2.1/os-console-auth-tokens/{token}')
def auth_token(req, token):
    hypervisors.require_admin(req, 'Showing a console token')
    if req.api_version < (2, 31):
        # Nova before 2.31 serves RDP tokens only, and answers a bare 400.
        raise wsgi.HTTPError(400, 'The server could not comply with the request since '
                                  'it is either malformed or otherwise incorrect.')
    raise wsgi.HTTPError(404, 'Token not found')
