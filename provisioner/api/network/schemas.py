"""JSON schemas of the network requests (Neutron v2.0): networks, subnets, ports, quotas.

A body is ``{"<resource>": {...}}`` of the attributes this service takes (OSC and
openstacksdk send these): any other is refused as Neutron does ("Unrecognized
attribute(s)"), and the attributes whose one supported value is fixed (guest
networks are isolated libvirt networks) must have it. Names, addresses and the
like are the network service's to check (provisioner.network), in the same words
for the CLI.
"""

import copy

from provisioner.api import validation
from provisioner import schemas

# The one value each of these can have here.
_FIXED = {'admin_state_up': True, 'ip_version': 4, 'port_security_enabled': False}
_FALSY = [False, None, 0, '', [], {}]


def _description():
    """A description, in Neutron's words: null is ''; the rule is the service's."""
    fragment = copy.deepcopy(schemas.titled(schemas.DESCRIPTION, 'description'))
    fragment['type'] = ['string', 'null']

    def reason(template):
        return 'Invalid input for description. Reason: %s.' % template
    fragment['errorMessage'] = {k: reason(v) for k, v in fragment['errorMessage'].items()}
    for part in fragment['allOf']:
        part['errorMessage'] = reason(part['errorMessage'])
    return fragment


def _fixed(value):
    return {'const': value,
            'errorMessage': 'Invalid input for {key}: only {limit!r} is supported here '
                            '(guest networks are isolated libvirt networks).'}


def _body(resource, attributes, required=(), required_message=None):
    """``{resource: {attributes...}}``; ``attributes``: {name: schema}."""
    messages = {'additionalProperties': "Unrecognized attribute(s) '{names}'"}
    if required_message:
        messages['required'] = required_message
    return validation.wrapped(resource, {
        'type': 'object', 'additionalProperties': False, 'required': list(required),
        'properties': attributes, 'errorMessage': messages},
        needs='Resource body required: {{"%s": {{...}}}}.' % resource)


_ANY = {}
_OWNED = {'project_id': _ANY, 'tenant_id': _ANY, 'description': _description()}
_ALWAYS = {key: _fixed(value) for key, value in _FIXED.items()}

# The segment an admin may name (Neutron's provider extension); the service checks.
_PROVIDER = {'provider:network_type': _ANY, 'provider:segmentation_id': _ANY,
             'provider:physical_network': {'type': 'null', 'errorMessage': (
                 'Invalid input for operation: provider:physical_network is only '
                 'for flat and VLAN networks; this service makes vxlan ones.')}}
_EXTERNAL = {'router:external': {
    'type': 'boolean', 'errorMessage': "Invalid input for router:external. Reason: "
                                       "'{value}' is not a valid boolean value."}}
NETWORK_CREATE = _body('network', dict(_OWNED, **_ALWAYS, **_PROVIDER, **_EXTERNAL,
                                       name=_ANY, shared=_ANY))
NETWORK_UPDATE = _body('network', dict(_ALWAYS, **_EXTERNAL, name=_ANY, shared=_ANY,
                                       description=_description()))

_NO_NETWORK = 'Invalid input: {key} is required.'
_NO_CIDR = 'Invalid input for cidr: give a CIDR, or a subnetpool_id to carve one from.'
_SUBNET_FIXED = ('cidr', 'network_id', 'project_id', 'tenant_id', 'ip_version')
_SUBNET_ADDRESSING = {'gateway_ip': _ANY, 'allocation_pools': _ANY, 'enable_dhcp': _ANY,
                      'dns_nameservers': _ANY, 'host_routes': _ANY}
SUBNET_CREATE = _body('subnet', dict(
    _OWNED, **_ALWAYS, **_SUBNET_ADDRESSING, name=_ANY,
    network_id={'not': {'enum': _FALSY}, 'errorMessage': _NO_NETWORK},
    cidr={'not': {'enum': [False, 0, '', [], {}]}, 'errorMessage': _NO_CIDR},
    subnetpool_id=_ANY, prefixlen=_ANY, use_default_subnetpool=_ANY),
    required=['network_id'], required_message=_NO_NETWORK)
# A subnet's range and network are fixed once made: hosts carry them.
SUBNET_UPDATE = _body('subnet', dict(
    {field: {'not': {}, 'errorMessage': 'Invalid input: {key} cannot change once the '
                                        'subnet exists. Delete the subnet and make it '
                                        'again.'}
     for field in _SUBNET_FIXED},
    **_SUBNET_ADDRESSING, name=_ANY, description=_description()))

_NEEDS_NETWORK = 'Invalid input: network_id is required.'
_BOOL = {'type': 'boolean', 'errorMessage': "Invalid input for {key}. Reason: "
                                            "'{value}' is not a valid boolean value."}
_GROUPS = {'type': ['array', 'null'], 'items': {'type': 'string'},
           'errorMessage': 'Invalid input for security_groups. Reason: give a list of '
                           'security group ids.'}
_PORT_STATE = {'admin_state_up': _BOOL, 'security_groups': _GROUPS,
               'port_security_enabled': _BOOL, 'allowed_address_pairs': _ANY}
PORT_CREATE = _body('port', dict(
    _OWNED, **dict(_ALWAYS, **_PORT_STATE), name=_ANY, fixed_ips=_ANY,
    mac_address=_ANY,
    network_id={'not': {'enum': _FALSY}, 'errorMessage': _NEEDS_NETWORK}),
    required=['network_id'], required_message=_NEEDS_NETWORK)
PORT_UPDATE = _body('port', dict(_PORT_STATE, name=_ANY, description=_description(),
                                 fixed_ips=_ANY))

SECURITY_GROUP_CREATE = _body('security_group', dict(
    _OWNED, name={'type': ['string', 'null']}, stateful={'const': True}))
SECURITY_GROUP_UPDATE = _body('security_group', {
    'name': {'type': ['string', 'null']}, 'description': _description()})
_NEEDS_GROUP = 'Invalid input: security_group_id and direction are required.'
SECURITY_GROUP_RULE_CREATE = _body('security_group_rule', dict(
    _OWNED, security_group_id={'type': 'string'}, direction=_ANY, ethertype=_ANY,
    protocol=_ANY, port_range_min=_ANY, port_range_max=_ANY, remote_ip_prefix=_ANY,
    remote_group_id={'type': ['string', 'null']}),
    required=['security_group_id', 'direction'], required_message=_NEEDS_GROUP)

_ROUTER = {'name': {'type': ['string', 'null']}, 'description': _description(),
           'admin_state_up': _BOOL, 'external_gateway_info': {'type': ['object', 'null']}}
ROUTER_CREATE = _body('router', dict(_OWNED, **_ROUTER))
# Routes (extraroute): their format is the service's to check, in Neutron's words.
ROUTER_UPDATE = _body('router', dict(_ROUTER, routes=_ANY))
_NEEDS_ROUTES = 'Bad router request: give {{"router": {{"routes": [...]}}}}.'
ROUTER_ROUTES = _body('router', {'routes': _ANY}, required=['routes'],
                      required_message=_NEEDS_ROUTES)
_ONE_OF = 'Bad router request: Either subnet_id or port_id must be specified.'
ROUTER_INTERFACE = {'type': 'object', 'additionalProperties': False,
                    'properties': {'subnet_id': {'type': 'string'},
                                   'port_id': {'type': 'string'}},
                    'errorMessage': _ONE_OF}

_ADDRESS = {'type': ['string', 'null']}
_NEEDS_EXTERNAL = 'Invalid input: floating_network_id is required.'
_FLOATINGIP = {'port_id': {'type': ['string', 'null']}, 'fixed_ip_address': _ADDRESS,
               'description': _description()}
FLOATINGIP_CREATE = _body('floatingip', dict(
    _OWNED, **_FLOATINGIP, floating_ip_address=_ADDRESS,
    subnet_id={'type': ['string', 'null']},
    floating_network_id={'type': 'string', 'errorMessage': _NEEDS_EXTERNAL}),
    required=['floating_network_id'], required_message=_NEEDS_EXTERNAL)
FLOATINGIP_UPDATE = _body('floatingip', _FLOATINGIP)

_POOL = {'name': {'type': 'string'}, 'description': _description(), 'prefixes': _ANY,
         'min_prefixlen': _ANY, 'default_prefixlen': _ANY, 'max_prefixlen': _ANY,
         'default_quota': _ANY, 'is_default': _BOOL}
_NEEDS_PREFIXES = 'Invalid input: name and prefixes are required.'
SUBNET_POOL_CREATE = _body('subnetpool', dict(
    _OWNED, **_POOL, shared=_BOOL, address_scope_id={'type': 'null'}),
    required=['name', 'prefixes'], required_message=_NEEDS_PREFIXES)
SUBNET_POOL_UPDATE = _body('subnetpool', dict(_POOL, address_scope_id={'type': 'null'}))

_QUOTA = 'Resource body required: {{"quota": {{"network": N, "subnet": N, "port": N}}}}.'
QUOTA_UPDATE = {'type': 'object', 'required': ['quota'],
                'properties': {'quota': {'type': 'object', 'minProperties': 1,
                                         'errorMessage': _QUOTA}},
                'errorMessage': _QUOTA}
