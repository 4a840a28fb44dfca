"""The services' rules and requests in JSON Schema: every field checked before anything
is made.

The rules (NAME, DISPLAY_NAME, DESCRIPTION, PROPERTIES...) are schema fragments,
each with the message it gives (``errorMessage``, see provisioner.validation);
``titled`` gives one the label a user knows ("flavor name", "--kernel"). A
request is an object of such fields that takes nothing else (``request``), checked
with ``validation.check(fields, SCHEMA)``; None means "not given". Requests whose
rules need a service's own constants (key pair types, server group policies,
image formats) are built from these fragments beside that service. The REST API
validates its bodies with its own schemas (``provisioner.api.<service>.schemas``),
which reuse these rules where the service's words are the API's too.
"""

MAX_NAME_LENGTH = 63
MAX_VOLUME_GIB = 1024
MAX_VOLUMES = 8
MAX_NETWORKS = 8
# Neutron's limit on a resource's description (neutron_lib's DESCRIPTION_MAX_LEN).
MAX_DESCRIPTION_LENGTH = 255
MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 1024
MAX_PROPERTIES = 128
# The roles this cloud's policies know (identity's too): Keystone's defaults and the
# 'service' role of the users hosts' workers download images as.
ROLES = ('admin', 'member', 'reader', 'service')


def whole(pattern):
    """A regular expression the whole text must match: ``$`` alone lets a final
    newline through ('web1\\n'), a lookahead does not (in ECMA 262 too)."""
    return '^(?:%s)$(?!\\n)' % pattern


def titled(fragment, title):
    """The fragment with the label its messages name the value by."""
    return dict(fragment, title=title)


def request(title, fields, required=()):
    """A request named ``title``: an object of ``fields`` ({name: fragment}), which
    refuses any other ("<title> does not take x") and needs ``required``."""
    return {'title': title, 'type': 'object', 'additionalProperties': False,
            'required': list(required), 'properties': fields}


def whole_number(minimum, maximum):
    """An integer from ``minimum`` to ``maximum``."""
    at_least = '{label} must be a whole number of at least %d, not {value!r}' % minimum
    return {'type': 'integer', 'minimum': minimum, 'maximum': maximum,
            'errorMessage': {'type': at_least, 'minimum': at_least,
                             'maximum': '{label} must be at most {limit}, not {value}'}}


def one_of(*choices):
    return {'enum': list(choices),
            'errorMessage': '{label} must be one of %s, not {value!r}'
                            % ', '.join(choices).replace('{', '{{').replace('}', '}}')}


def list_of(item, minimum, maximum, unique=False):
    """A list of ``minimum`` to ``maximum`` items, each ``item``."""
    between = '{label}: give between %d and %d, not {length}' % (minimum, maximum)
    fragment = {'type': 'array', 'minItems': minimum, 'maxItems': maximum,
                'uniqueItems': unique, 'items': item,
                'errorMessage': {'type': '{label} must be a list', 'minItems': between,
                                 'maxItems': between,
                                 'uniqueItems': '{label}: each may be given only once'}}
    return fragment


def text(maximum):
    """One line of text a user wrote: at most ``maximum`` characters, no control
    characters (kept verbatim)."""
    return {'type': 'string', 'maxLength': maximum,
            'pattern': whole('[^\\x00-\\x1f\\x7f]*'),
            'errorMessage': {
                'type': '{label} must be text',
                'maxLength': '{label} is {length} characters long; the limit is {limit}',
                'pattern': '{label} must not contain control characters (newlines, '
                           'tabs, NUL)'}}


# Letters, digits, '.', '_' and '-': safe in a hostname, a file name, libvirt metadata
# and a shell, so no escaping question can arise downstream.
NAME = {'type': 'string', 'minLength': 1, 'maxLength': MAX_NAME_LENGTH,
        'pattern': whole('[A-Za-z0-9][A-Za-z0-9._-]*'),
        'errorMessage': {
            'type': '{label} must be text, not {pytype}',
            'minLength': '{label} must not be empty',
            'maxLength': '{label} is {length} characters long; the limit is {limit}',
            'pattern': "{label} {value!r} may contain only letters, digits, '.', '_' "
                       "and '-', and must start with a letter or digit"}}

# An instance name as Nova takes it: any printable text, kept verbatim. Markup and
# shell characters are data: the name is never a file, domain or host name (those
# derive from the uuid, or fold the name to a hostname label).
DISPLAY_NAME = dict(text(MAX_NAME_LENGTH), allOf=[
    {'pattern': '\\S', 'errorMessage': '{label} must not be empty'},
    {'pattern': '^(?!\\s)[\\s\\S]*(?<!\\s)$(?!\\n)',
     'errorMessage': '{label} must not start or end with white space'}])

# Free text a user wrote (a network's, subnet's, port's): kept verbatim. Any
# characters but NUL (no database column takes it) and lone surrogates (not text:
# they have no UTF-8 form).
DESCRIPTION = {
    'type': 'string', 'maxLength': MAX_DESCRIPTION_LENGTH,
    'allOf': [
        {'not': {'type': 'string', 'pattern': '[\\ud800-\\udfff]'},
         'errorMessage': '{label} must be text (it has an unpaired surrogate)'},
        {'not': {'type': 'string', 'pattern': '\\x00'},
         'errorMessage': '{label} must not contain NUL characters'}],
    'errorMessage': {
        'type': '{label} must be a string, not {type}',
        'maxLength': '{label} is {length} characters long; the limit is {limit}'}}

_PASSWORD_TEXT = ('{label} must be text of at most %d characters without NUL'
                  % MAX_PASSWORD_LENGTH)
# Never echoed in a message: it is a secret.
PASSWORD = {'type': 'string', 'minLength': MIN_PASSWORD_LENGTH,
            'maxLength': MAX_PASSWORD_LENGTH,
            'not': {'type': 'string', 'pattern': '\\x00'},
            'errorMessage': {
                'type': _PASSWORD_TEXT, 'maxLength': _PASSWORD_TEXT, 'not': _PASSWORD_TEXT,
                'minLength': '{label} must be at least %d characters long'
                             % MIN_PASSWORD_LENGTH}}

ROLE = one_of(*ROLES)

IPV4_ADDRESS = {'type': 'string', 'format': 'ipv4',
                'errorMessage': '{label} {value!r} is not an IPv4 address'}

# An IPv4 network a guest LAN may use (validation.guest_network).
GUEST_NETWORK = {'format': 'guest-network'}

# A readable file inside [image] image_directories (validation.image_file).
IMAGE_FILE = {'format': 'image-file'}

USER_DATA = {'format': 'user-data'}

# Instance metadata: at most 128 key=value pairs, plain keys, one-line values.
PROPERTIES = {
    'type': 'object', 'maxProperties': MAX_PROPERTIES,
    'propertyNames': {
        'pattern': whole('[A-Za-z0-9_.:-]{1,255}'),
        'errorMessage': "{label} key {value!r} must be 1-255 letters, digits, '_', "
                        "'.', ':' or '-'"},
    'additionalProperties': titled(text(255), '{label} {key}'),
    'errorMessage': {'type': '{label} must be key=value pairs',
                     'maxProperties': 'at most {limit} {label} pairs, not {length}'}}

# One NIC of a boot: a network name or id, or {'network', 'fixed_ip'?} or {'port'}.
NIC = {
    'if': {'type': 'string'}, 'then': NAME,
    'else': {
        'type': 'object', 'additionalProperties': False,
        'properties': {'network': NAME, 'port': titled(NAME, 'port'),
                       'fixed_ip': titled(dict(IPV4_ADDRESS, type=['string', 'null']),
                                          'fixed IP')},
        'oneOf': [{'required': ['network']},
                  {'required': ['port'],
                   'not': {'required': ['fixed_ip'],
                           'properties': {'fixed_ip': {'type': 'string'}}}}],
        'errorMessage': '{label}: give a network (with a fixed IP or not) or a port, '
                        'not {value!r}'}}


# -- the services' requests ---------------------------------------------------------

PROJECT_CREATE = request('project create', {'name': titled(NAME, 'project name')},
                         required=['name'])
USER_CREATE = request('user create', {'name': titled(NAME, 'user name'),
                                      'password': titled(PASSWORD, 'password')},
                      required=['name', 'password'])
USER_SET_PASSWORD = dict(USER_CREATE, title='user set-password')
USER_DISABLE = request('user disable', {'name': titled(NAME, 'user name')},
                       required=['name'])
ROLE_ADD = request('role add', {'user': titled(NAME, 'user name'),
                                'project': titled(NAME, 'project name'),
                                'role': titled(ROLE, 'role')},
                   required=['user', 'project', 'role'])

FLAVOR_CREATE = request('flavor create', {
    'name': titled(NAME, 'flavor name'),
    'vcpus': titled(whole_number(1, 256), 'vcpus'),
    'ram_mib': titled(whole_number(1, 4 * 1024 * 1024), 'ram (MiB)'),
    'disk_gib': titled(whole_number(0, 64 * 1024), 'disk (GiB)')},
    required=['name', 'vcpus', 'ram_mib', 'disk_gib'])

IMAGE_CREATE = request('image create', {
    'name': titled(NAME, 'image name'),
    'file': titled(IMAGE_FILE, '--file'),
    'kernel': titled(IMAGE_FILE, '--kernel'),
    'ramdisk': titled(IMAGE_FILE, '--ramdisk'),
    'disk_format': titled(one_of('qcow2', 'raw'), '--disk-format'),
    'cmdline': titled(text(1024), '--cmdline'),
    'arch': titled(NAME, 'architecture'),
    'hypervisor_type': titled(NAME, 'hypervisor type'),
    'min_ram_mib': titled(whole_number(0, 1024 * 1024), 'minimum RAM (MiB)'),
    'min_disk_gib': titled(whole_number(0, 64 * 1024), 'minimum disk (GiB)')},
    required=['name'])

BOOT = request('boot', {
    'name': titled(DISPLAY_NAME, 'instance name'),
    'key_name': titled(DISPLAY_NAME, 'key pair'),
    'flavor': titled(NAME, 'flavor'),
    'image': titled(NAME, 'image'),
    'networks': titled(list_of(NIC, 0, MAX_NETWORKS), 'network'),
    'volume_sizes': titled(list_of(whole_number(1, MAX_VOLUME_GIB), 0, MAX_VOLUMES),
                           'volume size (GiB)'),
    'user_data': titled(USER_DATA, 'user data'),
    'availability_zone': titled(NAME, 'availability zone'),
    'server_group': titled(NAME, 'server group'),
    'properties': titled(PROPERTIES, 'property')},
    required=['name', 'flavor', 'image', 'networks', 'volume_sizes'])

RENAME = request('server update', {'name': titled(DISPLAY_NAME, 'name')},
                 required=['name'])
