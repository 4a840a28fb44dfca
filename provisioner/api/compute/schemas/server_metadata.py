"""JSON schemas of a server's metadata requests, as Nova's schemas/server_metadata.py.
"""

# Nova's metadata: keys of 1-255 letters, digits and '-_:. ', string values of at
# most 255 characters.
METADATA = {'type': 'object',
            'patternProperties': {'^[a-zA-Z0-9-_:. ]{1,255}$': {
                'type': 'string', 'maxLength': 255}},
            'additionalProperties': False}

# PUT and POST /servers/{id}/metadata
UPDATE_ALL = {'type': 'object', 'properties': {'metadata': METADATA},
              'required': ['metadata'], 'additionalProperties': False}

# PUT /servers/{id}/metadata/{key}: that one key.
_ONE = 'Request body contains too many items'
UPDATE_ONE = {'type': 'object',
              'properties': {'meta': dict(METADATA, minProperties=1, maxProperties=1,
                                          errorMessage={'minProperties': _ONE,
                                                        'maxProperties': _ONE})},
              'required': ['meta'], 'additionalProperties': False}
