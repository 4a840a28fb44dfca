"""The field types Nova's schemas share (nova/api/validation/parameter_types.py)."""

# Nova's name: 1-255 characters, no leading or trailing white space.
NAME = {'type': 'string', 'minLength': 1, 'maxLength': 255,
        'pattern': r'^(?!\s)[\s\S]*(?<!\s)$'}

_TRUE = [True, 'True', 'TRUE', 'true', '1', 'ON', 'On', 'on', 'YES', 'Yes', 'yes', 'y',
         't']
_FALSE = [False, 'False', 'FALSE', 'false', '0', 'OFF', 'Off', 'off', 'NO', 'No', 'no',
          'n', 'f']
# Nova's boolean: true or false, or one of the words oslo's strutils reads as one.
BOOLEAN = {'type': ['boolean', 'string'], 'enum': _TRUE + _FALSE}
TRUE = {'enum': _TRUE}

# An integer, or its digits, as Nova takes counts and sizes.
INT_OR_STRING = {'type': ['integer', 'string'], 'pattern': '^-?[0-9]+$'}

# Nova's description: printable characters (no control characters), 0-255, or null.
DESCRIPTION = {'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255,
               'pattern': '^[^\x00-\x1f\x7f]*$'}
# A tag (a server's, a device's): 1-60 characters without ',' or '/'.
TAG = {'type': 'string', 'minLength': 1, 'maxLength': 60, 'pattern': '^[^,/]*$'}
# RFC 952/1123 host names (2.90), and the host names of services (2.74's host).
HOSTNAME = {'type': 'string', 'pattern': '^[a-zA-Z0-9]+[a-zA-Z0-9-]*[a-zA-Z0-9]+$',
            'minLength': 2, 'maxLength': 63}
FQDN = {'type': 'string', 'pattern': '^[a-zA-Z0-9-._]*$', 'minLength': 1,
        'maxLength': 255}
# At most 50 certificate ids (2.63); null unsets them.
TRUSTED_CERTS = {'type': ['array', 'null'], 'minItems': 1, 'maxItems': 50,
                 'uniqueItems': True, 'items': {'type': 'string', 'minLength': 1,
                                                'maxLength': 255}}
VOLUME_TYPE = {'type': ['string', 'null'], 'minLength': 0, 'maxLength': 255}
# Nova's positive_integer: at least 1, an integer or its digits.
POSITIVE_INTEGER = {'type': ['integer', 'string'], 'pattern': '^[0-9]*$', 'minimum': 1,
                    'minLength': 1}
# Nova's non_negative_integer.
NON_NEGATIVE_INTEGER = {'type': ['integer', 'string'], 'pattern': '^[0-9]*$',
                        'minimum': 0, 'minLength': 1}


def true(value):
    """Whether a BOOLEAN value that passed its schema says true."""
    return value in _TRUE
