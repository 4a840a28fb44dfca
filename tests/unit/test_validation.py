import pytest

from provisioner import exception
from provisioner.network import addressing
from provisioner.network import shared as shared_networks
from provisioner import schemas
from provisioner import validation

NAME = schemas.titled(schemas.NAME, 'name')
VCPUS = schemas.titled(schemas.whole_number(1, 10), 'vcpus')
KERNEL = schemas.titled(schemas.IMAGE_FILE, '--kernel')
PROPERTIES = schemas.titled(schemas.PROPERTIES, 'property')


def _readable_file(path):
    validation.check(path, {'title': '--file', 'format': 'readable-file'})
    return path


@pytest.mark.parametrize('name', ['vm1', 'web-01', 'a.b_c', 'X' * 63, '0abc'])
def test_good_names_pass(name):
    assert validation.check(name, NAME) == name


@pytest.mark.parametrize('name,reason', [
    ('', 'must not be empty'),
    ('x' * 64, 'the limit is 63'),
    ('<domain>', 'may contain only'),
    ("vm'; rm -rf /", 'may contain only'),
    ('vm&amp;', 'may contain only'),
    ('-leading-dash', 'may contain only'),
    ('../etc', 'may contain only'),
    ('vm\n1', 'may contain only'),
    ('web1\n', 'may contain only'),  # a regex's $ matches before a final newline
])
def test_bad_names_are_refused_with_the_rule(name, reason):
    with pytest.raises(exception.Invalid) as err:
        validation.check(name, NAME)
    assert reason in str(err.value)


@pytest.mark.parametrize('value', [0, -1, True, '2', 1.5])
def test_positive_int_refuses_non_positive_and_non_int(value):
    with pytest.raises(exception.Invalid):
        validation.check(value, VCPUS)


def test_positive_int_enforces_maximum():
    with pytest.raises(exception.Invalid) as err:
        validation.check(11, VCPUS)
    assert 'at most 10' in str(err.value)


@pytest.mark.parametrize('cidr', ['10.0.0.0/33', '10.0.0.1/24', 'banana', '10.0.0.0/30',
                                  '::1/64'])
def test_bad_cidrs_are_refused(cidr):
    with pytest.raises(exception.Invalid):
        validation.check(cidr, addressing.CIDR)


def test_address_must_be_a_host_of_the_network():
    assert addressing.plan('10.9.0.0/24', '10.9.0.7')['gateway'] == '10.9.0.7'
    for bad in ('10.9.1.1', '10.9.0.0', '10.9.0.255', 'x'):
        with pytest.raises(exception.Invalid) as err:
            addressing.plan('10.9.0.0/24', bad)
        assert str(err.value).startswith('Invalid request: gateway ')


def test_readable_file(tmp_path):
    path = tmp_path / 'f'
    path.write_text('x')
    assert _readable_file(str(path)) == str(path)
    with pytest.raises(exception.Invalid) as err:
        _readable_file(str(tmp_path / 'missing'))
    assert 'does not exist' in str(err.value)
    with pytest.raises(exception.Invalid):
        _readable_file(str(tmp_path))


@pytest.fixture
def image_dir(conf, tmp_path):
    images = tmp_path / 'images'
    images.mkdir()
    (images / 'vmlinuz').write_bytes(b'k')
    (tmp_path / 'secret').write_text('x')
    conf.set_override('image_directories', [str(images)], group='image')
    return images


def test_image_files_must_stay_inside_the_image_directories(image_dir, tmp_path):
    assert validation.check(str(image_dir / 'vmlinuz'), KERNEL)
    (image_dir / 'escape').symlink_to(tmp_path / 'secret')
    (tmp_path / 'images-evil').mkdir()  # a sibling sharing the prefix is still outside
    (tmp_path / 'images-evil' / 'k').write_text('x')
    for path in (str(image_dir / '..' / 'secret'), str(image_dir / 'escape'),
                 '/etc/passwd', str(tmp_path / 'images-evil' / 'k')):
        with pytest.raises(exception.Invalid) as err:
            validation.check(path, KERNEL)
        assert 'is outside the image directories' in str(err.value)


def test_a_symlink_within_the_image_directories_is_followed(image_dir, admin_context):
    from provisioner.catalog import images
    (image_dir / 'current').symlink_to(image_dir / 'vmlinuz')
    assert validation.check(str(image_dir / 'current'), KERNEL)
    image = images.create('k', kernel=str(image_dir / 'current'))
    assert image['kernel_path'] == str(image_dir / 'vmlinuz')  # the file, not the link


def test_schema_refuses_unknown_and_missing_fields():
    with pytest.raises(exception.Invalid) as err:
        validation.check({'name': 'p', 'admin': True}, schemas.PROJECT_CREATE)
    assert 'project create does not take admin' in str(err.value)
    with pytest.raises(exception.Invalid) as err:
        validation.check({}, schemas.PROJECT_CREATE)
    assert 'project name is required' in str(err.value)


@pytest.mark.parametrize('value,reason', [
    ({'k': 'v' * 256}, 'the limit is 255'),
    ({'k k': 'v'}, "key 'k k' must be"),
    ({'k': 'a\tb'}, 'control characters'),
    ({str(i): 'v' for i in range(129)}, 'at most 128 property pairs'),
    (['k=v'], 'must be key=value pairs'),
])
def test_properties_rules(value, reason):
    with pytest.raises(exception.Invalid) as err:
        validation.check(value, PROPERTIES)
    assert reason in str(err.value)


_BOOT = {'name': 'vm1', 'flavor': 'tiny', 'image': 'guest', 'networks': ['net1'],
         'volume_sizes': []}


@pytest.mark.parametrize('field,value,reason', [
    ('availability_zone', 'zone a', "availability zone 'zone a' may contain only"),
    ('availability_zone', '', 'availability zone must not be empty'),
    ('server_group', '../g', "server group '../g' may contain only"),
    ('server_group', 7, 'server group must be text'),
])
def test_boot_schema_checks_the_placement_flags(field, value, reason):
    with pytest.raises(exception.Invalid) as err:
        validation.check(dict(_BOOT, **{field: value}), schemas.BOOT)
    assert reason in str(err.value)


@pytest.mark.parametrize('field,value,reason', [
    ('arch', 'x86 64', "architecture 'x86 64' may contain only"),
    ('hypervisor_type', '$(id)', "hypervisor type '$(id)' may contain only"),
    ('min_ram_mib', -1, 'minimum RAM (MiB) must be a whole number of at least 0'),
    ('min_disk_gib', 10 ** 9, 'minimum disk (GiB) must be at most'),
])
def test_image_schema_checks_the_scheduling_properties(field, value, reason):
    with pytest.raises(exception.Invalid) as err:
        validation.check({'name': 'img', field: value}, schemas.IMAGE_CREATE)
    assert reason in str(err.value)


@pytest.mark.parametrize('key', ['role\n', ''])
def test_property_keys_refuse_a_trailing_newline(key):
    with pytest.raises(exception.Invalid):
        validation.check({key: 'v'}, PROPERTIES)


@pytest.mark.parametrize('cidr', ['0.0.0.0/0', '10.0.0.0/8', '172.16.0.0/12',
                                  '10.0.0.0/15'])
def test_networks_larger_than_a_slash_16_are_refused_at_once(cidr):
    with pytest.raises(exception.Invalid) as err:
        validation.check(cidr, addressing.CIDR)
    assert str(err.value) == (
        'Invalid request: CIDR %s is too large: a network is one host bridge with one '
        'DHCP server, and a /16 (65534 addresses) is the most it serves; use a /16 or '
        'smaller' % cidr)


@pytest.mark.parametrize('cidr,special', [
    ('127.0.0.0/24', '127.0.0.0/8, loopback'),
    ('224.0.0.0/24', '224.0.0.0/4, multicast'),
    ('239.255.0.0/16', '224.0.0.0/4, multicast'),
    ('169.254.0.0/16', '169.254.0.0/16, link-local'),
    ('0.0.0.0/24', '0.0.0.0/8, "this network"'),
    ('240.0.0.0/24', '240.0.0.0/4, reserved'),
    ('255.255.255.255/32', '240.0.0.0/4, reserved, with the broadcast address'),
    ('192.0.0.0/24', '192.0.0.0/24, IETF protocol assignments'),
    ('192.0.0.0/16', '192.0.0.0/24, IETF protocol assignments'),  # contains it
])
def test_special_purpose_ranges_are_refused(cidr, special):
    with pytest.raises(exception.Invalid) as err:
        validation.check(cidr, addressing.CIDR)
    assert 'CIDR %s overlaps %s' % (cidr, special) in str(err.value)
    assert 'which cannot be a guest network; use a private range' in str(err.value)


@pytest.mark.parametrize('cidr', ['10.0.0.0/16', '172.16.5.0/24', '192.168.1.0/29',
                                  '100.64.0.0/16', '8.8.8.0/24', '198.18.0.0/24'])
def test_private_shared_and_public_unicast_ranges_are_allowed(cidr):
    assert validation.check(cidr, addressing.CIDR) == cidr
    assert shared_networks.CREATE['properties']['cidr'] is addressing.CIDR


def test_the_default_image_directory_is_the_import_directory_made_0750(conf, tmp_path):
    conf.clear_override('image_directories', group='image')
    import_dir = tmp_path / 'state' / 'import'
    with pytest.raises(exception.Invalid) as err:
        validation.check('/etc/shadow', KERNEL)
    assert str(err.value) == (
        'Invalid request: --kernel /etc/shadow is outside the image directories (%s): '
        'copy it into one, or add its directory to [image] image_directories'
        % import_dir)
    assert import_dir.is_dir() and import_dir.stat().st_mode & 0o777 == 0o750
    (import_dir / 'vmlinuz').write_bytes(b'k')
    assert validation.check(str(import_dir / 'vmlinuz'), KERNEL)


def test_an_empty_image_directories_list_refuses_every_path(conf, tmp_path):
    conf.set_override('image_directories', [], group='image')
    (tmp_path / 'k').write_bytes(b'k')
    with pytest.raises(exception.Invalid) as err:
        validation.check(str(tmp_path / 'k'), KERNEL)
    assert 'outside the image directories (none configured)' in str(err.value)


# -- the validator: messages, formats, the API's words ---------------------------------

def _message(instance, schema):
    with pytest.raises(exception.Invalid) as err:
        validation.check(instance, schema)
    return str(err.value).removeprefix('Invalid request: ')


def test_an_error_message_is_a_template_per_keyword_or_for_any():
    per_keyword = {'title': 'size', 'type': 'integer', 'maximum': 3,
                   'errorMessage': {'maximum': '{label} is at most {limit}, not {value}'}}
    assert _message(9, per_keyword) == 'size is at most 3, not 9'
    assert _message('9', per_keyword) == "size must be a whole number, not a string"
    any_keyword = dict(per_keyword, errorMessage='{label}: {value!r} will not do')
    assert _message('9', any_keyword) == "size: '9' will not do"
    assert _message(9, any_keyword) == 'size: 9 will not do'


def test_the_label_is_the_innermost_title_with_the_key_it_was_reached_by():
    schema = schemas.request('color set', {'colors': {
        'title': 'color', 'type': 'object',
        'additionalProperties': schemas.titled(schemas.text(5), '{label} {key}')}})
    assert _message({'colors': {'sky': 'azure blue'}}, schema) == \
        'color sky is 10 characters long; the limit is 5'
    assert _message({'colours': {}}, schema) == 'color set does not take colours'
    assert _message({}, dict(schema, required=['colors'])) == 'color is required'


def test_none_is_an_absent_argument_unless_it_means_something():
    schema = schemas.request('rename', {'name': schemas.titled(schemas.NAME, 'name')})
    assert validation.check({'name': None}, schema) == {}
    assert _message(None, schemas.titled(schemas.NAME, 'name')) == \
        'name must be text, not NoneType'
    with pytest.raises(exception.Invalid):
        validation.check({'name': None}, schema, none_is_absent=False)


def test_a_whole_number_is_an_int_not_a_float_nor_a_boolean():
    number = schemas.titled(schemas.whole_number(1, 10), 'vcpus')
    assert validation.check(2, number) == 2
    for value in (2.0, True):
        assert _message(value, number) == \
            'vcpus must be a whole number of at least 1, not %r' % value


def test_a_service_can_raise_its_own_error_kind():
    class Mine(exception.Invalid):
        msg_fmt = 'Mine: %(reason)s'
    with pytest.raises(Mine) as err:
        validation.check('', schemas.titled(schemas.NAME, 'key'), Mine)
    assert str(err.value) == 'Mine: key must not be empty'


def test_user_data_is_bytes_within_the_configured_limit(conf):
    conf.set_override('max_user_data_bytes', 4, group='compute')
    user_data = schemas.titled(schemas.USER_DATA, 'user data')
    assert validation.check(b'four', user_data) == b'four'
    assert _message(b'fives', user_data) == 'user data is 5 bytes; the limit is 4'
    assert _message('text', user_data) == 'user data must be bytes'


def test_base64_is_a_format_of_the_validator():
    encoded = {'title': 'user_data', 'type': 'string', 'format': 'base64'}
    assert validation.check('aGk=', encoded) == 'aGk='
    assert _message('aGk', encoded) == 'user_data is not valid base 64'
    assert _message('a b=', encoded) == 'user_data is not valid base 64'


def test_a_wrapping_anyof_says_in_its_own_words_what_it_wants():
    schema = {'anyOf': [{'type': 'null'}, {'type': 'integer', 'minimum': -1}],
              'errorMessage': {'anyOf': 'length must be -1 (everything) or at least 0'}}
    assert _message(-5, schema) == 'length must be -1 (everything) or at least 0'


def test_the_api_answers_with_novas_words_unless_the_schema_has_its_own():
    from provisioner.api import validation as api_validation
    from provisioner.api import wsgi
    schema = {'type': 'object', 'properties': {
        'server': {'type': 'object', 'required': ['name'], 'properties': {
            'min_count': {'const': 1, 'errorMessage': '{key}={value} is not supported'},
        }}}}
    with pytest.raises(wsgi.HTTPError) as err:
        api_validation.validate({'server': {}}, schema)
    assert (err.value.status, err.value.message) == (
        400, "Invalid input for field/attribute server. Value: {}. 'name' is a "
             "required property")
    with pytest.raises(wsgi.HTTPError) as err:
        api_validation.validate({'server': {'name': 'a', 'min_count': 2}}, schema)
    assert err.value.message == 'min_count=2 is not supported'


def test_a_handler_gets_the_schema_of_its_microversion():
    from provisioner.api import validation as api_validation
    from provisioner.api import wsgi
    old = {'type': 'object', 'additionalProperties': False,
           'properties': {'name': {'type': 'string'}}}
    new = dict(old, properties=dict(old['properties'], type={'enum': ['ssh']}))

    @api_validation.schema(old, '2.1', '2.1')
    @api_validation.schema(new, '2.2')
    def create(req, body):
        return body

    class Req:
        api_version = (2, 1)

    req = Req()
    with pytest.raises(wsgi.HTTPError):
        create(req, body={'name': 'k', 'type': 'ssh'})
    req.api_version = (2, 5)
    assert create(req, body={'name': 'k', 'type': 'ssh'}) == {'name': 'k', 'type': 'ssh'}


def _schemas_of(module):
    return [(module.__name__ + '.' + name, value) for name, value in vars(module).items()
            if name.isupper() and isinstance(value, dict)
            and ('type' in value or 'properties' in value)]


def test_every_schema_is_valid_json_schema():
    import importlib
    import pkgutil

    import jsonschema

    import provisioner
    found = []
    for info in pkgutil.walk_packages(provisioner.__path__, 'provisioner.'):
        if info.name.startswith(('provisioner.api.', 'provisioner.catalog.',
                                 'provisioner.compute.', 'provisioner.network.',
                                 'provisioner.volume.', 'provisioner.quota.',
                                 'provisioner.identity.', 'provisioner.dashboard.')) \
                or info.name == 'provisioner.schemas':
            found.extend(_schemas_of(importlib.import_module(info.name)))
    assert len(found) > 40
    for name, schema in found:
        try:
            jsonschema.Draft202012Validator.check_schema(schema)
        except jsonschema.SchemaError as exc:
            raise AssertionError('%s: %s' % (name, exc.message)) from None
