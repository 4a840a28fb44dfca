"""Nova's image proxy (compute 2.1 to 2.35; 404 from 2.36, as Nova): the image
API's images in Nova's shape.

    GET /images, /images/detail   filters name, status, changes-since, server (an
                                  id or a server's URL), type (snapshot),
                                  minRam, minDisk; limit and marker
    GET /images/{id}, DELETE /images/{id}

An image shows as Nova's view builder shows it: status ACTIVE, SAVING (queued and
saving: progress 25 and 50), DELETED or ERROR; its Glance properties as
``metadata``; ``server`` when it is a server's snapshot (``instance_uuid``).
Who sees and deletes what is the image API's rule (the catalog checks it).
"""

from oslo_utils import timeutils

from provisioner.api import common
from provisioner.api.image import views as glance_views
from provisioner.api import urls
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api

MAX_VERSION = (2, 35)
_STATUS = {'active': 'ACTIVE', 'queued': 'SAVING', 'saving': 'SAVING',
           'deleted': 'DELETED', 'pending_delete': 'DELETED', 'killed': 'ERROR'}
_PROGRESS = {'queued': 25, 'saving': 50, 'active': 100}
# Glance's image fields that are not properties (Nova's metadata is the rest).
_CORE = frozenset(('id', 'name', 'status', 'visibility', 'container_format',
                   'disk_format', 'size', 'virtual_size', 'min_disk', 'min_ram',
                   'protected', 'os_hidden', 'owner', 'checksum', 'os_hash_algo',
                   'os_hash_value', 'tags', 'created_at', 'updated_at', 'self', 'file',
                   'schema', 'provisioner_boot'))
# Nova's SUPPORTED_FILTERS: query parameter -> what it compares.
_FILTERS = ('name', 'status', 'changes-since', 'server', 'type', 'minRam', 'minDisk')


def _catalog(req):
    if req.api_version > MAX_VERSION:
        raise wsgi.HTTPError(404, 'The resource could not be found.')
    return catalog_api.CatalogAPI(req.context, None)


def _links(req, image_id):
    return urls.links(req, 'v2.1', 'images', image_id) + [
        {'rel': 'alternate', 'type': 'application/vnd.openstack.image',
         'href': '%s/image/images/%s' % (urls.public_base_url(req), image_id)}]


def basic(req, glance):
    return {'id': glance['id'], 'name': glance['name'],
            'links': _links(req, glance['id'])}


def detail(req, glance):
    metadata = {key: value for key, value in glance.items() if key not in _CORE}
    shown = dict(basic(req, glance), **{
        'minRam': int(glance['min_ram'] or 0), 'minDisk': int(glance['min_disk'] or 0),
        'metadata': metadata, 'created': glance['created_at'],
        'updated': glance['updated_at'],
        'status': _STATUS.get(glance['status'], 'UNKNOWN'),
        'progress': _PROGRESS.get(glance['status'], 0),
        'OS-EXT-IMG-SIZE:size': glance['size']})
    server_id = metadata.get('instance_uuid')
    if server_id:
        shown['server'] = {'id': server_id,
                           'links': urls.links(req, 'v2.1', 'servers', server_id)}
    return shown


def _since(req):
    value = req.GET.get('changes-since')
    if value is None:
        return None
    try:
        return timeutils.normalize_time(timeutils.parse_isotime(value))
    except ValueError:
        raise wsgi.HTTPError(400, 'Invalid changes-since value') from None


def _int(req, name):
    value = req.GET.get(name)
    try:
        return None if value is None else int(value)
    except ValueError:
        raise wsgi.HTTPError(400, 'Invalid %s filter [%s]' % (name, value)) from None


def _matches(glance, req, since, min_ram, min_disk):
    query = req.GET
    server = query.get('server')
    checks = (
        ('name', glance['name']), ('status', glance['status'].upper()
                                   if 'status' in query else None),
        ('type', glance.get('image_type')))
    for key, value in checks:
        wanted = query.get(key)
        if wanted is not None and (wanted.upper() if key == 'status' else wanted) \
                != value:
            return False
    if server is not None and server.rsplit('/', 1)[-1] != glance.get('instance_uuid'):
        return False
    if since is not None and timeutils.normalize_time(
            timeutils.parse_isotime(glance['updated_at'])) < since:
        return False
    return ((min_ram is None or glance['min_ram'] >= min_ram)
            and (min_disk is None or glance['min_disk'] >= min_disk))


def _listing(req, view):
    catalog = _catalog(req)
    since, min_ram, min_disk = _since(req), _int(req, 'minRam'), _int(req, 'minDisk')
    found = [glance_views.view(image) for image in catalog.list_images()]
    found = [g for g in found if _matches(g, req, since, min_ram, min_disk)]
    found.sort(key=lambda g: (g['created_at'] or '', g['id']), reverse=True)
    return common.paged_response(req, 'images', found, view)


@wsgi.route('GET', '/v2.1/images')
def index(req):
    return _listing(req, basic)


@wsgi.route('GET', '/v2.1/images/detail')
def index_detail(req):
    return _listing(req, detail)


def _image(req, image_id):
    image = _catalog(req).show('image', image_id)
    if image['id'] != image_id:  # by id only, as Nova's
        raise wsgi.HTTPError(404, 'Image not found.')
    return image


@wsgi.route('GET', '/v2.1/images/{image_id}')
def show(req, image_id):
    return wsgi.json_response({'image': detail(req, glance_views.view(
        _image(req, image_id)))})


@wsgi.route('DELETE', '/v2.1/images')
def delete_no_image(req):
    """DELETE /images/ (an empty id): Nova's 404; the collection itself: 405."""
    _catalog(req)
    if req.path.endswith('/'):
        raise wsgi.HTTPError(404, 'Image not found.')
    raise wsgi.HTTPError(405, 'Method DELETE is not allowed here (allowed: GET).',
                         headers={'Allow': 'GET'})


@wsgi.route('DELETE', '/v2.1/images/{image_id}')
def delete(req, image_id):
    _image(req, image_id)
    _catalog(req).delete('image', image_id)
    return wsgi.empty_response(204)
