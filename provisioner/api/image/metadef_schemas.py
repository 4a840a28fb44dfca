"""Glance's JSON schema documents of the metadata definitions (/v2/schemas/metadefs),
the shapes the metadefs API reads and answers."""

from provisioner.api import wsgi

_STAMPS = {'created_at': {'type': 'string', 'readOnly': True, 'format': 'date-time',
                          'description': 'Date and time of the creation'},
           'updated_at': {'type': 'string', 'readOnly': True, 'format': 'date-time',
                          'description': 'Date and time of the last modification'}}
_PROPERTY = {'type': 'object', 'required': ['title', 'type'], 'properties': {
    'name': {'type': 'string', 'maxLength': 80}, 'title': {'type': 'string'},
    'description': {'type': 'string'}, 'type': {'type': 'string', 'enum': [
        'array', 'boolean', 'integer', 'number', 'object', 'string', None]},
    'enum': {'type': 'array'}, 'default': {}, 'readonly': {'type': 'boolean'},
    'operators': {'type': 'array', 'items': {'type': 'string'}}}}
_ASSOCIATION = {'type': 'object', 'required': ['name'], 'properties': dict({
    'name': {'type': 'string', 'maxLength': 80,
             'description': 'Resource type names should be aligned with Heat '
                            'resource types whenever possible'},
    'prefix': {'type': 'string', 'maxLength': 80},
    'properties_target': {'type': 'string', 'maxLength': 80}}, **_STAMPS)}
_OBJECT = {'type': 'object', 'required': ['name'], 'properties': dict({
    'name': {'type': 'string', 'maxLength': 80}, 'description': {'type': 'string'},
    'required': {'type': 'array', 'items': {'type': 'string'}},
    'properties': {'type': 'object', 'additionalProperties': _PROPERTY},
    'schema': {'type': 'string', 'readOnly': True},
    'self': {'type': 'string', 'readOnly': True}}, **_STAMPS)}
_TAG = {'type': 'object', 'required': ['name'], 'properties': dict({
    'name': {'type': 'string', 'maxLength': 255}}, **_STAMPS)}
_NAMESPACE = {'type': 'object', 'required': ['namespace'], 'properties': dict({
    'namespace': {'type': 'string', 'maxLength': 80,
                  'description': 'The unique namespace text.'},
    'display_name': {'type': 'string', 'maxLength': 80},
    'description': {'type': 'string', 'maxLength': 500},
    'visibility': {'type': 'string', 'enum': ['public', 'private']},
    'protected': {'type': 'boolean'}, 'owner': {'type': 'string', 'maxLength': 255},
    'self': {'type': 'string'}, 'schema': {'type': 'string'},
    'resource_type_associations': {'type': 'array', 'items': _ASSOCIATION},
    'properties': {'type': 'object', 'additionalProperties': _PROPERTY},
    'objects': {'type': 'array', 'items': _OBJECT},
    'tags': {'type': 'array', 'items': _TAG}}, **_STAMPS)}


def _one(name, body):
    return dict(body, name=name, additionalProperties=False)


def _many(name, key, item, link):
    return {'name': name, 'links': [{'rel': 'first', 'href': link},
                                    {'rel': 'next', 'href': '{next}'},
                                    {'rel': 'describedby', 'href': '{schema}'}],
            'properties': {key: {'type': 'array', 'items': item},
                           'first': {'type': 'string'}, 'next': {'type': 'string'},
                           'schema': {'type': 'string'}}}


_by_kind = {
    'namespace': _one('namespace', _NAMESPACE),
    'namespaces': _many('namespaces', 'namespaces', _NAMESPACE,
                        '{first}'),
    'resource_type': _one('resource_type_association', _ASSOCIATION),
    'resource_types': _many('resource_type_associations',
                            'resource_type_associations', _ASSOCIATION, '{first}'),
    'object': _one('object', _OBJECT),
    'objects': _many('objects', 'objects', _OBJECT, '{first}'),
    'property': _one('property', _PROPERTY),
    'properties': {'name': 'properties', 'properties': {'properties': {
        'type': 'object', 'additionalProperties': _PROPERTY}}},
    'tag': _one('tag', _TAG),
    'tags': _many('tags', 'tags', _TAG, '{first}'),
}


@wsgi.route('GET', '/v2/schemas/metadefs/{kind}')
def schema(req, kind):
    if kind not in _by_kind:
        raise wsgi.HTTPError(404, 'The resource could not be found.')
    return wsgi.json_response(_by_kind[kind])
