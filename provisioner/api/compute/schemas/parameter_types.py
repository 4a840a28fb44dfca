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

# Nova's positive_integer: at least 1, an integer or its digits.
POSITIVE_INTEGER = {'type': ['integer', 'string'], 'pattern': '^[0-9]*$', 'minimum': 1,
                    'minLength': 1}
# Nova's non_negative_integer.
NON_NEGATIVE_INTEGER = {'type': ['integer', 'string'], 'pattern': '^[0-9]*$',
                        'minimum': 0, 'minLength': 1}


def true(value):
    """Whether a BOOLEAN value that passed its schema says true."""
    return value in _TRUE
