"""Request bodies checked against their JSON Schema before a controller reads them.

As Nova's ``@validation.schema``: a controller's handler names the schema of its
body, one per microversion range where the body changes::

    @wsgi.route('POST', '/v2.1/os-keypairs')
    @validation.schema(schemas.CREATE, '2.1', '2.1')
    @validation.schema(schemas.CREATE_V22, '2.2')
    def create(req, body):

and receives the body once it fits (400 otherwise, in the service's error format).
The validator is provisioner's one (provisioner.validation): a schema node's own
``errorMessage`` is the answer when it has one; otherwise Nova's words, which
clients have always seen: "Invalid input for field/attribute <path>. Value:
<value>. <what jsonschema found>".
"""

import functools

from provisioner.api import wsgi
from provisioner import validation


def _short(value, limit=200):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + '...'


def _nova_message(error):
    where = '/'.join(str(p) for p in error.absolute_path)
    return 'Invalid input for field/attribute %s. Value: %s. %s' % (
        where or 'body', _short(error.instance), error.message)


def validate(body, schema):
    """``body`` if it fits ``schema``; HTTPError 400 saying why if not."""
    error = validation.first_error(body, schema)
    if error is not None:
        raise wsgi.HTTPError(400, validation.message(error, schema, _nova_message))
    return body


def wrapped(key, resource, needs=None):
    """The schema of a body ``{key: resource}``, as every create and update sends
    (Keystone's, Cinder's, Neutron's); ``needs``: the words when the object is
    missing or not an object."""
    needs = needs or 'The request body needs a "%s" object.' % key
    return {'type': 'object', 'required': [key],
            'properties': {key: dict(resource, errorMessage=dict(
                resource.get('errorMessage', {}), type=needs))},
            'errorMessage': {'type': needs, 'required': needs}}


def _version(text):
    major, minor = text.split('.')
    return int(major), int(minor)


def schema(request_schema, min_version=None, max_version=None):
    """Decorator: validate the request's JSON body against ``request_schema`` (for
    the microversions from ``min_version`` to ``max_version``, inclusive, when
    given) and pass it to the handler as ``body``.

    A handler given ``body`` by its caller (an action dispatched by name) has that
    validated; otherwise the request's body is read (it must be a JSON object).
    """
    bounds = (_version(min_version) if min_version else None,
              _version(max_version) if max_version else None)

    def decorate(handler):
        schemas = getattr(handler, 'request_schemas', None)
        if schemas is not None:  # an outer decorator of the same handler
            schemas.insert(0, (request_schema, bounds))
            return handler
        schemas = [(request_schema, bounds)]

        @functools.wraps(handler)
        def validated(req, **params):
            body = params.pop('body') if 'body' in params else req.json_body()
            return handler(req, body=validate(body, _for_version(schemas, req)),
                           **params)

        validated.request_schemas = schemas
        return validated
    return decorate


def _for_version(schemas, req):
    version = req.api_version
    for request_schema, (low, high) in schemas:
        if version is None or ((low is None or version >= low)
                               and (high is None or version <= high)):
            return request_schema
    raise wsgi.HTTPError(404, 'The resource could not be found.')  # as Nova: no version
