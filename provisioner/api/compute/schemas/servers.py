"""JSON schemas of the server requests, as Nova's schemas/servers.py (2.1 - 2.5).

Nova's fields that provisioner cannot honour are known to the schema, which
refuses a value it cannot honour with a 400 that says why ("personality is not
supported: files reach the guest as user_data").
"""

from provisioner.api.compute.schemas import parameter_types

_name = parameter_types.NAME
_bool = {'type': ['boolean', 'string']}
_int_or_string = parameter_types.INT_OR_STRING
_metadata = {'type': 'object',
             'patternProperties': {'^[a-zA-Z0-9-_:. ]{1,255}$': {
                 'type': 'string', 'maxLength': 255}},
             'additionalProperties': False}

_bdm = {
    'type': 'object',
    'properties': {
        'uuid': {'type': 'string'},
        'source_type': {'enum': ['volume', 'image', 'snapshot', 'blank']},
        'destination_type': {'enum': ['local', 'volume']},
        'boot_index': {'type': ['integer', 'string', 'null']},
        'volume_size': _int_or_string,
        'delete_on_termination': _bool,
        'guest_format': {'type': 'string'},
        'device_name': {'type': ['string', 'null']},
        'device_type': {'type': 'string'},
        'disk_bus': {'type': 'string'},
        'no_device': {},
        'connection_info': {'type': 'string'},
        'snapshot_id': {'type': 'string'},
        'volume_id': {'type': 'string'},
        'image_id': {'type': 'string'},
    },
    'additionalProperties': False,
}

_network = {
    'type': 'object',
    'properties': {'uuid': {'type': 'string'}, 'port': {'type': ['string', 'null']},
                   'fixed_ip': {'type': 'string'}, 'tag': {'type': 'string'}},
    'additionalProperties': False,
    'anyOf': [{'required': ['port'], 'properties': {'port': {'type': 'string',
                                                             'minLength': 1}}},
              {'required': ['uuid'], 'properties': {'uuid': {'minLength': 1}}}],
    'errorMessage': {'anyOf': 'Each network needs a uuid or a port.'},
}


def _unsupported(why, keyword, field='{key}'):
    """The words for a value provisioner cannot honour, failing ``keyword``."""
    return {'errorMessage': {keyword: '%s is not supported: %s' % (field, why)}}


# How many servers a request boots: at least 1, an integer or its digits (Nova's).
_count = dict(_int_or_string, anyOf=[{'type': 'integer', 'minimum': 1},
                                     {'type': 'string', 'pattern': '^0*[1-9][0-9]*$'}],
              errorMessage={'anyOf': '{key} must be an integer of at least 1, not '
                                     '{value!r}'})

# Nova's access addresses: user data, kept and shown, in the form of an address.
ACCESS_IPV4 = {'type': 'string', 'format': 'ipv4'}
ACCESS_IPV6 = {'type': 'string', 'format': 'ipv6'}

# Guest networks are isolated: "default" is the one security group there is.
_default_group = dict({'type': 'string', 'enum': ['default']}, **_unsupported(
    'guest networks are isolated; there are no security groups', 'enum',
    'security group {value}'))

_hints = {'type': 'object', 'properties': {'group': {'type': 'string'}},
          'additionalProperties': True}

CREATE = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': {
                'name': _name,
                'imageRef': {'type': 'string'},
                'flavorRef': {'type': ['string', 'integer'], 'minLength': 1},
                'adminPass': {'type': 'string'},
                'metadata': _metadata,
                'networks': {'type': 'array', 'items': _network},
                'OS-DCF:diskConfig': {'enum': ['AUTO', 'MANUAL']},
                'accessIPv4': ACCESS_IPV4,
                'accessIPv6': ACCESS_IPV6,
                'personality': dict({'type': 'array', 'maxItems': 0}, **_unsupported(
                    'files reach the guest as user_data', 'maxItems')),
                'block_device_mapping': dict({'type': 'array', 'maxItems': 0},
                                             **_unsupported('use block_device_mapping_v2',
                                                            'maxItems',
                                                            '{key} (v1)')),
                'block_device_mapping_v2': {'type': 'array', 'items': _bdm},
                'user_data': {'type': 'string', 'format': 'base64', 'errorMessage': {
                    'format': 'User data needs to be valid base 64.'}},
                'key_name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
                'availability_zone': {'type': 'string', 'minLength': 1,
                                      'maxLength': 255},
                'config_drive': _bool,
                'min_count': _count,
                'max_count': _count,
                'return_reservation_id': _bool,
                'security_groups': {'type': 'array', 'items': {
                    'type': 'object', 'properties': {'name': _default_group},
                    'additionalProperties': False}},
            },
            'required': ['name', 'flavorRef'],
            'additionalProperties': False,
        },
        'os:scheduler_hints': _hints,
        'OS-SCH-HNT:scheduler_hints': _hints,
    },
    'required': ['server'],
    'additionalProperties': False,
}

UPDATE = {
    'type': 'object',
    'properties': {
        'server': {
            'type': 'object',
            'properties': {
                'name': _name,
                'accessIPv4': ACCESS_IPV4,
                'accessIPv6': ACCESS_IPV6,
                'OS-DCF:diskConfig': {'enum': ['AUTO', 'MANUAL']}},
            'additionalProperties': False,
        },
    },
    'required': ['server'],
    'additionalProperties': False,
}

# POST /servers/{id}/action: exactly one action, by its name; its argument is then
# checked by the action's own schema.
ACTIONS = ('os-stop', 'os-start', 'reboot', 'os-getConsoleOutput', 'lock', 'unlock',
           'rebuild', 'provisioner:resume', 'provisioner:rollback', 'addSecurityGroup',
           'removeSecurityGroup')
_ONE_ACTION = 'Give exactly one action, not {length}: {members}'
ACTION = {'type': 'object', 'minProperties': 1, 'maxProperties': 1,
          'propertyNames': {'enum': list(ACTIONS),
                            'errorMessage': 'There is no such action: {value}'},
          'errorMessage': {'minProperties': _ONE_ACTION, 'maxProperties': _ONE_ACTION}}

_NAMED_GROUP = "Give the security group as {{\"name\": \"<name or id>\"}}"
SECURITY_GROUP = {'type': 'object', 'required': ['name'],
                  'properties': {'name': {'type': 'string', 'minLength': 1,
                                          'errorMessage': _NAMED_GROUP}},
                  'errorMessage': {'type': _NAMED_GROUP, 'required': _NAMED_GROUP}}

REBOOT = {'type': 'object',
          'properties': {'type': {'type': 'string', 'pattern': '^(SOFT|HARD|soft|hard)$'}},
          'required': ['type'], 'additionalProperties': False}

CONSOLE_OUTPUT = {'type': ['object', 'null'],
                  'properties': {'length': {
                      'type': ['integer', 'string', 'null'], 'pattern': '^-?[0-9]+$',
                      'anyOf': [{'type': 'null'}, {'type': 'integer', 'minimum': -1},
                                {'type': 'string', 'pattern': '^(-0*1|[0-9]+)$'}],
                      'errorMessage': {'anyOf': 'length must be -1 (everything) or at '
                                                'least 0'}}},
                  'additionalProperties': False}


def _no_argument(action):
    return {'type': 'null', 'errorMessage': '%s takes no arguments (null).' % action}


RESUME = _no_argument('provisioner:resume')
# Nova reads nothing of lock's and unlock's argument before 2.73 (locked_reason):
# clients send null or {}.
LOCK = UNLOCK = {'type': ['object', 'null'], 'properties': {},
                 'additionalProperties': False}
ROLLBACK = _no_argument('provisioner:rollback')
