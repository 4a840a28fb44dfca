"""Keystone's /v3/regions, /v3/services and /v3/endpoints.

provisioner's own services and endpoints (what every catalog names, at the URL the
request came in by) are listed and shown with those an admin adds, read-only;
what an admin adds is in the catalog of every token issued after.
"""

from provisioner.api.identity import schemas
from provisioner.api.identity import views
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner import exception
from provisioner.identity import endpoints


def _one(req, key, view, row, status=200):
    return wsgi.json_response({key: view(req, row)}, status)


def _many(req, key, view, rows):
    return views.collection(req, key, [view(req, r) for r in rows], key)


# -- regions -------------------------------------------------------------------------

@wsgi.route('GET', '/v3/regions')
def list_regions(req):
    found = endpoints.list_regions(req.context, views.filters(req, 'parent_region_id'))
    return _many(req, 'regions', views.region_view, found)


@wsgi.route('POST', '/v3/regions')
@validation.schema(schemas.REGION_CREATE)
def create_region(req, body):
    body = body['region']
    region = endpoints.create_region(req.context, body.get('id'), body.get('description'),
                                     body.get('parent_region_id'))
    return _one(req, 'region', views.region_view, region, 201)


@wsgi.route('PUT', '/v3/regions/{region_id}')
@validation.schema(schemas.REGION_CREATE)
def create_region_with_id(req, region_id, body):
    body = body['region']
    region = endpoints.create_region(req.context, region_id, body.get('description'),
                                     body.get('parent_region_id'))
    return _one(req, 'region', views.region_view, region, 201)


@wsgi.route('GET', '/v3/regions/{region_id}')
def show_region(req, region_id):
    return _one(req, 'region', views.region_view,
                endpoints.show_region(req.context, region_id))


@wsgi.route('PATCH', '/v3/regions/{region_id}')
@validation.schema(schemas.REGION_UPDATE)
def update_region(req, region_id, body):
    region = endpoints.update_region(req.context, region_id, body['region'])
    return _one(req, 'region', views.region_view, region)


@wsgi.route('DELETE', '/v3/regions/{region_id}')
def delete_region(req, region_id):
    endpoints.delete_region(req.context, region_id)
    return wsgi.empty_response(204)


# -- services ------------------------------------------------------------------------

def _builtin(req, index, row_id):
    """provisioner's own service or endpoint of this id, or None."""
    return next((r for r in views.builtin_services(req)[index] if r['id'] == row_id),
                None)


def _read_only(req, index, row_id, kind):
    if _builtin(req, index, row_id) is not None:
        raise exception.Forbidden(reason='%s %s is one of provisioner\'s own; it cannot '
                                         'be changed' % (kind, row_id))


@wsgi.route('GET', '/v3/services')
def list_services(req):
    found = endpoints.list_services(req.context, views.filters(req, 'type', 'name'))
    found += [s for s in views.builtin_services(req)[0]
              if req.GET.get('type') in (None, s['type'])
              and req.GET.get('name') in (None, s['name'])]
    return _many(req, 'services', views.service_view, found)


@wsgi.route('POST', '/v3/services')
@validation.schema(schemas.SERVICE_CREATE)
def create_service(req, body):
    body = body['service']
    service = endpoints.create_service(req.context, body['type'], body.get('name'),
                                       body.get('description'), body.get('enabled', True))
    return _one(req, 'service', views.service_view, service, 201)


@wsgi.route('GET', '/v3/services/{service_id}')
def show_service(req, service_id):
    service = _builtin(req, 0, service_id) or endpoints.show_service(req.context,
                                                                     service_id)
    return _one(req, 'service', views.service_view, service)


@wsgi.route('PATCH', '/v3/services/{service_id}')
@validation.schema(schemas.SERVICE_UPDATE)
def update_service(req, service_id, body):
    _read_only(req, 0, service_id, 'Service')
    service = endpoints.update_service(req.context, service_id, body['service'])
    return _one(req, 'service', views.service_view, service)


@wsgi.route('DELETE', '/v3/services/{service_id}')
def delete_service(req, service_id):
    _read_only(req, 0, service_id, 'Service')
    endpoints.delete_service(req.context, service_id)
    return wsgi.empty_response(204)


# -- endpoints -----------------------------------------------------------------------

def _endpoint_values(body):
    values = dict(body['endpoint'])
    region = values.pop('region', None)
    if values.get('region_id') is None and region is not None:
        values['region_id'] = region
    return values


@wsgi.route('GET', '/v3/endpoints')
def list_endpoints(req):
    filters = views.filters(req, 'interface', 'service_id', 'region_id')
    found = endpoints.list_endpoints(req.context, filters)
    found += [e for e in views.builtin_services(req)[1]
              if all(v in (None, e[k]) for k, v in filters.items())]
    return _many(req, 'endpoints', views.endpoint_view, found)


@wsgi.route('POST', '/v3/endpoints')
@validation.schema(schemas.ENDPOINT_CREATE)
def create_endpoint(req, body):
    endpoint = endpoints.create_endpoint(req.context, _endpoint_values(body))
    return _one(req, 'endpoint', views.endpoint_view, endpoint, 201)


@wsgi.route('GET', '/v3/endpoints/{endpoint_id}')
def show_endpoint(req, endpoint_id):
    endpoint = _builtin(req, 1, endpoint_id) or endpoints.show_endpoint(req.context,
                                                                        endpoint_id)
    return _one(req, 'endpoint', views.endpoint_view, endpoint)


@wsgi.route('PATCH', '/v3/endpoints/{endpoint_id}')
@validation.schema(schemas.ENDPOINT_UPDATE)
def update_endpoint(req, endpoint_id, body):
    _read_only(req, 1, endpoint_id, 'Endpoint')
    endpoint = endpoints.update_endpoint(req.context, endpoint_id, _endpoint_values(body))
    return _one(req, 'endpoint', views.endpoint_view, endpoint)


@wsgi.route('DELETE', '/v3/endpoints/{endpoint_id}')
def delete_endpoint(req, endpoint_id):
    _read_only(req, 1, endpoint_id, 'Endpoint')
    endpoints.delete_endpoint(req.context, endpoint_id)
    return wsgi.empty_response(204)
