"""Flavors (Nova's flavors, flavor-manage, os-extra_specs and os-flavor-access).

A flavor's id is a uuid unless the creator gave one (Nova's ids are strings too).
A flavor is found by id only: a name is 404, and the clients then list the flavors
and match names themselves. A private flavor is seen and booted by admins and the
projects on its access list only. From 2.55 a flavor has a description, given at
create or changed with PUT; from 2.7 adding a project's access to a public flavor
is a 409 (before, a 404 as for any flavor without an access list).
"""

from oslo_utils import strutils

from provisioner.api import common
from provisioner.api.compute import queries
from provisioner.api.compute.schemas import flavors as schemas
from provisioner.api.compute.views import flavors as views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api
from provisioner import exception
from provisioner import policy

# Nova's sort keys; those provisioner's flavors all share a value of sort by id.
_SORT_KEYS = {'flavorid': 'id', 'id': 'id', 'name': 'name', 'memory_mb': 'ram_mib',
              'vcpus': 'vcpus', 'root_gb': 'disk_gib', 'created_at': 'created_at'}
_NOVA_SORT_KEYS = ('created_at', 'description', 'disabled', 'ephemeral_gb', 'flavorid',
                   'id', 'is_public', 'memory_mb', 'name', 'root_gb', 'rxtx_factor',
                   'swap', 'updated_at', 'vcpu_weight', 'vcpus')


def catalog(req):
    return catalog_api.CatalogAPI(req.context, None)


def find(req, flavor_id):
    """The flavor with this id (a name is not an id: 404, as in Nova)."""
    try:
        flavor = catalog(req).show('flavor', flavor_id)
    except exception.NotFound:
        flavor = None
    if flavor is None or flavor['id'] != flavor_id:
        raise wsgi.HTTPError(404, 'Flavor %s could not be found.' % flavor_id)
    return flavor


_TRUE, _FALSE = ('1', 't', 'true', 'on', 'y', 'yes'), ('0', 'f', 'false', 'off', 'n', 'no')


def _is_public_filter(req):
    """Nova's is_public: none (all), or a boolean; only admins may ask."""
    value = req.GET.get('is_public')
    if not req.context.is_admin or value is None:
        return True
    if value.lower() == 'none':
        return None
    if value.lower() not in _TRUE + _FALSE:
        raise wsgi.HTTPError(400, 'Invalid is_public filter [%s]' % value)
    return value.lower() in _TRUE


def _min_filter(req, param):
    value = req.GET.get(param)
    if value is None:
        return 0
    try:
        return int(value)
    except ValueError:
        raise wsgi.HTTPError(400, 'Invalid %s filter [%s]' % (param, value)) from None


def _flavors(req):
    queries.check(req, ('limit', 'marker', 'is_public', 'minRam', 'minDisk', 'sort_key',
                        'sort_dir'))
    is_public = _is_public_filter(req)
    min_ram, min_disk = _min_filter(req, 'minRam'), _min_filter(req, 'minDisk')
    sort_key = req.GET.get('sort_key') or 'flavorid'
    sort_dir = req.GET.get('sort_dir') or 'asc'
    if sort_key not in _NOVA_SORT_KEYS:
        raise wsgi.HTTPError(400, 'Invalid sort_key %s' % sort_key)
    if sort_dir not in ('asc', 'desc'):
        raise wsgi.HTTPError(400, 'Invalid sort_dir %s' % sort_dir)
    flavors = [f for f in catalog(req).list_flavors(is_public)
               if f['ram_mib'] >= min_ram and f['disk_gib'] >= min_disk]
    key = _SORT_KEYS.get(sort_key, 'id')
    return sorted(flavors, key=lambda f: (f[key], f['id']), reverse=sort_dir == 'desc')


def _list(req, view):
    return common.paged_response(req, 'flavors', _flavors(req), view)


@wsgi.route('GET', '/v2.1/flavors')
def index(req):
    return _list(req, views.basic)


@wsgi.route('GET', '/v2.1/flavors/detail')
def list_detail(req):
    return _list(req, views.detail)


@wsgi.route('GET', '/v2.1/flavors/{flavor_id}')
def show(req, flavor_id):
    return wsgi.json_response({'flavor': views.detail(req, find(req, flavor_id))})


@wsgi.route('POST', '/v2.1/flavors')
@validation.schema(schemas.CREATE, '2.1', '2.54')
@validation.schema(schemas.CREATE_V255, '2.55')
def create(req, body):
    spec = body['flavor']
    flavor_id = None if spec.get('id') is None else str(spec['id'])
    api = catalog(req)
    if flavor_id is not None:
        try:
            taken = api.show('flavor', flavor_id)['id'] == flavor_id
        except exception.NotFound:
            taken = False
        if taken:
            raise wsgi.HTTPError(409, 'Flavor with ID %s already exists.' % flavor_id)
    try:
        flavor = api.create_flavor(
            spec['name'], int(spec['vcpus']), int(spec['ram']), int(spec['disk']),
            flavor_id, spec.get('description'),
            ephemeral_gib=int(spec.get('OS-FLV-EXT-DATA:ephemeral') or 0),
            swap_mib=int(spec.get('swap') or 0),
            rxtx_factor=float(spec.get('rxtx_factor', 1.0)),
            is_public=strutils.bool_from_string(
                spec.get('os-flavor-access:is_public', True), strict=True))
    except exception.Conflict:
        raise wsgi.HTTPError(409, 'Flavor with name %s already exists.'
                             % spec['name']) from None
    return wsgi.json_response({'flavor': views.detail(req, flavor)})


@wsgi.route('PUT', '/v2.1/flavors/{flavor_id}')
@validation.schema(schemas.UPDATE, '2.55')
def update(req, flavor_id, body):
    policy.authorize(req.context, 'flavor:create')
    find(req, flavor_id)
    flavor = catalog(req).set_flavor_description(flavor_id,
                                                 body['flavor']['description'])
    return wsgi.json_response({'flavor': views.detail(req, flavor)})


@wsgi.route('DELETE', '/v2.1/flavors/{flavor_id}')
def delete(req, flavor_id):
    policy.authorize(req.context, 'flavor:delete')  # before a 404 can tell anything
    find(req, flavor_id)
    catalog(req).delete('flavor', flavor_id)
    return wsgi.empty_response(202)


# -- extra specs and access lists -------------------------------------------------

def _specs_response(req, flavor_id, **change):
    return catalog(req).flavor_extra_specs(find(req, flavor_id)['id'], **change)


@wsgi.route('GET', '/v2.1/flavors/{flavor_id}/os-extra_specs')
def extra_specs(req, flavor_id):
    return wsgi.json_response({'extra_specs': _specs_response(req, flavor_id)})


@wsgi.route('GET', '/v2.1/flavors/{flavor_id}/os-extra_specs/{key}')
def extra_spec(req, flavor_id, key):
    specs = _specs_response(req, flavor_id)
    if key not in specs:
        raise wsgi.HTTPError(404, 'Flavor %s has no extra specs with key %s.'
                             % (flavor_id, key))
    return wsgi.json_response({key: specs[key]})


def _as_text(specs):
    return {key: str(value) for key, value in specs.items()}


@wsgi.route('POST', '/v2.1/flavors/{flavor_id}/os-extra_specs')
@validation.schema(schemas.EXTRA_SPECS_CREATE)
def set_extra_specs(req, flavor_id, body):
    policy.authorize(req.context, 'flavor:create')  # before a 404 can tell anything
    specs = _as_text(body['extra_specs'])
    _specs_response(req, flavor_id, set_specs=specs)
    return wsgi.json_response({'extra_specs': specs})


@wsgi.route('PUT', '/v2.1/flavors/{flavor_id}/os-extra_specs/{key}')
@validation.schema(schemas.EXTRA_SPEC_UPDATE)
def update_extra_spec(req, flavor_id, key, body):
    policy.authorize(req.context, 'flavor:create')
    if key not in body:
        raise wsgi.HTTPError(400, 'Request body and URI mismatch')
    spec = _as_text(body)
    _specs_response(req, flavor_id, set_specs=spec)
    return wsgi.json_response(spec)


@wsgi.route('DELETE', '/v2.1/flavors/{flavor_id}/os-extra_specs/{key}')
def delete_extra_spec(req, flavor_id, key):
    policy.authorize(req.context, 'flavor:create')
    if key not in _specs_response(req, flavor_id):
        raise wsgi.HTTPError(404, 'Flavor %s has no extra specs with key %s.'
                             % (flavor_id, key))
    _specs_response(req, flavor_id, delete_key=key)
    return wsgi.empty_response(200)


def _access_body(flavor_id, projects):
    return wsgi.json_response({'flavor_access': [
        {'flavor_id': flavor_id, 'tenant_id': project} for project in projects]})


@wsgi.route('GET', '/v2.1/flavors/{flavor_id}/os-flavor-access')
def access_list(req, flavor_id):
    policy.authorize(req.context, 'flavor:create')
    flavor = find(req, flavor_id)
    try:
        return _access_body(flavor['id'], catalog(req).flavor_access(flavor['id']))
    except exception.Invalid as exc:
        raise wsgi.HTTPError(404, exc.kwargs.get('reason', str(exc))) from None


@wsgi.route('POST', '/v2.1/flavors/{flavor_id}/action')
def access_action(req, flavor_id):
    """addTenantAccess / removeTenantAccess of a private flavor."""
    body = validation.validate(req.json_body(), schemas.ACCESS_ACTION)
    policy.authorize(req.context, 'flavor:create')
    flavor = find(req, flavor_id)
    (name, argument), = body.items()
    change = 'add' if name == 'addTenantAccess' else 'remove'
    if change == 'add' and flavor['is_public'] and req.api_version < (2, 7):
        # Nova before 2.7 records the project on the public flavor, where it
        # changes nothing; provisioner records nothing and answers as Nova does.
        return _access_body(flavor['id'], [argument['tenant']])
    try:
        projects = catalog(req).flavor_access(flavor['id'], change, argument['tenant'])
    except exception.Invalid:  # a public flavor has no access to take away
        raise wsgi.HTTPError(404, 'Flavor access not found for %s / %s combination.'
                             % (flavor_id, argument['tenant'])) from None
    return _access_body(flavor['id'], projects)
