"""JSON schemas of the server requests, as Nova's schemas/servers.py (2.1 - 2.90).

Nova's fields that provisioner cannot honour are known to the schema, which
refuses a value it cannot honour with a 400 that says why ("personality is not
supported: files reach the guest as user_data").
"""

import copy

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
                   'fixed_ip': {'type': 'string'}},
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

# A security group by name or id (Nova's): the network service finds it at create.
_security_group = {'type': 'string', 'minLength': 1, 'maxLength': 255}

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
                    'type': 'object', 'properties': {'name': _security_group},
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


def _server(schema):
    return schema['properties']['server']


def _properties(schema):
    return _server(schema)['properties']


def _network_items(schema):
    return _properties(schema)['networks']['items']


def _bdm_items(schema):
    return _properties(schema)['block_device_mapping_v2']['items']


# The versions of the create body, each built on the one before, as Nova's.
CREATE_V219 = copy.deepcopy(CREATE)
_properties(CREATE_V219)['description'] = parameter_types.DESCRIPTION
# 2.32 tags networks and block devices; 2.33 - 2.36 only networks (Nova's bug).
CREATE_V232 = copy.deepcopy(CREATE_V219)
_network_items(CREATE_V232)['properties']['tag'] = parameter_types.TAG
_bdm_items(CREATE_V232)['properties']['tag'] = parameter_types.TAG
CREATE_V233 = copy.deepcopy(CREATE_V219)
_network_items(CREATE_V233)['properties']['tag'] = parameter_types.TAG
# 2.37: networks is required: a list (uuids and ports in the form of a uuid), or
# "auto" or "none"; no device tags until 2.42.
CREATE_V237 = copy.deepcopy(CREATE_V219)
_server(CREATE_V237)['required'] = ['name', 'flavorRef', 'networks']
_network_237 = copy.deepcopy(_network)
_network_237['properties'].update({
    'uuid': {'type': 'string', 'format': 'uuid'},
    'port': {'type': ['string', 'null'], 'format': 'uuid'},
    'fixed_ip': {'type': 'string', 'anyOf': [{'format': 'ipv4'}, {'format': 'ipv6'}]}})
_properties(CREATE_V237)['networks'] = {
    'oneOf': [{'type': 'array', 'items': _network_237},
              {'type': 'string', 'enum': ['none', 'auto']}]}
CREATE_V242 = copy.deepcopy(CREATE_V237)
_properties(CREATE_V242)['networks']['oneOf'][0]['items']['properties']['tag'] = \
    parameter_types.TAG
_bdm_items(CREATE_V242)['properties']['tag'] = parameter_types.TAG
# 2.52: the server's tags at create.
CREATE_V252 = copy.deepcopy(CREATE_V242)
_properties(CREATE_V252)['tags'] = {'type': 'array', 'items': parameter_types.TAG,
                                    'maxItems': 50}
# 2.57: no personality.
CREATE_V257 = copy.deepcopy(CREATE_V252)
del _properties(CREATE_V257)['personality']
CREATE_V263 = copy.deepcopy(CREATE_V257)
_properties(CREATE_V263)['trusted_image_certificates'] = parameter_types.TRUSTED_CERTS
CREATE_V267 = copy.deepcopy(CREATE_V263)
_bdm_items(CREATE_V267)['properties']['volume_type'] = parameter_types.VOLUME_TYPE
# 2.74: a host and/or hypervisor to boot on (admins).
CREATE_V274 = copy.deepcopy(CREATE_V267)
_properties(CREATE_V274).update({'host': parameter_types.FQDN,
                                 'hypervisor_hostname': parameter_types.FQDN})
CREATE_V290 = copy.deepcopy(CREATE_V274)
_properties(CREATE_V290)['hostname'] = parameter_types.HOSTNAME

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
UPDATE_V219 = copy.deepcopy(UPDATE)
_properties(UPDATE_V219)['description'] = parameter_types.DESCRIPTION
UPDATE_V290 = copy.deepcopy(UPDATE_V219)
_properties(UPDATE_V290)['hostname'] = parameter_types.HOSTNAME

# /servers/{id}/tags (2.26): PUT of every tag at once.
TAGS = {'type': 'object',
        'properties': {'tags': {'type': 'array', 'items': parameter_types.TAG,
                                'maxItems': 50}},
        'required': ['tags'], 'additionalProperties': False}

# POST /servers/{id}/action: exactly one action, by its name; its argument is then
# checked by the action's own schema.
ACTIONS = ('os-stop', 'os-start', 'reboot', 'os-getConsoleOutput', 'lock', 'unlock',
           'rebuild', 'provisioner:resume', 'provisioner:rollback', 'addSecurityGroup',
           'removeSecurityGroup', 'addFixedIp', 'removeFixedIp', 'addFloatingIp',
           'removeFloatingIp', 'os-resetState', 'injectNetworkInfo', 'restore',
           'forceDelete', 'os-migrateLive', 'trigger_crash_dump', 'createImage')
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

# Nova's (2.17): the action takes nothing.
TRIGGER_CRASH_DUMP = {'type': 'null'}
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
LOCK_V273 = {'type': ['object', 'null'],
             'properties': {'locked_reason': {'type': 'string', 'minLength': 1,
                                              'maxLength': 255}},
             'additionalProperties': False}

# Nova's nova-network proxies (removed at 2.44): what their bodies must hold.
ADD_FIXED_IP = {'type': 'object', 'properties': {'networkId': {
    'type': ['string', 'integer'], 'minLength': 1}}, 'required': ['networkId'],
    'additionalProperties': False}
REMOVE_FIXED_IP = {'type': 'object', 'properties': {'address': {
    'type': 'string', 'anyOf': [{'format': 'ipv4'}, {'format': 'ipv6'}]}},
    'required': ['address'], 'additionalProperties': False}
ADD_FLOATING_IP = {'type': 'object', 'properties': {
    'address': {'type': 'string', 'anyOf': [{'format': 'ipv4'}, {'format': 'ipv6'}]},
    'fixed_address': {'type': 'string', 'anyOf': [{'format': 'ipv4'},
                                                  {'format': 'ipv6'}]}},
    'required': ['address'], 'additionalProperties': False}
REMOVE_FLOATING_IP = {'type': 'object', 'properties': {'address': {
    'type': 'string', 'anyOf': [{'format': 'ipv4'}, {'format': 'ipv6'}]}},
    'required': ['address'], 'additionalProperties': False}
ROLLBACK = _no_argument('provisioner:rollback')

# GET /servers[/detail]: the query parameters Nova's list knows (index_query). Up to
# 2.74 others are ignored; from 2.75 they are refused (400).
LIST_PARAMS = frozenset((
    'user_id', 'project_id', 'tenant_id', 'launch_index', 'image_ref', 'image',
    'kernel_id', 'ramdisk_id', 'hostname', 'key_name', 'power_state', 'vm_state',
    'task_state', 'host', 'node', 'flavor', 'reservation_id', 'launched_at',
    'terminated_at', 'availability_zone', 'name', 'display_name', 'description',
    'display_description', 'locked_by', 'uuid', 'root_device_name', 'config_drive',
    'access_ip_v4', 'access_ip_v6', 'auto_disk_config', 'progress', 'sort_key',
    'sort_dir', 'all_tenants', 'soft_deleted', 'deleted', 'status', 'changes-since',
    'ip', 'ip6', 'created_at', 'block_device_mapping', 'services', 'metadata',
    'system_metadata', 'info_cache', 'security_groups', 'pci_devices', 'limit',
    'marker'))
LIST_PARAMS_V226 = LIST_PARAMS | {'tags', 'tags-any', 'not-tags', 'not-tags-any'}
LIST_PARAMS_V266 = LIST_PARAMS_V226 | {'changes-before'}
LIST_PARAMS_V273 = LIST_PARAMS_V266 | {'locked'}

# Nova's statuses (2.38: any other is a 400).
STATUSES = ('ACTIVE', 'BUILD', 'DELETED', 'ERROR', 'HARD_REBOOT', 'MIGRATING',
            'PASSWORD', 'PAUSED', 'REBOOT', 'REBUILD', 'RESCUE', 'RESIZE',
            'REVERT_RESIZE', 'SHELVED', 'SHELVED_OFFLOADED', 'SHUTOFF', 'SOFT_DELETED',
            'SUSPENDED', 'UNKNOWN', 'VERIFY_RESIZE')

RESET_STATE = {'type': 'object',
               'properties': {'state': {'type': 'string', 'enum': ['active', 'error']}},
               'required': ['state'], 'additionalProperties': False}
# Nova reads nothing of these actions' argument: null or {}.
NO_ARGUMENT = {'type': ['object', 'null'], 'properties': {}, 'additionalProperties': False}
# Nova's createImage: a name (parameter_types.name) and metadata (its
# parameter_types.metadata: keys of 1-255 letters, digits and '-_:. ', string values).
CREATE_IMAGE = {'type': 'object',
                'properties': {'name': parameter_types.NAME,
                               'metadata': _metadata},
                'required': ['name'], 'additionalProperties': False}
