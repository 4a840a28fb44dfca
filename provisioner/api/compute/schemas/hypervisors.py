"""JSON schemas of the compute service updates (Nova's os-services): by action
and host (2.1 - 2.52, with 2.11's force-down), by service id from 2.53."""

from provisioner.api.compute.schemas import parameter_types

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
# 2.11: PUT os-services/force-down.
FORCE_DOWN = {
    'type': 'object',
    'properties': {'host': _name, 'binary': _name,
                   'forced_down': parameter_types.BOOLEAN},
    'required': ['host', 'binary', 'forced_down'],
    'additionalProperties': False,
}
# 2.53: PUT os-services/{service_id}.
SERVICE_UPDATE_V253 = {
    'type': 'object',
    'properties': {'status': {'type': 'string', 'enum': ['enabled', 'disabled']},
                   'disabled_reason': _name,
                   'forced_down': parameter_types.BOOLEAN},
    'additionalProperties': False,
}
