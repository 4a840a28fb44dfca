"""Glance's shapes: the image object, the list body, the schema documents, the error.

Images registered by an operator from files on the hosts are one row, a disk or a
kernel with a ramdisk: they show active and public, with their sha256 as
``os_hash_value`` and no md5 ``checksum``. The boot mode is the extra property
``provisioner_boot`` ("disk" or "kernel"). File paths on the servers are never
shown.
"""

import urllib.parse

from provisioner.api import common
from provisioner.api import wsgi
from provisioner.catalog import image_members
from provisioner.catalog import images


def glance_fault(status, message, exc=None):
    """Glance's (webob's) error body: {"message", "code": "404 Not Found", "title"}."""
    title = wsgi.TITLES.get(status, 'Error')
    return {'message': message, 'code': '%d %s' % (status, title), 'title': title}


def view(image):
    """Glance's image object for a provisioner image row.

    Images registered by path (no container_format) show as they always did:
    active, public, no owner, the sha256 as ``os_hash_value``; uploaded ones carry
    Glance's md5 ``checksum`` and sha512 ``os_hash_value``.
    """
    kernel_boot = bool(image.get('kernel_path'))
    if image.get('disk_format'):
        disk_format = image['disk_format']
    else:
        disk_format = 'aki' if kernel_boot else None
    registered = image.get('container_format') is None
    if registered:
        sha256 = image.get('disk_sha256') or image.get('kernel_sha256')
        hash_algo, hash_value = ('sha256' if sha256 else None), sha256
    else:
        hash_algo, hash_value = image.get('os_hash_algo'), image.get('os_hash_value')
    has_data = image.get('status', 'active') in ('active', 'deactivated')
    created = common.isotime(image.get('created_at'))
    body = {
        'id': image['id'], 'name': image['name'],
        'status': image.get('status') or 'active',
        'visibility': image.get('visibility') or 'public',
        'container_format': image.get('container_format') or 'bare',
        'disk_format': disk_format,
        'size': (image.get('size_bytes') or 0) if has_data else None,
        'virtual_size': image.get('virtual_size'),
        'min_disk': image.get('min_disk_gib') or 0, 'min_ram': image.get('min_ram_mib') or 0,
        'protected': bool(image.get('protected')),
        'os_hidden': bool(image.get('os_hidden')),
        'owner': image.get('owner'), 'checksum': image.get('checksum'),
        'os_hash_algo': hash_algo, 'os_hash_value': hash_value,
        'tags': list(image.get('tags') or []), 'created_at': created,
        'updated_at': common.isotime(image.get('updated_at')) if image.get('updated_at')
        else created,
        'self': '/v2/images/%s' % image['id'], 'file': '/v2/images/%s/file' % image['id'],
        'schema': '/v2/schemas/image',
        'provisioner_boot': 'kernel' if kernel_boot else 'disk',
    }
    for prop, column in images.COLUMN_PROPERTIES.items():
        if image.get(column):
            body[prop] = image[column]
    for prop, value in (image.get('properties') or {}).items():
        body.setdefault(prop, value)
    return body


def listing(req, shown, more):
    """Glance's list body, with a ``next`` link when more images remain."""
    body = {'images': shown, 'schema': '/v2/schemas/images', 'first': '/v2/images'}
    if more and shown:
        query = [(k, v) for k, v in req.GET.items() if k != 'marker']
        query.append(('marker', shown[-1]['id']))
        body['next'] = '/v2/images?%s' % urllib.parse.urlencode(query)
    return body


def image_schema():
    string = {'type': ['null', 'string']}
    return {
        'name': 'image', 'additionalProperties': {'type': 'string'},
        'links': [{'rel': 'self', 'href': '{self}'}, {'rel': 'enclosure', 'href': '{file}'},
                  {'rel': 'describedby', 'href': '{schema}'}],
        'properties': {
            'id': {'type': 'string', 'pattern': '^([0-9a-fA-F]){8}-([0-9a-fA-F]){4}-'
                                                '([0-9a-fA-F]){4}-([0-9a-fA-F]){4}-'
                                                '([0-9a-fA-F]){12}$'},
            'name': {'type': ['null', 'string'], 'maxLength': 255},
            'status': {'type': 'string', 'readOnly': True,
                       'enum': ['queued', 'saving', 'active', 'killed', 'deleted',
                                'deactivated']},
            'visibility': {'type': 'string', 'enum': list(images.VISIBILITIES)},
            'protected': {'type': 'boolean'}, 'os_hidden': {'type': 'boolean'},
            'checksum': dict(string, readOnly=True, maxLength=32),
            'os_hash_algo': dict(string, readOnly=True, maxLength=64),
            'os_hash_value': dict(string, readOnly=True, maxLength=128),
            'owner': dict(string, maxLength=255),
            'size': {'type': ['null', 'integer'], 'readOnly': True},
            'virtual_size': {'type': ['null', 'integer'], 'readOnly': True},
            'container_format': {'type': ['null', 'string'],
                                 'enum': [None] + list(images.CONTAINER_FORMATS)},
            'disk_format': {'type': ['null', 'string'],
                            'enum': [None] + list(images.DISK_FORMATS)},
            'created_at': {'type': 'string', 'readOnly': True},
            'updated_at': {'type': 'string', 'readOnly': True},
            'tags': {'type': 'array', 'items': {'type': 'string', 'maxLength': 255}},
            'min_ram': {'type': 'integer'}, 'min_disk': {'type': 'integer'},
            'self': {'type': 'string', 'readOnly': True},
            'file': {'type': 'string', 'readOnly': True},
            'schema': {'type': 'string', 'readOnly': True},
            'kernel_id': dict(string, description='ID of an aki image to boot with.'),
            'ramdisk_id': dict(string, description='ID of an ari image to boot with.'),
            'os_command_line': {'type': 'string',
                                'description': 'Kernel command line (direct kernel '
                                               'boot).'},
        },
    }


def images_schema():
    return {
        'name': 'images',
        'properties': {'images': {'type': 'array', 'items': image_schema()},
                       'schema': {'type': 'string'}, 'first': {'type': 'string'},
                       'next': {'type': 'string'}},
        'links': [{'rel': 'first', 'href': '{first}'}, {'rel': 'next', 'href': '{next}'},
                  {'rel': 'describedby', 'href': '{schema}'}]}


def member_view(member):
    """Glance's image member."""
    return {'image_id': member['image_id'], 'member_id': member['member_id'],
            'status': member['status'],
            'created_at': common.isotime(member['created_at']),
            'updated_at': common.isotime(member['updated_at']),
            'schema': '/v2/schemas/member'}


def member_schema():
    stamp = {'type': 'string', 'description': 'Date and time (ISO 8601).'}
    return {'name': 'member', 'properties': {
        'image_id': {'type': 'string', 'description': 'An identifier for the image.'},
        'member_id': {'type': 'string', 'description': 'The project the image is '
                                                       'shared with.'},
        'status': {'type': 'string', 'enum': list(image_members.STATUSES),
                   'description': 'The status of this image member.'},
        'created_at': stamp, 'updated_at': stamp, 'schema': {'type': 'string',
                                                             'readOnly': True}}}


def members_schema():
    return {'name': 'members',
            'properties': {'members': {'type': 'array', 'items': member_schema()},
                           'schema': {'type': 'string'}},
            'links': [{'rel': 'describedby', 'href': '{schema}'}]}
