"""Nova's image proxy (2.1 - 2.35): the image API's images in Nova's shapes.

``/images`` and ``/images/detail`` list the images the caller sees, filtered as Nova
filters them (name, status, changes-since, server, type, minRam, minDisk) and paged
(limit, marker); ``/images/{id}/metadata`` reads and changes an image's properties
(what Glance shows besides its own fields). From 2.36 every path is 404.
"""

import datetime

from provisioner.api import common
from provisioner.api.compute import queries
from provisioner.api.image import views as glance_views
from provisioner.api import urls
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api
from provisioner import exception

_GLANCE_FIELDS = {'id', 'name', 'status', 'visibility', 'container_format',
                  'disk_format', 'size', 'virtual_size', 'min_disk', 'min_ram',
                  'protected', 'os_hidden', 'owner', 'checksum', 'os_hash_algo',
                  'os_hash_value', 'tags', 'created_at', 'updated_at', 'self', 'file',
                  'schema', 'direct_url', 'locations', 'provisioner_boot'}
_STATUS = {'active': 'ACTIVE', 'queued': 'SAVING', 'saving': 'SAVING',
           'deleted': 'DELETED', 'pending_delete': 'DELETED', 'killed': 'ERROR',
           'deactivated': 'ERROR'}
_PROGRESS = {'queued': 25, 'saving': 50, 'active': 100}
_MAX_METADATA = 128  # Nova's metadata_items quota

_META = {'type': 'object', 'patternProperties': {
    '^[a-zA-Z0-9-_:. ]{1,255}$': {'type': 'string', 'maxLength': 255}},
    'additionalProperties': False}
METADATA = {'type': 'object', 'properties': {'metadata': _META},
            'required': ['metadata'], 'additionalProperties': False}
META = {'type': 'object', 'properties': {'meta': dict(
    _META, minProperties=1, maxProperties=1)},
    'required': ['meta'], 'additionalProperties': False}


def _catalog(req):
    return catalog_api.CatalogAPI(req.context, None)


def _check(req):
    queries.removed_at(req, (2, 36))


def _glance(req, image_id):
    """The image's Glance view; Nova's 404 for one the caller does not see."""
    _check(req)
    try:
        image = _catalog(req).show('image', image_id)
    except exception.NotFound:
        image = None
    if image is None or image['id'] != image_id:  # by id only, as Nova's
        raise wsgi.HTTPError(404, 'Image not found.')
    return glance_views.view(image)


def properties(image):
    return {k: v for k, v in image.items() if k not in _GLANCE_FIELDS}


def _links(req, image_id):
    links = urls.links(req, 'v2.1', 'images', image_id)
    return links + [{'rel': 'alternate', 'type': 'application/vnd.openstack.image',
                     'href': '%s/image/images/%s' % (urls.public_base_url(req),
                                                     image_id)}]


def _basic(req, image):
    return {'id': image['id'], 'name': image['name'], 'links': _links(req, image['id'])}


def _detail(req, image):
    metadata = properties(image)
    view = dict(_basic(req, image), minRam=image['min_ram'], minDisk=image['min_disk'],
                metadata=metadata, created=image['created_at'],
                updated=image['updated_at'],
                status=_STATUS.get(image['status'], 'UNKNOWN'),
                progress=_PROGRESS.get(image['status'], 0))
    view['OS-EXT-IMG-SIZE:size'] = image['size']
    server_id = metadata.get('instance_uuid')
    if server_id is not None:
        view['server'] = {'id': server_id,
                          'links': urls.links(req, 'v2.1', 'servers', server_id)}
    return view


def _matches(image, query):
    """Nova's filters, as it hands them to Glance."""
    props = properties(image)
    checks = (
        ('name', lambda v: image['name'] == v),
        ('status', lambda v: image['status'] == v.lower()),
        ('changes-since', lambda v: image['updated_at'] >= v),
        ('server', lambda v: props.get('instance_uuid') == v.rsplit('/', 1)[-1]),
        ('type', lambda v: props.get('image_type') == v),
        ('minRam', lambda v: image['min_ram'] >= int(v)),
        ('minDisk', lambda v: image['min_disk'] >= int(v)))
    return all(test(query[key]) for key, test in checks if query.get(key) is not None)


def _query(req):
    query = {k: req.GET.get(k) for k in ('name', 'status', 'server', 'type', 'minRam',
                                         'minDisk')}
    for key in ('minRam', 'minDisk'):
        if query[key] is not None and not query[key].isdigit():
            raise wsgi.HTTPError(400, 'Invalid %s filter [%s]' % (key, query[key]))
    since = req.GET.get('changes-since')
    if since is not None:
        try:
            moment = datetime.datetime.fromisoformat(since.replace('Z', '+00:00'))
        except ValueError:
            raise wsgi.HTTPError(400, 'Invalid changes-since value') from None
        query['changes-since'] = common.isotime(moment.replace(tzinfo=None)
                                                if moment.tzinfo is None else
                                                moment.astimezone(datetime.timezone.utc)
                                                .replace(tzinfo=None))
    return query


def _list(req, view):
    _check(req)
    query = _query(req)
    rows = sorted(_catalog(req).list_images(),  # newest first, to the microsecond
                  key=lambda i: (i['created_at'], i['id']), reverse=True)
    found = [i for i in map(glance_views.view, rows) if _matches(i, query)]
    return common.paged_response(req, 'images', found, view)


@wsgi.route('GET', '/v2.1/images')
def index(req):
    return _list(req, _basic)


@wsgi.route('GET', '/v2.1/images/detail')
def detail(req):
    return _list(req, _detail)


@wsgi.route('GET', '/v2.1/images/{image_id}')
def show(req, image_id):
    return wsgi.json_response({'image': _detail(req, _glance(req, image_id))})


@wsgi.route('DELETE', '/v2.1/images')
def delete_without_id(req):
    """DELETE /images/ (an empty id): Nova's 404; the collection itself: 405."""
    _check(req)
    if req.path.endswith('/'):
        raise wsgi.HTTPError(404, 'Image not found.')
    raise wsgi.HTTPError(405, 'Method DELETE is not allowed here (allowed: GET).',
                         headers={'Allow': 'GET'})


@wsgi.route('DELETE', '/v2.1/images/{image_id}')
def delete(req, image_id):
    image = _glance(req, image_id)
    _catalog(req).delete('image', image['id'])
    return wsgi.empty_response(204)


# -- metadata: the image's properties ------------------------------------------------

def _set(req, image, changes):
    after = dict(properties(image), **{k: v for k, v in changes.items()
                                       if v is not None})
    for key, value in changes.items():
        if value is None:
            after.pop(key, None)
    if len(after) > _MAX_METADATA:
        raise wsgi.HTTPError(403, 'Quota exceeded for metadata_items: at most %d'
                             % _MAX_METADATA)
    return properties(glance_views.view(_catalog(req).update_image(image['id'],
                                                                   changes)))


@wsgi.route('GET', '/v2.1/images/{image_id}/metadata')
def metadata(req, image_id):
    return wsgi.json_response({'metadata': properties(_glance(req, image_id))})


@wsgi.route('POST', '/v2.1/images/{image_id}/metadata')
@validation.schema(METADATA)
def update_metadata(req, image_id, body):
    image = _glance(req, image_id)
    return wsgi.json_response({'metadata': _set(req, image, body['metadata'])})


@wsgi.route('PUT', '/v2.1/images/{image_id}/metadata')
@validation.schema(METADATA)
def replace_metadata(req, image_id, body):
    image = _glance(req, image_id)
    changes = dict({key: None for key in properties(image)}, **body['metadata'])
    return wsgi.json_response({'metadata': _set(req, image, changes)})


@wsgi.route('GET', '/v2.1/images/{image_id}/metadata/{key}')
def metadata_item(req, image_id, key):
    found = properties(_glance(req, image_id))
    if key not in found:
        raise wsgi.HTTPError(404, 'Image %s has no metadata with key %s.'
                             % (image_id, key))
    return wsgi.json_response({'meta': {key: found[key]}})


@wsgi.route('PUT', '/v2.1/images/{image_id}/metadata/{key}')
@validation.schema(META)
def set_metadata_item(req, image_id, key, body):
    image = _glance(req, image_id)
    if key not in body['meta']:
        raise wsgi.HTTPError(400, 'Request body and URI mismatch')
    _set(req, image, body['meta'])
    return wsgi.json_response({'meta': body['meta']})


@wsgi.route('DELETE', '/v2.1/images/{image_id}/metadata/{key}')
def delete_metadata_item(req, image_id, key):
    image = _glance(req, image_id)
    if key not in properties(image):
        raise wsgi.HTTPError(404, 'Image %s has no metadata with key %s.'
                             % (image_id, key))
    _set(req, image, {key: None})
    return wsgi.empty_response(204)
