"""JSON schemas of the compute service updates (Nova's os-services at 2.1 - 2.52)."""

_name = {'type': 'string', 'minLength': 1, 'maxLength': 255}

SERVICE_UPDATE = {
    'type': 'object',
    'properties': {'host': _name, 'binary': _name, 'disabled_reason': _name},
    'required': ['host', 'binary'],
    'additionalProperties': False,
}
# PUT os-services/{action}: disable-log-reason needs the reason.
SERVICE_UPDATES = {
    'enable': SERVICE_UPDATE,
    'disable': SERVICE_UPDATE,
    'disable-log-reason': dict(SERVICE_UPDATE, allOf=[{
        'required': ['disabled_reason'],
        'errorMessage': 'Missing disabled reason field'}]),
}
