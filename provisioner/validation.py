"""The one validator: every input is checked against a JSON Schema before anything is made.

JSON Schema (Draft 2020-12) is provisioner's one validation language: the REST
API's request bodies (``provisioner.api.<service>.schemas``, as Nova's
``schemas/``) and the services' own inputs (``provisioner.schemas``, which the
CLI reaches in-process) are schemas, checked by this module's validator:
``check`` for the services (Invalid), ``provisioner.api.validation`` for the API
(400 in the service's error format). What plain JSON Schema cannot say is a
format registered here: a guest network's CIDR, a file inside the image
directories, user data within its limit, base 64.

Messages say what was wrong in the words a user knows. A schema node may carry
``errorMessage`` (ajv-errors' convention): one template for whatever keyword
fails at that node, or a dict of templates per keyword. A template is a
``str.format`` string over the error's fields (see ``_fields``: label, key,
value, limit, length, names, members, reason, type, pytype, json). Without one, the
message is built from the node's ``title`` -- the field's label, such as
"flavor name" or "--kernel" -- and the keyword that failed.
"""

import base64
import binascii
import ipaddress
import json
import os
import re

import jsonschema
from jsonschema import exceptions as schema_exceptions

from provisioner import exception


class FormatError(ValueError):
    """A format check's refusal; its text follows the field's label in the message."""


FORMATS = jsonschema.FormatChecker()


def _format(name):
    """Register a check of format ``name``: it returns True or raises FormatError."""
    return FORMATS.checks(name, raises=FormatError)


# -- formats ----------------------------------------------------------------------

# One network is one host bridge with one dnsmasq: a /16 (65534 addresses) is more
# than that serves, and a larger range only makes every address scan longer.
LARGEST_PREFIX = 16
SMALLEST_PREFIX = 29

# Special-purpose ranges (RFC 6890) that cannot be a guest LAN: a bridge on them
# shadows loopback, link-local, multicast or reserved traffic of the host. Private
# (RFC 1918), shared (100.64.0.0/10) and public unicast ranges stay allowed.
SPECIAL_RANGES = [(ipaddress.IPv4Network(cidr), what) for cidr, what in (
    ('0.0.0.0/8', '"this network" (RFC 1122)'),
    ('127.0.0.0/8', 'loopback (RFC 1122)'),
    ('169.254.0.0/16', 'link-local (RFC 3927)'),
    ('192.0.0.0/24', 'IETF protocol assignments (RFC 6890)'),
    ('224.0.0.0/4', 'multicast (RFC 5771)'),
    ('240.0.0.0/4', 'reserved, with the broadcast address 255.255.255.255 '
                    '(RFC 1112, RFC 919)'),
)]


@_format('guest-network')
def guest_network(cidr):
    """An IPv4 network a guest LAN may use: /16 to /29, in no special-purpose range."""
    try:
        net = ipaddress.IPv4Network(cidr, strict=True)
    except (ValueError, TypeError) as exc:
        raise FormatError('%r is not a valid IPv4 network: %s' % (cidr, exc)) from None
    if net.prefixlen < LARGEST_PREFIX:
        raise FormatError(
            '%s is too large: a network is one host bridge with one DHCP server, and a '
            '/%d (%d addresses) is the most it serves; use a /%d or smaller'
            % (net, LARGEST_PREFIX, 2 ** (32 - LARGEST_PREFIX) - 2, LARGEST_PREFIX))
    for special, what in SPECIAL_RANGES:
        if net.overlaps(special):
            raise FormatError(
                '%s overlaps %s, %s, which cannot be a guest network; use a private '
                'range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)' % (net, special, what))
    if net.prefixlen > SMALLEST_PREFIX:
        raise FormatError('%s is too small: use a /%d or larger' % (cidr, SMALLEST_PREFIX))
    return True


def _image_directories():
    """[image] image_directories, symlinks resolved; those under state_path are made.

    The default import directory is made on first use (0750), so the directory a
    refusal names exists for the operator to copy files into.
    """
    from provisioner.conf import CONF
    state_path = os.path.realpath(CONF.state_path)
    directories = [os.path.realpath(d) for d in CONF.image.image_directories]
    for directory in directories:
        if os.path.commonpath([directory, state_path]) == state_path:
            try:
                os.makedirs(directory, mode=0o750, exist_ok=True)
            except OSError:
                pass  # the check below still refuses every file outside it
    return directories


@_format('readable-file')
def readable_file(path):
    """A path naming a regular file this process may read (FormatError if not)."""
    if not isinstance(path, str) or not path:
        raise FormatError('must name a file')
    if not os.path.isfile(path):
        raise FormatError('%s does not exist or is not a file' % path)
    if not os.access(path, os.R_OK):
        raise FormatError('%s is not readable' % path)
    return True


@_format('image-file')
def image_file(path):
    """A readable file inside [image] image_directories, symlinks resolved (the
    service records ``os.path.realpath`` of it)."""
    if not isinstance(path, str) or not path or '\0' in path or len(path) > 4096:
        raise FormatError('must name a file (at most 4096 characters, no NUL)')
    real = os.path.realpath(path)
    allowed = _image_directories()
    if not any(os.path.commonpath([real, d]) == d for d in allowed):
        raise FormatError(
            '%s is outside the image directories (%s): copy it into one, or add its '
            'directory to [image] image_directories'
            % (path, ', '.join(allowed) or 'none configured'))
    return readable_file(real)


@_format('user-data')
def user_data(value):
    """Bytes of at most [compute] max_user_data_bytes (read when checked)."""
    from provisioner.conf import CONF
    limit = CONF.compute.max_user_data_bytes
    if not isinstance(value, bytes):
        raise FormatError('must be bytes')
    if len(value) > limit:
        raise FormatError('is %d bytes; the limit is %d' % (len(value), limit))
    return True


@_format('base64')
def base64_text(value):
    """Text that decodes as base 64 (the alphabet only, padding included)."""
    if isinstance(value, str):
        try:
            base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise FormatError('is not valid base 64') from None
    return True


# -- finding the error and saying it -----------------------------------------------

# A whole number is an int, never a float that happens to be whole (2.0): JSON cannot
# tell them apart, Python can, and a service's caller meant one or the other. (Draft
# 4's rule, which Nova's validator follows; Draft 6 and later accept 2.0.)
Validator = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        'integer', lambda _checker, value: isinstance(value, int)
        and not isinstance(value, bool)))
_VALIDATORS = {}


def _validator(schema):
    """The validator of one schema (schemas are module constants: made once each)."""
    found = _VALIDATORS.get(id(schema))
    if found is None or found.schema is not schema:
        if len(_VALIDATORS) > 1024:  # schemas made per call: not to be kept forever
            _VALIDATORS.clear()
        found = Validator(schema, format_checker=FORMATS)
        _VALIDATORS[id(schema)] = found
    return found


def first_error(instance, schema):
    """The error to report for ``instance`` (None when it fits ``schema``).

    jsonschema's best match (the shallowest error; the deepest inside anyOf and
    oneOf), unless an anyOf/oneOf around it says in its own words what it wants.
    """
    error = schema_exceptions.best_match(_validator(schema).iter_errors(instance))
    if error is None:
        return None
    node = error
    while node is not None:
        if _template(node) is not None:
            return node
        node = node.parent
    return error


def _template(error):
    messages = error.schema.get('errorMessage') if isinstance(error.schema, dict) \
        else None
    if isinstance(messages, dict):
        return messages.get(error.validator)
    return messages


_DESCENDS_WITH_NAME = ('properties', 'patternProperties', 'prefixItems')
_DESCENDS = ('additionalProperties', 'items', 'unevaluatedProperties',
             'unevaluatedItems', 'contains')


def _label(error, root):
    """The title of the innermost titled node on the way to the failing one; in it,
    ``{label}`` is the title around it and ``{key}`` the property (or index) the way
    went through there (a property's value: "property color")."""
    node, label, path = root, None, list(error.absolute_path)
    depth, steps = 0, list(error.absolute_schema_path)[:-1]
    index = 0
    while True:
        if isinstance(node, dict) and isinstance(node.get('title'), str):
            key = path[depth - 1] if 0 < depth <= len(path) else ''
            label = node['title'].replace('{label}', label or '').replace(
                '{key}', str(key))
        if index >= len(steps):
            break
        step = steps[index]
        if step in _DESCENDS_WITH_NAME and index + 1 < len(steps):
            node = node[step][steps[index + 1]]
            index += 2
            depth += 1
            continue
        node = node[step]
        index += 1
        if step in _DESCENDS:
            depth += 1
    return label


_JSON_TYPES = ((bool, 'a boolean'), (int, 'a number'), (float, 'a number'),
               (str, 'a string'), (list, 'a list'), (dict, 'an object'),
               (type(None), 'null'))
_EXPECTED = {'string': 'text', 'integer': 'a whole number', 'number': 'a number',
             'boolean': 'true or false', 'array': 'a list', 'object': 'an object',
             'null': 'null'}


def json_type(value):
    """The JSON name of a decoded value's type (what the caller sent)."""
    for kind, name in _JSON_TYPES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _unexpected(error):
    """The properties an additionalProperties: false refused, sorted."""
    schema, instance = error.schema, error.instance
    known = set(schema.get('properties', ()))
    extra = [name for name in instance if name not in known and not any(
        re.search(pattern, name) for pattern in schema.get('patternProperties', ()))]
    return sorted(extra)


def _missing(error):
    return next((name for name in error.validator_value
                 if name not in error.instance), '')


def _fields(error, root):
    """What a template may use, from one error."""
    value = error.instance
    path = list(error.absolute_path)
    fields = {'label': _label(error, root) or (str(path[-1]) if path else 'value'),
              'key': path[-1] if path else '', 'value': value,
              'limit': error.validator_value, 'names': '', 'reason': '',
              'length': len(value) if hasattr(value, '__len__') else 0,
              'type': json_type(value), 'pytype': type(value).__name__,
              'members': ', '.join(sorted(value)) or 'none'
              if isinstance(value, dict) else '',
              'json': json.dumps(value, default=repr)[:200]}
    if error.validator == 'required':
        fields['key'] = _missing(error)
    elif error.validator == 'additionalProperties':
        fields['names'] = ', '.join(_unexpected(error))
    elif error.validator == 'format':
        fields['reason'] = str(error.cause) if error.cause else 'is not a valid %s' \
            % error.validator_value
    return fields


def _default_message(error, root, fields):
    """A service's message when its schema says none: the label, then the fault."""
    label = fields['label']
    if error.validator == 'required':
        missing = error.schema.get('properties', {}).get(fields['key'], {})
        return '%s is required' % (missing.get('title') or fields['key'])
    if error.validator == 'additionalProperties':
        return '%s does not take %s' % (label, fields['names'])
    if error.validator == 'format':
        return '%s %s' % (label, fields['reason'])
    if error.validator == 'type':
        expected = error.validator_value
        expected = [expected] if isinstance(expected, str) else expected
        return '%s must be %s, not %s' % (label, ' or '.join(
            _EXPECTED.get(t, t) for t in expected), fields['type'])
    return '%s: %s' % (label, error.message)


def message(error, schema, default=None):
    """The words for ``error`` (found in ``schema``): its node's errorMessage, else
    ``default(error)`` when given (the API's format), else the label and the fault."""
    fields = _fields(error, schema)
    template = _template(error)
    if template is not None:
        return template.format(**fields)
    if default is not None:
        return default(error)
    return _default_message(error, schema, fields)


def check(instance, schema, error=exception.Invalid, none_is_absent=True):
    """Raise ``error(reason=...)`` when ``instance`` does not fit ``schema``.

    The services' entry: a service's arguments as a dict, None meaning "not given"
    (left out before checking, so an optional argument may be None) unless
    ``none_is_absent`` is false (where None means something, e.g. "remove").
    """
    if none_is_absent and isinstance(instance, dict):
        instance = {k: v for k, v in instance.items() if v is not None}
    found = first_error(instance, schema)
    if found is not None:
        raise error(reason=message(found, schema))
    return instance
