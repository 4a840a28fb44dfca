"""Glance's metadata definitions API (/v2/metadefs): namespaces, their objects,
properties, tags and resource type associations, and their schema documents.
provisioner.catalog.metadefs keeps them and says who may see or change them.
"""

import datetime

from provisioner.api import common
from provisioner.api import validation
from provisioner.api import wsgi
from provisioner.catalog import metadefs
from provisioner import exception

_NS = '/v2/metadefs/namespaces'
_NAME = {'type': 'string', 'minLength': 1, 'maxLength': 80}
_TEXT = {'type': ['string', 'null'], 'maxLength': 500}
NAMESPACE = {'type': 'object', 'required': ['namespace'], 'properties': {
    'namespace': _NAME, 'display_name': _TEXT, 'description': _TEXT,
    'visibility': {'type': 'string', 'enum': ['public', 'private']},
    'protected': {'type': 'boolean'}, 'owner': {'type': ['string', 'null']},
    'resource_type_associations': {'type': 'array'}, 'properties': {'type': 'object'},
    'objects': {'type': 'array'}, 'tags': {'type': 'array'}}}
NAMED = {'type': 'object', 'required': ['name'], 'properties': {'name': _NAME}}
TAGS = {'type': 'object', 'required': ['tags'], 'properties': {'tags': {
    'type': 'array', 'items': NAMED}}}


def _now():
    return common.isotime(datetime.datetime.now(datetime.timezone.utc))


def _stamped(definition, before=None):
    now = _now()
    return dict(definition, created_at=(before or {}).get('created_at', now),
                updated_at=now)


def _namespace_view(found, whole=True):
    name = found['namespace']
    view = {key: found[key] for key in ('namespace', 'display_name', 'description',
                                        'visibility', 'protected', 'owner')
            if found[key] is not None or key in ('visibility', 'protected')}
    view.update(created_at=common.isotime(found['created_at']),
                updated_at=common.isotime(found['updated_at']),
                schema='/v2/schemas/metadefs/namespace', self='%s/%s' % (_NS, name))
    if found['resource_type_associations']:
        view['resource_type_associations'] = list(
            found['resource_type_associations'].values())
    if whole:
        if found['properties']:
            view['properties'] = found['properties']
        if found['objects']:
            view['objects'] = [_object_view(name, o) for o in found['objects'].values()]
        if found['tags']:
            view['tags'] = [{'name': t} for t in found['tags']]
    return view


def _object_view(namespace, found):
    return dict(found, schema='/v2/schemas/metadefs/object',
                self='%s/%s/objects/%s' % (_NS, namespace, found['name']))


# -- namespaces ---------------------------------------------------------------------

@wsgi.route('GET', _NS)
def list_namespaces(req):
    found = metadefs.list_namespaces(req.context)
    for key in ('visibility',):
        if req.GET.get(key):
            found = [n for n in found if n[key] == req.GET[key]]
    if req.GET.get('resource_types'):
        wanted = set(req.GET['resource_types'].split(','))
        found = [n for n in found if wanted & set(n['resource_type_associations'])]
    return wsgi.json_response({'namespaces': [_namespace_view(n, whole=False)
                                              for n in found],
                               'first': _NS, 'schema': '/v2/schemas/metadefs/namespaces'})


@wsgi.route('POST', _NS)
@validation.schema(NAMESPACE)
def create_namespace(req, body):
    parts = {
        'resource_type_associations': {r['name']: _stamped(r) for r in
                                       body.get('resource_type_associations') or ()},
        'properties': {k: dict(v, name=k) for k, v in
                       (body.get('properties') or {}).items()},
        'objects': {o['name']: _stamped(o) for o in body.get('objects') or ()},
        'tags': {t['name']: _stamped({}) for t in body.get('tags') or ()}}
    created = metadefs.create(req.context, body['namespace'], body, parts)
    return wsgi.json_response(_namespace_view(created), 201)


@wsgi.route('GET', _NS + '/{namespace}')
def show_namespace(req, namespace):
    return wsgi.json_response(_namespace_view(metadefs.show(req.context, namespace)))


@wsgi.route('PUT', _NS + '/{namespace}')
@validation.schema(NAMESPACE)
def update_namespace(req, namespace, body):
    return wsgi.json_response(_namespace_view(metadefs.update(req.context, namespace,
                                                              body)))


@wsgi.route('DELETE', _NS + '/{namespace}')
def delete_namespace(req, namespace):
    metadefs.delete(req.context, namespace)
    return wsgi.empty_response(204)


# -- the parts of a namespace: objects, properties, tags, resource types -------------

def _change(req, namespace, part, change):
    return metadefs.change_part(req.context, namespace, part, change)


def _missing(kind, name, namespace):
    return exception.NotFound(kind='Metadata definition %s' % kind,
                              name='%s in namespace %s' % (name, namespace))


def _put(kind, name, namespace, definition, replace=None):
    """A change that adds ``definition`` as ``name`` (409 if taken), or replaces
    the one named ``replace`` (404 if absent)."""
    def change(found):
        if replace is not None and replace not in found:
            raise _missing(kind, replace, namespace)
        if name in found and name != replace:
            raise exception.Conflict(reason='A metadata definition %s with name=%s '
                                            'already exists in namespace=%s.'
                                     % (kind, name, namespace))
        before = found.pop(replace, None) if replace is not None else None
        found[name] = _stamped(definition, before)
        return found[name]
    return change


def _drop(kind, name, namespace):
    def change(found):
        if name not in found:
            raise _missing(kind, name, namespace)
        del found[name]
    return change


def _one(req, namespace, part, kind, name):
    found = metadefs.show(req.context, namespace)[part]
    if name not in found:
        raise _missing(kind, name, namespace)
    return found[name]


@wsgi.route('GET', _NS + '/{namespace}/objects')
def list_objects(req, namespace):
    found = metadefs.show(req.context, namespace)['objects']
    return wsgi.json_response({'objects': [_object_view(namespace, o)
                                           for o in found.values()],
                               'schema': 'v2/schemas/metadefs/objects'})


@wsgi.route('POST', _NS + '/{namespace}/objects')
@validation.schema(NAMED)
def create_object(req, namespace, body):
    made = _change(req, namespace, 'objects', _put('object', body['name'], namespace,
                                                   dict(body)))
    return wsgi.json_response(_object_view(namespace, made), 201)


@wsgi.route('GET', _NS + '/{namespace}/objects/{name}')
def show_object(req, namespace, name):
    return wsgi.json_response(_object_view(namespace, _one(req, namespace, 'objects',
                                                           'object', name)))


@wsgi.route('PUT', _NS + '/{namespace}/objects/{name}')
@validation.schema(NAMED)
def update_object(req, namespace, name, body):
    made = _change(req, namespace, 'objects', _put('object', body['name'], namespace,
                                                   dict(body), replace=name))
    return wsgi.json_response(_object_view(namespace, made))


@wsgi.route('DELETE', _NS + '/{namespace}/objects/{name}')
def delete_object(req, namespace, name):
    _change(req, namespace, 'objects', _drop('object', name, namespace))
    return wsgi.empty_response(204)


def _property(found):
    return {k: v for k, v in found.items() if k not in ('created_at', 'updated_at')}


@wsgi.route('GET', _NS + '/{namespace}/properties')
def list_properties(req, namespace):
    found = metadefs.show(req.context, namespace)['properties']
    return wsgi.json_response({'properties': {k: _property(v) for k, v in found.items()}})


@wsgi.route('POST', _NS + '/{namespace}/properties')
@validation.schema(NAMED)
def create_property(req, namespace, body):
    made = _change(req, namespace, 'properties', _put('property', body['name'],
                                                      namespace, dict(body)))
    return wsgi.json_response(_property(made), 201)


@wsgi.route('GET', _NS + '/{namespace}/properties/{name}')
def show_property(req, namespace, name):
    return wsgi.json_response(_property(_one(req, namespace, 'properties', 'property',
                                             name)))


@wsgi.route('PUT', _NS + '/{namespace}/properties/{name}')
@validation.schema(NAMED)
def update_property(req, namespace, name, body):
    made = _change(req, namespace, 'properties', _put('property', body['name'],
                                                      namespace, dict(body),
                                                      replace=name))
    return wsgi.json_response(_property(made))


@wsgi.route('DELETE', _NS + '/{namespace}/properties/{name}')
def delete_property(req, namespace, name):
    _change(req, namespace, 'properties', _drop('property', name, namespace))
    return wsgi.empty_response(204)


def _tag_view(name, found):
    return {'name': name, 'created_at': found['created_at'],
            'updated_at': found['updated_at']}


@wsgi.route('GET', _NS + '/{namespace}/tags')
def list_tags(req, namespace):
    found = metadefs.show(req.context, namespace)['tags']
    return wsgi.json_response({'tags': [_tag_view(k, v) for k, v in found.items()]})


@wsgi.route('POST', _NS + '/{namespace}/tags')
@validation.schema(TAGS)
def create_tags(req, namespace, body):
    """Glance's bulk create: the namespace's tags become these."""
    names = [t['name'] for t in body['tags']]
    if len(set(names)) != len(names):
        raise exception.Conflict(reason='A tag is given twice.')

    def replace(found):
        found.clear()
        found.update({name: _stamped({}) for name in names})
        return found
    made = _change(req, namespace, 'tags', replace)
    return wsgi.json_response({'tags': [_tag_view(k, v) for k, v in made.items()]}, 201)


@wsgi.route('DELETE', _NS + '/{namespace}/tags')
def delete_tags(req, namespace):
    _change(req, namespace, 'tags', lambda found: found.clear())
    return wsgi.empty_response(204)


@wsgi.route('POST', _NS + '/{namespace}/tags/{name}')
def create_tag(req, namespace, name):
    made = _change(req, namespace, 'tags', _put('tag', name, namespace, {}))
    return wsgi.json_response(_tag_view(name, made), 201)


@wsgi.route('GET', _NS + '/{namespace}/tags/{name}')
def show_tag(req, namespace, name):
    return wsgi.json_response(_tag_view(name, _one(req, namespace, 'tags', 'tag', name)))


@wsgi.route('PUT', _NS + '/{namespace}/tags/{name}')
@validation.schema(NAMED)
def update_tag(req, namespace, name, body):
    made = _change(req, namespace, 'tags', _put('tag', body['name'], namespace, {},
                                                replace=name))
    return wsgi.json_response(_tag_view(body['name'], made))


@wsgi.route('DELETE', _NS + '/{namespace}/tags/{name}')
def delete_tag(req, namespace, name):
    _change(req, namespace, 'tags', _drop('tag', name, namespace))
    return wsgi.empty_response(204)


@wsgi.route('GET', '/v2/metadefs/resource_types')
def list_resource_types(req):
    return wsgi.json_response({'resource_types': [
        {'name': name, 'created_at': '2014-08-28T18:13:04Z',
         'updated_at': '2014-08-28T18:13:04Z'} for name in metadefs.RESOURCE_TYPES]})


@wsgi.route('GET', _NS + '/{namespace}/resource_types')
def list_associations(req, namespace):
    found = metadefs.show(req.context, namespace)['resource_type_associations']
    return wsgi.json_response({'resource_type_associations': list(found.values())})


@wsgi.route('POST', _NS + '/{namespace}/resource_types')
@validation.schema(NAMED)
def associate(req, namespace, body):
    made = _change(req, namespace, 'resource_type_associations',
                   _put('resource type association', body['name'], namespace,
                        {k: body[k] for k in ('name', 'prefix', 'properties_target')
                         if k in body}))
    return wsgi.json_response(made, 201)


@wsgi.route('DELETE', _NS + '/{namespace}/resource_types/{name}')
def dissociate(req, namespace, name):
    _change(req, namespace, 'resource_type_associations',
            _drop('resource type association', name, namespace))
    return wsgi.empty_response(204)
