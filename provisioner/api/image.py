"""Image v2 (a read-only Glance subset) over provisioner's registered images.

Images are registered by an operator (``provisioner image create``) from files on
the hosts; here they are listed, shown and deleted. Every image is public and
active. An image is one row, a disk or a kernel with a ramdisk (direct kernel
boot): Glance would keep the kernel and ramdisk as images of their own, so the
boot mode is the extra property ``provisioner_boot`` ("disk" or "kernel") and the
kernel command line is ``os_command_line``, the property Nova reads for it. Glance
images carry an md5 ``checksum``; provisioner knows only sha256, so ``checksum`` is
null and ``os_hash_algo``/``os_hash_value`` carry it. File paths on the servers
are never shown.
"""

import urllib.parse

from provisioner.api import app
from provisioner.api import common
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api
from provisioner import exception

VERSIONS = ['2.%d' % minor for minor in range(15, -1, -1)]  # newest first


def glance_fault(status, message):
    """Glance's (webob's) error body: {"message", "code": "404 Not Found", "title"}."""
    title = wsgi.TITLES.get(status, 'Error')
    return {'message': message, 'code': '%d %s' % (status, title), 'title': title}


SERVICE = wsgi.Service('image', fault=glance_fault)


@SERVICE.route('GET', '/', public=True)
def versions(req):
    base = app.public_base_url(req)
    return wsgi.json_response({'versions': [
        {'id': 'v' + version, 'status': 'CURRENT' if index == 0 else 'SUPPORTED',
         'links': [{'rel': 'self', 'href': '%s/image/v2/' % base}]}
        for index, version in enumerate(VERSIONS)]}, 300)


def _catalog(req):
    return catalog_api.CatalogAPI(req.context, None)


def view(image):
    """Glance's image object for a provisioner image row."""
    kernel_boot = bool(image.get('kernel_path'))
    if image.get('disk_format'):
        disk_format = image['disk_format']
    else:
        disk_format = 'aki' if kernel_boot else None
    sha256 = image.get('disk_sha256') or image.get('kernel_sha256')
    created = common.isotime(image.get('created_at'))
    body = {
        'id': image['id'], 'name': image['name'], 'status': 'active',
        'visibility': 'public', 'container_format': 'bare', 'disk_format': disk_format,
        'size': image.get('size_bytes') or 0, 'virtual_size': None,
        'min_disk': image.get('min_disk_gib') or 0, 'min_ram': image.get('min_ram_mib') or 0,
        'protected': False, 'os_hidden': False, 'owner': None, 'checksum': None,
        'os_hash_algo': 'sha256' if sha256 else None, 'os_hash_value': sha256,
        'tags': [], 'created_at': created, 'updated_at': created,
        'self': '/v2/images/%s' % image['id'], 'file': '/v2/images/%s/file' % image['id'],
        'schema': '/v2/schemas/image',
        'provisioner_boot': 'kernel' if kernel_boot else 'disk',
    }
    for column, prop in (('arch', 'architecture'), ('hypervisor_type', 'hypervisor_type'),
                         ('cmdline', 'os_command_line')):
        if image.get(column):
            body[prop] = image[column]
    return body


def _find(req, image_id):
    """The image with this id; 404 for anything else, names included (Glance's way)."""
    image = _catalog(req).show('image', image_id)
    if image['id'] != image_id:
        raise exception.NotFound(kind='Image', name=image_id)
    return image


def _matches(image, query):
    name = query.get('name')
    if name is not None and image['name'] != name:
        return False
    ids = query.get('id')
    if ids is not None:
        wanted = ids[3:].split(',') if ids.startswith('in:') else [ids]
        if image['id'] not in wanted:
            return False
    if query.get('status', 'active').lower() != 'active':
        return False
    if query.get('visibility', 'public').lower() not in ('public', 'all'):
        return False
    if query.get('os_hidden', 'false').lower() == 'true':
        return False
    if query.get('tag') is not None or query.get('owner') is not None:
        return False  # provisioner images have no tags and no owner
    if query.get('disk_format') not in (None, image['disk_format']):
        return False
    return True


_SORT_KEYS = ('name', 'id', 'created_at', 'updated_at', 'size', 'status',
              'disk_format', 'min_ram', 'min_disk')


def _sort_order(req):
    """[(key, descending)] from ?sort=name:asc,size or ?sort_key=&sort_dir= (Glance)."""
    if req.GET.get('sort'):
        pairs = [part.partition(':')[::2] for part in req.GET['sort'].split(',')]
    else:
        keys = req.GET.getall('sort_key') or ['created_at']
        dirs = req.GET.getall('sort_dir') or ['desc']
        pairs = [(key, dirs[min(i, len(dirs) - 1)]) for i, key in enumerate(keys)]
    order = []
    for key, direction in pairs:
        key, direction = key.strip(), (direction.strip() or 'desc').lower()
        if key not in _SORT_KEYS:
            raise wsgi.HTTPError(400, 'Invalid sort key: %s. You can sort by %s.'
                                      % (key, ', '.join(_SORT_KEYS)))
        if direction not in ('asc', 'desc'):
            raise wsgi.HTTPError(400, 'Invalid sort direction: %s (asc or desc).'
                                      % direction)
        order.append((key, direction == 'desc'))
    return order


def _sorted(images, order):
    for key, descending in reversed(order):  # a stable sort per key, last key first
        images.sort(key=lambda img: (img[key] is None,
                                     '' if img[key] is None else img[key]),
                    reverse=descending)
    return images


@SERVICE.route('GET', '/v2/images')
def list_images(req):
    images = [view(i) for i in _catalog(req).list('image')]
    images = _sorted([i for i in images if _matches(i, req.GET)], _sort_order(req))
    shown, more = common.page(req, images)
    body = {'images': shown, 'schema': '/v2/schemas/images', 'first': '/v2/images'}
    if more and shown:
        query = [(k, v) for k, v in req.GET.items() if k != 'marker']
        query.append(('marker', shown[-1]['id']))
        body['next'] = '/v2/images?%s' % urllib.parse.urlencode(query)
    return wsgi.json_response(body)


@SERVICE.route('GET', '/v2/images/{image_id}')
def show_image(req, image_id):
    return wsgi.json_response(view(_find(req, image_id)))


@SERVICE.route('DELETE', '/v2/images/{image_id}')
def delete_image(req, image_id):
    """204; 409 while an instance uses it (the catalog refuses), 403 for non-admins."""
    _find(req, image_id)
    _catalog(req).delete('image', image_id)
    return wsgi.empty_response(204)
