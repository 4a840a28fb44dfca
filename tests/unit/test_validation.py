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
