"""JSON schemas of the server requests, as Nova's schemas/servers.py (2.1 - 2.5).

Nova's fields that provisioner cannot honour are accepted by the schema (so the
answer names the field) and refused by the controller with a 400 that says why.
"""

_name = {'type': 'string', 'minLength': 1, 'maxLength': 255,
         'pattern': r'^(?!\s)[\s\S]*(?<!\s)$'}
_ref = {'type': 'string', 'maxLength': 255}
_bool = {'type': ['boolean', 'string']}
_int_or_string = {'type': ['integer', 'string'], 'pattern': '^-?[0-9]+$'}
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
}

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
                'accessIPv4': {'type': 'string'},
                'accessIPv6': {'type': 'string'},
                'personality': {'type': 'array'},
                'block_device_mapping': {'type': 'array'},
                'block_device_mapping_v2': {'type': 'array', 'items': _bdm},
                'user_data': {'type': 'string', 'format': 'base64'},
                'key_name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
                'availability_zone': {'type': 'string', 'minLength': 1,
                                      'maxLength': 255},
                'config_drive': _bool,
                'min_count': _int_or_string,
                'max_count': _int_or_string,
                'return_reservation_id': _bool,
                'security_groups': {'type': 'array', 'items': {
                    'type': 'object', 'properties': {'name': {'type': 'string'}},
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
            'properties': {'name': _name, 'accessIPv4': {'type': 'string'},
                           'accessIPv6': {'type': 'string'},
                           'OS-DCF:diskConfig': {'enum': ['AUTO', 'MANUAL']}},
            'additionalProperties': False,
        },
    },
    'required': ['server'],
    'additionalProperties': False,
}

REBOOT = {'type': 'object',
          'properties': {'type': {'type': 'string', 'pattern': '^(SOFT|HARD|soft|hard)$'}},
          'required': ['type'], 'additionalProperties': False}

CONSOLE_OUTPUT = {'type': ['object', 'null'],
                  'properties': {'length': {'type': ['integer', 'string', 'null'],
                                            'pattern': '^-?[0-9]+$'}},
                  'additionalProperties': False}
