"""Property tests: no input breaks a request validator or the domain XML builder.

A validator either accepts a value (which then obeys its rule) or raises Invalid -- never
another exception. The builder either refuses a spec with Invalid or renders XML with
exactly the elements it puts there (whatever the text, no element is injected), that
libvirt's own parser (the test:/// driver) accepts, and that keeps the user's text.
"""

import ipaddress
import re
import uuid

from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import libvirt
from lxml import etree
import pytest

from provisioner import exception
from provisioner.network import addressing
from provisioner.network import shared as shared_networks
from provisioner import schemas
from provisioner import validation
from provisioner.virt.libvirt import config
from provisioner.virt.libvirt import designer
from provisioner.virt import spec as virt_spec

HOSTILE_TEXT = st.one_of(
    st.text(max_size=80),
    st.sampled_from(['<a/>', '</name><evil/>', '&amp;', ']]>', '"\'', '../../etc/passwd',
                     '$(reboot)', '`id`', 'a;b|c&d', '\x00', '\ud800', 'x' * 300]),
    st.text(alphabet=st.characters(codec='utf-8'), max_size=20).map(
        lambda s: '<%s>' % s))
ANYTHING = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
                     HOSTILE_TEXT, st.binary(max_size=100),
                     st.lists(HOSTILE_TEXT, max_size=3),
                     st.dictionaries(HOSTILE_TEXT, HOSTILE_TEXT, max_size=3))
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(HOSTILE_TEXT)
def test_name_accepts_only_the_documented_alphabet(conf, value):
    try:
        result = validation.check(value, schemas.titled(schemas.NAME, 'name'))
    except exception.Invalid as err:
        assert str(err).startswith('Invalid request: name ')
        return
    assert re.fullmatch(r'[A-Za-z0-9][A-Za-z0-9._-]{0,62}', result)


@SETTINGS
@given(st.fixed_dictionaries({}, optional={
    'name': ANYTHING, 'flavor': ANYTHING, 'image': ANYTHING, 'networks': ANYTHING,
    'volume_sizes': ANYTHING, 'user_data': ANYTHING, 'properties': ANYTHING,
    'availability_zone': ANYTHING, 'server_group': ANYTHING, 'unknown': ANYTHING}))
def test_boot_schema_accepts_or_refuses_cleanly(conf, request):
    try:
        checked = validation.check(request, schemas.BOOT)
    except exception.Invalid:
        return
    assert validation.check(checked['name'], schemas.DISPLAY_NAME) == checked['name']
    assert 1 <= len(checked['networks']) <= schemas.MAX_NETWORKS
    assert all(isinstance(s, int) and 1 <= s <= schemas.MAX_VOLUME_GIB
               for s in checked['volume_sizes'])
    for ref in ('availability_zone', 'server_group'):
        assert checked.get(ref) is None or validation.check(checked[ref], schemas.NAME)
    for key, value in (checked.get('properties') or {}).items():
        assert re.fullmatch(r'[A-Za-z0-9_.:-]{1,255}', key)
        assert len(value) <= 255 and not any(ord(c) < 32 for c in value)


@SETTINGS
@given(st.fixed_dictionaries({
    'name': ANYTHING, 'cidr': ANYTHING, 'gateway': ANYTHING, 'dhcp_start': ANYTHING,
    'dhcp_end': ANYTHING}))
def test_network_schema_accepts_or_refuses_cleanly(conf, request):
    try:
        checked = validation.check(request, shared_networks.CREATE)
    except exception.Invalid:
        return
    assert validation.check(checked['cidr'], addressing.CIDR)
    assert 16 <= ipaddress.IPv4Network(checked['cidr']).prefixlen <= 29


@SETTINGS
@given(st.fixed_dictionaries({
    'name': ANYTHING, 'vcpus': ANYTHING, 'ram_mib': ANYTHING, 'disk_gib': ANYTHING}))
def test_flavor_schema_accepts_or_refuses_cleanly(conf, request):
    try:
        checked = validation.check(request, schemas.FLAVOR_CREATE)
    except exception.Invalid:
        return
    assert checked['vcpus'] >= 1 and checked['ram_mib'] >= 1 and checked['disk_gib'] >= 0


def _shape(element):
    """The element tree without any text or attribute values: what the builder made."""
    return (element.tag, sorted(element.attrib), [_shape(c) for c in element])


def _spec(display_name='vm', cmdline='console=ttyS0', path='/p', network='net'):
    return virt_spec.GuestSpec(
        uuid=str(uuid.UUID(int=7)), display_name=display_name, vcpus=1, memory_mib=128,
        console_log=path + '/console.log', kernel=path + '/vmlinuz',
        ramdisk=path + '/initrd', cmdline=cmdline, volumes=[(path + '/v1', 'serial1')],
        config_drive=path + '/disk.config', nics=[('52:54:00:00:00:01', network)])


@pytest.fixture(scope='module')
def libvirt_test_driver(tmp_path_factory):
    node = tmp_path_factory.mktemp('xml') / 'node.xml'
    node.write_text('<node/>')
    conn = libvirt.open('test://%s' % node)
    yield conn
    conn.close()


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(display_name=HOSTILE_TEXT, cmdline=HOSTILE_TEXT,
       path=HOSTILE_TEXT.map(lambda s: '/' + s.replace('/', '_')),
       network=HOSTILE_TEXT)
def test_domain_xml_has_only_the_builders_elements(conf, libvirt_test_driver,
                                                   display_name, cmdline, path, network):
    # A name of only whitespace gets no <title> (it would be empty): so must the reference.
    # (a plain space: str.split() also counts control characters such as '\x1f').
    benign_name = 'vm' if display_name.split() else ' '
    reference = etree.fromstring(
        designer.build_guest(_spec(benign_name), 'qemu', conf).to_xml())
    try:
        xml = designer.build_guest(_spec(display_name, cmdline, path, network), 'qemu',
                                   conf).to_xml()
    except exception.Invalid as err:
        assert 'not valid in XML' in str(err)
        return
    parsed = etree.fromstring(xml)
    assert _shape(parsed) == _shape(reference)
    shown = parsed.find('metadata/{%s}instance/{%s}display-name'
                        % (config.INSTANCE_NS, config.INSTANCE_NS))
    assert shown.text == display_name or (shown.text is None and display_name == '')
    try:
        domain = libvirt_test_driver.defineXML(xml)
    except libvirt.libvirtError as err:
        # libvirt refuses some values on its own terms (e.g. a network name it cannot
        # look up is fine; an invalid name is not): the designer must refuse them first.
        raise AssertionError('libvirt rejected the XML: %s' % err)
    try:
        assert domain.name() == designer.domain_name(str(uuid.UUID(int=7)))
    finally:
        domain.undefine()
