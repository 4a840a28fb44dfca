import pytest

from provisioner import exception
from provisioner import validation


@pytest.mark.parametrize('name', ['vm1', 'web-01', 'a.b_c', 'X' * 63, '0abc'])
def test_good_names_pass(name):
    assert validation.name(name) == name


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
        validation.name(name)
    assert reason in str(err.value)


@pytest.mark.parametrize('value', [0, -1, True, '2', 1.5])
def test_positive_int_refuses_non_positive_and_non_int(value):
    with pytest.raises(exception.Invalid):
        validation.positive_int(value, 'vcpus', 10)


def test_positive_int_enforces_maximum():
    with pytest.raises(exception.Invalid) as err:
        validation.positive_int(11, 'vcpus', 10)
    assert 'at most 10' in str(err.value)


@pytest.mark.parametrize('cidr', ['10.0.0.0/33', '10.0.0.1/24', 'banana', '10.0.0.0/30',
                                  '::1/64'])
def test_bad_cidrs_are_refused(cidr):
    with pytest.raises(exception.Invalid):
        validation.ipv4_network(cidr)


def test_address_must_be_a_host_of_the_network():
    net = validation.ipv4_network('10.9.0.0/24')
    assert str(validation.address_in(net, '10.9.0.7', 'gateway')) == '10.9.0.7'
    for bad in ('10.9.1.1', '10.9.0.0', '10.9.0.255', 'x'):
        with pytest.raises(exception.Invalid):
            validation.address_in(net, bad, 'gateway')


def test_readable_file(tmp_path):
    path = tmp_path / 'f'
    path.write_text('x')
    assert validation.readable_file(str(path), '--file') == str(path)
    with pytest.raises(exception.Invalid) as err:
        validation.readable_file(str(tmp_path / 'missing'), '--file')
    assert 'does not exist' in str(err.value)
    with pytest.raises(exception.Invalid):
        validation.readable_file(str(tmp_path), '--file')


@pytest.fixture
def image_dir(conf, tmp_path):
    images = tmp_path / 'images'
    images.mkdir()
    (images / 'vmlinuz').write_bytes(b'k')
    (tmp_path / 'secret').write_text('x')
    conf.set_override('image_directories', [str(images)], group='image')
    return images


def test_image_files_must_stay_inside_the_image_directories(image_dir, tmp_path):
    assert validation.image_file(str(image_dir / 'vmlinuz'), '--kernel') == \
        str(image_dir / 'vmlinuz')
    (image_dir / 'escape').symlink_to(tmp_path / 'secret')
    (tmp_path / 'images-evil').mkdir()  # a sibling sharing the prefix is still outside
    (tmp_path / 'images-evil' / 'k').write_text('x')
    for path in (str(image_dir / '..' / 'secret'), str(image_dir / 'escape'),
                 '/etc/passwd', str(tmp_path / 'images-evil' / 'k')):
        with pytest.raises(exception.Invalid) as err:
            validation.image_file(path, '--kernel')
        assert 'is outside the image directories' in str(err.value)


def test_a_symlink_within_the_image_directories_is_followed(image_dir):
    (image_dir / 'current').symlink_to(image_dir / 'vmlinuz')
    assert validation.image_file(str(image_dir / 'current'), '--kernel') == \
        str(image_dir / 'vmlinuz')


def test_schema_refuses_unknown_and_missing_fields():
    from provisioner import schemas
    with pytest.raises(exception.Invalid) as err:
        schemas.validate(schemas.PROJECT_CREATE, {'name': 'p', 'admin': True})
    assert 'project create does not take admin' in str(err.value)
    with pytest.raises(exception.Invalid) as err:
        schemas.validate(schemas.PROJECT_CREATE, {})
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
        validation.properties(value)
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
    from provisioner import schemas
    with pytest.raises(exception.Invalid) as err:
        schemas.validate(schemas.BOOT, dict(_BOOT, **{field: value}))
    assert reason in str(err.value)


@pytest.mark.parametrize('field,value,reason', [
    ('arch', 'x86 64', "architecture 'x86 64' may contain only"),
    ('hypervisor_type', '$(id)', "hypervisor type '$(id)' may contain only"),
    ('min_ram_mib', -1, 'minimum RAM (MiB) must be a whole number of at least 0'),
    ('min_disk_gib', 10 ** 9, 'minimum disk (GiB) must be at most'),
])
def test_image_schema_checks_the_scheduling_properties(field, value, reason):
    from provisioner import schemas
    with pytest.raises(exception.Invalid) as err:
        schemas.validate(schemas.IMAGE_CREATE, {'name': 'img', field: value})
    assert reason in str(err.value)


@pytest.mark.parametrize('key', ['role\n', ''])
def test_property_keys_refuse_a_trailing_newline(key):
    with pytest.raises(exception.Invalid):
        validation.properties({key: 'v'})


@pytest.mark.parametrize('cidr', ['0.0.0.0/0', '10.0.0.0/8', '172.16.0.0/12',
                                  '10.0.0.0/15'])
def test_networks_larger_than_a_slash_16_are_refused_at_once(cidr):
    with pytest.raises(exception.Invalid) as err:
        validation.ipv4_network(cidr)
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
        validation.ipv4_network(cidr)
    assert 'CIDR %s overlaps %s' % (cidr, special) in str(err.value)
    assert 'which cannot be a guest network; use a private range' in str(err.value)


@pytest.mark.parametrize('cidr', ['10.0.0.0/16', '172.16.5.0/24', '192.168.1.0/29',
                                  '100.64.0.0/16', '8.8.8.0/24', '198.18.0.0/24'])
def test_private_shared_and_public_unicast_ranges_are_allowed(cidr):
    assert str(validation.ipv4_network(cidr)) == cidr


def test_the_default_image_directory_is_the_import_directory_made_0750(conf, tmp_path):
    conf.clear_override('image_directories', group='image')
    import_dir = tmp_path / 'state' / 'import'
    with pytest.raises(exception.Invalid) as err:
        validation.image_file('/etc/shadow', '--kernel')
    assert str(err.value) == (
        'Invalid request: --kernel /etc/shadow is outside the image directories (%s): '
        'copy it into one, or add its directory to [image] image_directories'
        % import_dir)
    assert import_dir.is_dir() and import_dir.stat().st_mode & 0o777 == 0o750
    (import_dir / 'vmlinuz').write_bytes(b'k')
    assert validation.image_file(str(import_dir / 'vmlinuz'), '--kernel') == \
        str(import_dir / 'vmlinuz')


def test_an_empty_image_directories_list_refuses_every_path(conf, tmp_path):
    conf.set_override('image_directories', [], group='image')
    (tmp_path / 'k').write_bytes(b'k')
    with pytest.raises(exception.Invalid) as err:
        validation.image_file(str(tmp_path / 'k'), '--kernel')
    assert 'outside the image directories (none configured)' in str(err.value)
