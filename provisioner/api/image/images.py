"""Image v2 (a Glance subset): create, upload, download, update, list, delete.

``POST /v2/images`` makes a ``queued`` image of the caller's project (private
unless an admin makes it public); ``PUT .../file`` streams its bytes into the
image store (never whole in memory, hashed while written, checked against its
disk_format, renamed into place only when complete); then it is ``active`` and
boots like any image. Kernel (aki) and ramdisk (ari) are images of their own,
linked by the ``kernel_id``/``ramdisk_id`` properties; the kernel command line
is ``os_command_line``, the property Nova reads for it.

Images registered by an operator from files on the hosts (``provisioner image
create`` all-in-one) are one row, a disk or a kernel with a ramdisk: they stay
active and public, with their sha256 as ``os_hash_value`` and no md5
``checksum``. The boot mode is the extra property ``provisioner_boot`` ("disk" or
"kernel"). File paths on the servers are never shown, and no request names one:
clients send bytes.
"""

import json
import os

import webob

from provisioner.api import common
from provisioner.api.image import schemas
from provisioner.api.image import views
from provisioner.api import urls
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.catalog import api as catalog_api
from provisioner.catalog import images
from provisioner import exception
from provisioner.image import store

def _catalog(req):
    return catalog_api.CatalogAPI(req.context, None)


def _find(req, image_id):
    """The image with this id; 404 for anything else, names included (Glance's way)."""
    image = _catalog(req).show('image', image_id)
    if image['id'] != image_id:
        raise exception.NotFound(kind='Image', name=image_id)
    return image


def _size_filter(query, key):
    value = query.get(key)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise wsgi.HTTPError(400, 'Invalid %s: %s (an integer number of bytes).'
                                  % (key, value)) from None


def _size_matches(size, query):
    """Glance's size, size_min and size_max filters (bytes); no size: no match."""
    wanted = [_size_filter(query, key) for key in ('size', 'size_min', 'size_max')]
    if wanted == [None, None, None]:
        return True
    exact, low, high = wanted
    return size is not None and exact in (None, size) and (low is None or size >= low) \
        and (high is None or size <= high)


def _matches(image, query):
    name = query.get('name')
    if name is not None and image['name'] != name:
        return False
    ids = query.get('id')
    if ids is not None:
        wanted = ids[3:].split(',') if ids.startswith('in:') else [ids]
        if image['id'] not in wanted:
            return False
    if query.get('status') not in (None, image['status']):
        return False
    if query.get('visibility', 'all').lower() not in ('all', image['visibility']):
        return False
    if (query.get('os_hidden', 'false').lower() == 'true') != image['os_hidden']:
        return False
    if not _size_matches(image['size'], query):
        return False
    if not set(query.getall('tag')) <= set(image['tags']):
        return False
    for key in ('owner', 'disk_format', 'container_format'):
        if query.get(key) not in (None, image[key]):
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


_MEMBER_STATUSES = ('accepted', 'pending', 'rejected', 'all')


def _no_image_id(req):
    """Glance routes no /v2/images/ (an empty image id): 404 whatever the method."""
    if req.path.endswith('/'):
        raise exception.NotFound(kind='Image', name='')


@wsgi.route('GET', '/v2/images')
def list_images(req):
    _no_image_id(req)
    member_status = req.GET.get('member_status', 'accepted')
    if member_status not in _MEMBER_STATUSES:
        raise wsgi.HTTPError(400, 'Invalid member_status: %s (%s).'
                             % (member_status, ', '.join(_MEMBER_STATUSES)))
    listed = _catalog(req).list_images(member_status)
    images = [views.view(i) for i in listed]
    images = _sorted([i for i in images if _matches(i, req.GET)], _sort_order(req))
    return wsgi.json_response(views.listing(req, *common.page(req, images)))


@wsgi.route('GET', '/v2/images/{image_id}')
def show_image(req, image_id):
    return wsgi.json_response(views.view(_find(req, image_id)))


@wsgi.route('DELETE', '/v2/images')
def delete_no_image(req):
    _no_image_id(req)
    raise wsgi.HTTPError(405, 'Method DELETE is not allowed here (allowed: GET, POST).',
                         headers={'Allow': 'GET, POST'})


@wsgi.route('DELETE', '/v2/images/{image_id}')
def delete_image(req, image_id):
    """204; 409 while an instance uses it (the catalog refuses), 403 for non-admins."""
    _find(req, image_id)
    _catalog(req).delete('image', image_id)
    return wsgi.empty_response(204)


# -- create, update, upload, download --------------------------------------------------

# Keys of a create request that are not properties.
_CORE = ('name', 'id', 'disk_format', 'container_format', 'visibility', 'min_ram',
         'min_disk', 'protected', 'owner', 'os_hidden')
_PATCH_TYPES = ('application/openstack-images-v2.1-json-patch',
                'application/openstack-images-v2.0-json-patch')


def _fields(body):
    """Split a create request into the fields of images.add and its properties."""
    fields = {key: body[key] for key in _CORE if body.get(key) is not None}
    extra = {k: v for k, v in body.items()
             if k not in _CORE and k != 'tags'}
    for key in extra:
        if key in images.READ_ONLY or key.startswith('os_glance'):
            raise wsgi.HTTPError(403, 'Attribute \'%s\' is read-only.' % key)
    fields['image_id'] = fields.pop('id', None)
    fields['properties'] = extra
    fields['tags'] = body.get('tags')
    return fields


@wsgi.route('POST', '/v2/images')
@validation.schema(schemas.CREATE)
def create_image(req, body):
    """201 and the queued image; its data comes with PUT .../file."""
    _no_image_id(req)
    image = _catalog(req).add_image(**_fields(body))
    return wsgi.json_response(views.view(image), 201,
                              {'Location': '%s/image/v2/images/%s'
                                           % (urls.public_base_url(req), image['id'])})


def _as_op(change):
    """One change of the 2.0 media type ({"replace": "/name", "value": ...}, the
    draft JSON patch Glance still takes) in the 2.1 form ({"op", "path", "value"})."""
    if not isinstance(change, dict):
        return change  # the schema says what is wrong with it
    ops = [op for op in ('add', 'replace', 'remove') if op in change]
    if len(ops) != 1:
        raise wsgi.HTTPError(400, 'Operation objects must contain exactly one member '
                                  'named "add", "remove", or "replace".')
    op = ops[0]
    converted = {'op': op, 'path': change[op]}
    if 'value' in change:
        converted['value'] = change['value']
    return converted


def _patch_body(req):
    """The JSON-patch list of a PATCH (its own media type, as Glance wants): 2.1's
    operations, or 2.0's (what tempest sends)."""
    if req.content_type not in _PATCH_TYPES:
        raise wsgi.HTTPError(415, 'Content-Type must be %s, not %s.'
                             % (_PATCH_TYPES[0], req.content_type or 'none'))
    raw = req.body_file.read(req.max_body_size + 1 if req.max_body_size else -1)
    if req.max_body_size and len(raw) > req.max_body_size:
        raise wsgi.HTTPError(413, 'Request is too large; the limit is %d bytes.'
                                  % req.max_body_size)
    try:
        ops = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise wsgi.HTTPError(400, 'Malformed JSON patch: %s' % exc) from None
    if req.content_type == _PATCH_TYPES[1] and isinstance(ops, list):
        ops = [_as_op(change) for change in ops]
    return validation.validate(ops, schemas.PATCH)


def _patched_tags(tags, op, index):
    """The tag list after one JSON-patch operation on /tags or /tags/<n> (or /tags/-,
    as openstacksdk's computed patches send them)."""
    tags = list(tags)
    if not index:
        if op['op'] == 'remove':
            return []
        if not isinstance(op.get('value'), list):
            raise wsgi.HTTPError(400, '/tags takes a list of strings.')
        return op['value']
    position = index[0]
    if len(index) != 1 or not (position == '-' or position.isdigit()):
        raise wsgi.HTTPError(400, 'Unsupported path %s.' % op['path'])
    end = len(tags) if op['op'] == 'add' else len(tags) - 1
    at = end if position == '-' else int(position)
    if at > end or (position == '-' and op['op'] != 'add'):
        raise wsgi.HTTPError(409, 'No tag at %s.' % op['path'])
    if op['op'] == 'remove':
        del tags[at]
    elif op['op'] == 'replace':
        tags[at] = op.get('value')
    else:
        tags.insert(at, op.get('value'))
    return tags


def _changes(image, ops):
    """{field or property: new value, None to remove} from JSON-patch operations."""
    changes = {}
    current = views.view(image)
    for op in ops:  # each an add, replace (with its value) or remove of a path
        segments = op['path'].lstrip('/').split('/')
        if segments[0] == 'tags' and op['path'].startswith('/'):
            changes['tags'] = _patched_tags(changes.get('tags', current['tags']), op,
                                            segments[1:])
            continue
        if not op['path'].startswith('/') or len(segments) != 1 or not segments[0]:
            raise wsgi.HTTPError(400, 'Unsupported path %s: give /<attribute> '
                                      '(locations are not supported).' % op['path'])
        key = segments[0].replace('~1', '/').replace('~0', '~')
        if key in images.READ_ONLY or key.startswith('os_glance'):
            raise wsgi.HTTPError(403, 'Attribute \'%s\' is read-only.' % key)
        if op['op'] == 'remove':
            if key in _CORE:
                raise wsgi.HTTPError(403, 'Attribute \'%s\' cannot be removed.' % key)
            if key not in current and key not in changes:
                raise wsgi.HTTPError(409, 'Property %s does not exist.' % key)
            changes[key] = None
        else:
            changes[key] = op['value']
    return changes


@wsgi.route('PATCH', '/v2/images/{image_id}')
def update_image(req, image_id):
    """``openstack image set``: name, min_ram/min_disk, visibility, properties."""
    image = _find(req, image_id)
    ops = _patch_body(req)
    return wsgi.json_response(views.view(_catalog(req).update_image(image['id'],
                                                              _changes(image, ops))))


@wsgi.route('POST', '/v2/images/{image_id}/actions/deactivate')
def deactivate_image(req, image_id):
    """204: the data stays, but only an admin downloads it, and no one boots it."""
    _catalog(req).deactivate_image(_find(req, image_id)['id'])
    return wsgi.empty_response(204)


@wsgi.route('POST', '/v2/images/{image_id}/actions/reactivate')
def reactivate_image(req, image_id):
    _catalog(req).reactivate_image(_find(req, image_id)['id'])
    return wsgi.empty_response(204)


@wsgi.route('PUT', '/v2/images/{image_id}/tags/{tag}')
def add_tag(req, image_id, tag):
    """``openstack image set --tag``: 204, also for a tag the image has."""
    image = _find(req, image_id)
    tags = list(image.get('tags') or [])
    if tag not in tags:
        _catalog(req).update_image(image['id'], {'tags': tags + [tag]})
    return wsgi.empty_response(204)


@wsgi.route('DELETE', '/v2/images/{image_id}/tags/{tag}')
def delete_tag(req, image_id, tag):
    """``openstack image unset --tag``: 204; 404 for a tag the image does not have."""
    image = _find(req, image_id)
    tags = list(image.get('tags') or [])
    if tag not in tags:
        raise wsgi.HTTPError(404, 'Tag %s not found.' % tag)
    _catalog(req).update_image(image['id'], {'tags': [t for t in tags if t != tag]})
    return wsgi.empty_response(204)


@wsgi.route('PUT', '/v2/images/{image_id}/file')
def upload_image(req, image_id):
    """204 once the data is stored; the body is streamed in chunks, never held.
    The service role (a host uploading a server's snapshot) reaches any image by id.
    """
    if images.SERVICE_ROLE not in req.context.roles:
        _find(req, image_id)
    if req.content_type != 'application/octet-stream':
        raise wsgi.HTTPError(415, 'Content-Type must be application/octet-stream, not '
                                  '%s.' % (req.content_type or 'none'))
    try:
        _catalog(req).upload_image(image_id, req.body_file, req.content_length)
    except (webob.request.DisconnectionError, ConnectionError, TimeoutError) as exc:
        raise wsgi.HTTPError(400, 'The upload was cut off (%s); the image stays queued: '
                                  'upload it again.' % exc) from None
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v2/images/{image_id}/file')
def download_image(req, image_id):
    """200 and the bytes, streamed from the store; 204 while the image has none.

    ``?part=disk|kernel|ramdisk`` (provisioner's, for hosts' workers) sends that
    file of what a boot of the image reads; the server picks the file, never the
    client.
    """
    image, path = _catalog(req).image_data(image_id, req.GET.get('part'))
    if image['id'] != image_id:
        raise exception.NotFound(kind='Image', name=image_id)
    if path is None:
        return wsgi.empty_response(204)
    response = webob.Response(status=200, content_type='application/octet-stream')
    if store.rbd_store.is_location(path):  # streamed from RBD as it is read
        response.app_iter = store.rbd_store.Reader(path)
        response.content_length = response.app_iter.size
    else:
        try:
            data = open(path, 'rb')
        except OSError:
            raise exception.NotFound(message='The data of image %s is missing from '
                                             'the image store.' % image_id) from None
        response.app_iter = store.FileChunks(data)
        response.content_length = os.fstat(data.fileno()).st_size
    if image['checksum']:
        response.headers['Content-MD5'] = image['checksum']
    return response




@wsgi.route('GET', '/v2/images/{image_id}/tasks')
def image_tasks(req, image_id):
    """Glance's tasks of an image (2.12): none here, the image API runs no import
    or location tasks."""
    _find(req, image_id)
    return wsgi.json_response({'tasks': []})


@wsgi.route('GET', '/v2/info/import')
def import_info(req):
    """Glance's import methods: none (data comes with PUT .../file, not an import)."""
    return wsgi.json_response({'import-methods': {
        'description': 'Import methods available.', 'type': 'array', 'value': []}})


@wsgi.route('GET', '/v2/schemas/image')
def image_schema(req):
    return wsgi.json_response(views.image_schema())


@wsgi.route('GET', '/v2/schemas/images')
def images_schema(req):
    return wsgi.json_response(views.images_schema())
