"""QoS specs (Cinder's /qos-specs at 3.0, admins): create, list, show, set and
unset keys, delete (``force`` while associated), and their association with
volume types. Recorded, not applied: provisioner.volume.qos."""

from provisioner.api import validation
from provisioner.api.volume.volumes import check_url_project
from provisioner.api import urls
from provisioner.api import wsgi
from provisioner.api.volume import filters
from provisioner.volume import qos

_QOS = '/v3/{project_id}/qos-specs'
CREATE = validation.wrapped('qos_specs', {'type': 'object'})
UNSET = {'type': 'object', 'required': ['keys'],
         'properties': {'keys': {'type': 'array', 'items': {'type': 'string'}}},
         'errorMessage': 'give {{"keys": [...]}}'}


def _api(req, project_id):
    check_url_project(req, project_id)
    return qos.QosAPI(req.context)


def _view(req, found):
    return dict(found, links=urls.links(req, 'v3', req.context.project_id,
                                        'qos-specs', found['id']))


@wsgi.route('GET', _QOS)
def list_qos(req, project_id):
    return wsgi.json_response({'qos_specs': _api(req, project_id).list()})


@wsgi.route('POST', _QOS)
@validation.schema(CREATE)
def create_qos(req, project_id, body):
    specs = dict(body['qos_specs'])
    name, consumer = specs.pop('name', None), specs.pop('consumer', 'back-end')
    found = _api(req, project_id).create(name, consumer, **specs)
    return wsgi.json_response({'qos_specs': found, 'links': _view(req, found)['links']})


@wsgi.route('GET', _QOS + '/{qos_id}')
def show_qos(req, project_id, qos_id):
    found = _api(req, project_id).show(qos_id)
    return wsgi.json_response({'qos_specs': found, 'links': _view(req, found)['links']})


@wsgi.route('PUT', _QOS + '/{qos_id}')
@validation.schema(CREATE)
def set_qos_keys(req, project_id, qos_id, body):
    return wsgi.json_response({'qos_specs': _api(req, project_id).set_keys(
        qos_id, body['qos_specs'])})


@wsgi.route('PUT', _QOS + '/{qos_id}/delete_keys')
@validation.schema(UNSET)
def unset_qos_keys(req, project_id, qos_id, body):
    _api(req, project_id).unset_keys(qos_id, body['keys'])
    return wsgi.empty_response(202)


@wsgi.route('DELETE', _QOS + '/{qos_id}')
def delete_qos(req, project_id, qos_id):
    force = filters.boolean(req.GET.get('force', 'false')) is True
    _api(req, project_id).delete(qos_id, force=force)
    return wsgi.empty_response(202)


@wsgi.route('GET', _QOS + '/{qos_id}/associations')
def list_associations(req, project_id, qos_id):
    return wsgi.json_response({'qos_associations': _api(req, project_id)
                               .associations(qos_id)})


@wsgi.route('GET', _QOS + '/{qos_id}/associate')
def associate(req, project_id, qos_id):
    _api(req, project_id).associate(qos_id, req.GET.get('vol_type_id'))
    return wsgi.empty_response(202)


@wsgi.route('GET', _QOS + '/{qos_id}/disassociate')
def disassociate(req, project_id, qos_id):
    _api(req, project_id).associate(qos_id, req.GET.get('vol_type_id'),
                                    associate=False)
    return wsgi.empty_response(202)


@wsgi.route('GET', _QOS + '/{qos_id}/disassociate_all')
def disassociate_all(req, project_id, qos_id):
    _api(req, project_id).disassociate_all(qos_id)
    return wsgi.empty_response(202)
