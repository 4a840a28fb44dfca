"""Volume transfers (Cinder's os-volume-transfer at 3.0): create (202, with the
authorization key, answered once), list, detail, show, accept (by another
project, with the key) and delete. The rules: provisioner.volume.transfers."""

from provisioner.api import common
from provisioner.api import urls
from provisioner.api import validation
from provisioner.api.volume.volumes import check_url_project
from provisioner.api import wsgi
from provisioner.volume import transfers

_TRANSFERS = '/v3/{project_id}/os-volume-transfer'

CREATE = validation.wrapped('transfer', {
    'type': 'object', 'required': ['volume_id'],
    'properties': {'volume_id': {'type': 'string', 'minLength': 1,
                                 'errorMessage': 'volume_id must be a volume id'}},
    'errorMessage': {'required': 'Incorrect request body format: give volume_id.'}})
ACCEPT = validation.wrapped('accept', {
    'type': 'object', 'required': ['auth_key'],
    'properties': {'auth_key': {'type': 'string', 'minLength': 1,
                                'errorMessage': 'auth_key must be the transfer\'s key'}},
    'errorMessage': {'required': 'Incorrect request body format: give auth_key.'}})


def _view(req, found, detail=False, **extra):
    body = {'id': found['id'], 'name': found['name'], 'volume_id': found['volume_id'],
            'links': urls.links(req, 'v3', req.context.project_id,
                                'os-volume-transfer', found['id'])}
    if detail:
        body['created_at'] = common.object_time(found['created_at'])
    body.update(extra)
    return body


def _api(req, project_id):
    check_url_project(req, project_id)
    return transfers.TransferAPI(req.context)


@wsgi.route('POST', _TRANSFERS)
@validation.schema(CREATE)
def create_transfer(req, project_id, body):
    body = body['transfer']
    found = _api(req, project_id).create(body['volume_id'], name=body.get('name'))
    return wsgi.json_response({'transfer': _view(
        req, found, detail=True, auth_key=found['auth_key'])}, 202)


@wsgi.route('GET', _TRANSFERS)
def list_transfers(req, project_id):
    return common.paged_response(req, 'transfers', _api(req, project_id).list(),
                                 _view, after_full_page=True)


@wsgi.route('GET', _TRANSFERS + '/detail')
def list_transfers_detail(req, project_id):
    return common.paged_response(req, 'transfers', _api(req, project_id).list(),
                                 lambda req, found: _view(req, found, detail=True),
                                 after_full_page=True)


@wsgi.route('GET', _TRANSFERS + '/{transfer_id}')
def show_transfer(req, project_id, transfer_id):
    return wsgi.json_response({'transfer': _view(
        req, _api(req, project_id).show(transfer_id), detail=True)})


@wsgi.route('POST', _TRANSFERS + '/{transfer_id}/accept')
@validation.schema(ACCEPT)
def accept_transfer(req, project_id, transfer_id, body):
    found = _api(req, project_id).accept(transfer_id, body['accept']['auth_key'])
    return wsgi.json_response({'transfer': _view(req, found)}, 202)


@wsgi.route('DELETE', _TRANSFERS + '/{transfer_id}')
def delete_transfer(req, project_id, transfer_id):
    _api(req, project_id).delete(transfer_id)
    return wsgi.empty_response(202)
