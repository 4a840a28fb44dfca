"""One schema per request: every field checked, by one rule each, before anything is made.

A schema maps field names to rules (functions ``rule(value, label)`` that return the
normalised value or raise Invalid naming the field and the rule). ``validate`` refuses
unknown fields and missing required ones, so a request that reaches the code behind
it is whole and well-formed. The rules live in provisioner.validation.
"""

import dataclasses

from provisioner import exception
from provisioner import validation

MAX_VOLUME_GIB = 1024
MAX_VOLUMES = 8
MAX_NETWORKS = 8


@dataclasses.dataclass(frozen=True)
class Field:
    rule: object
    label: str
    required: bool = True


@dataclasses.dataclass(frozen=True)
class Schema:
    request: str
    fields: dict


def validate(schema, request):
    """The request with every field checked and normalised; Invalid on the first fault."""
    unknown = sorted(set(request) - set(schema.fields))
    if unknown:
        raise exception.Invalid(reason='%s does not take %s'
                                       % (schema.request, ', '.join(unknown)))
    checked = {}
    for name, field in schema.fields.items():
        value = request.get(name)
        if value is None:
            if field.required:
                raise exception.Invalid(reason='%s is required' % field.label)
            checked[name] = None
            continue
        checked[name] = field.rule(value, field.label)
    return checked


def _bounded(rule, maximum):
    return lambda value, label: rule(value, label, maximum)


def _list_of(rule, minimum, maximum, unique=False):
    def check(values, label):
        if not isinstance(values, (list, tuple)):
            raise exception.Invalid(reason='%s must be a list' % label)
        if not minimum <= len(values) <= maximum:
            raise exception.Invalid(reason='%s: give between %d and %d, not %d'
                                           % (label, minimum, maximum, len(values)))
        checked = [rule(v, label) for v in values]
        if unique and len(set(checked)) != len(checked):
            raise exception.Invalid(reason='%s: each may be given only once' % label)
        return checked
    return check


_name = validation.name
_ref = validation.name  # a name or a uuid: both follow the name rule


def _nic(value, label):
    """A network name or id, or {'network', 'fixed_ip'?} or {'port'} (one NIC)."""
    if isinstance(value, str):
        return _ref(value, label)
    if not isinstance(value, dict) or set(value) - {'network', 'port', 'fixed_ip'} \
            or bool(value.get('network')) == bool(value.get('port')) \
            or (value.get('port') and value.get('fixed_ip') is not None):
        raise exception.Invalid(reason='%s: give a network (with a fixed IP or not) or '
                                       'a port, not %r' % (label, value))
    if value.get('port'):
        return {'port': _ref(value['port'], 'port')}
    nic = {'network': _ref(value['network'], label)}
    if value.get('fixed_ip') is not None:
        nic['fixed_ip'] = validation.ipv4_address(value['fixed_ip'], 'fixed IP')
    return nic

PROJECT_CREATE = Schema('project create', {'name': Field(_name, 'project name')})
USER_CREATE = Schema('user create', {
    'name': Field(_name, 'user name'),
    'password': Field(validation.password, 'password')})
USER_SET_PASSWORD = Schema('user set-password', USER_CREATE.fields)
USER_DISABLE = Schema('user disable', {'name': Field(_name, 'user name')})
ROLE_ADD = Schema('role add', {
    'user': Field(_name, 'user name'),
    'project': Field(_name, 'project name'),
    'role': Field(validation.role, 'role')})

FLAVOR_CREATE = Schema('flavor create', {
    'name': Field(_name, 'flavor name'),
    'vcpus': Field(_bounded(validation.positive_int, 256), 'vcpus'),
    'ram_mib': Field(_bounded(validation.positive_int, 4 * 1024 * 1024), 'ram (MiB)'),
    'disk_gib': Field(_bounded(validation.non_negative_int, 64 * 1024), 'disk (GiB)')})

IMAGE_CREATE = Schema('image create', {
    'name': Field(_name, 'image name'),
    'file': Field(validation.image_file, '--file', required=False),
    'kernel': Field(validation.image_file, '--kernel', required=False),
    'ramdisk': Field(validation.image_file, '--ramdisk', required=False),
    'disk_format': Field(validation.one_of('qcow2', 'raw'), '--disk-format',
                         required=False),
    'cmdline': Field(validation.kernel_cmdline, '--cmdline', required=False),
    'arch': Field(_name, 'architecture', required=False),
    'hypervisor_type': Field(_name, 'hypervisor type', required=False),
    'min_ram_mib': Field(_bounded(validation.non_negative_int, 1024 * 1024),
                         'minimum RAM (MiB)', required=False),
    'min_disk_gib': Field(_bounded(validation.non_negative_int, 64 * 1024),
                          'minimum disk (GiB)', required=False)})

NETWORK_CREATE = Schema('network create', {
    'name': Field(_name, 'network name'),
    'cidr': Field(lambda value, label: validation.ipv4_network(value), 'CIDR'),
    'gateway': Field(validation.ipv4_address, 'gateway', required=False),
    'dhcp_start': Field(validation.ipv4_address, 'DHCP range start', required=False),
    'dhcp_end': Field(validation.ipv4_address, 'DHCP range end', required=False)})

BOOT = Schema('boot', {
    'name': Field(validation.display_name, 'instance name'),
    'key_name': Field(validation.display_name, 'key pair', required=False),
    'flavor': Field(_ref, 'flavor'),
    'image': Field(_ref, 'image'),
    'networks': Field(_list_of(_nic, 1, MAX_NETWORKS), 'network'),
    'volume_sizes': Field(_list_of(_bounded(validation.positive_int, MAX_VOLUME_GIB),
                                   0, MAX_VOLUMES), 'volume size (GiB)'),
    'user_data': Field(validation.user_data, 'user data', required=False),
    'availability_zone': Field(_name, 'availability zone', required=False),
    'server_group': Field(_ref, 'server group', required=False),
    'properties': Field(validation.properties, 'property', required=False)})

RENAME = Schema('server update', {'name': Field(validation.display_name, 'name')})
