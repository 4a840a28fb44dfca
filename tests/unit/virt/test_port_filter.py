"""A port's security groups as a libvirt nwfilter (virt.libvirt.port_filter)."""

from lxml import etree

from provisioner.virt.libvirt import config
from provisioner.virt.libvirt import port_filter

NAME = 'pt1-port-6f1c0c3e-8a0d-4b8e-9b33-0f7bfa2f6a11'


def _state(**changes):
    return dict({'port_id': NAME[9:], 'mac': 'fa:16:3e:00:00:05', 'ips': ['10.0.0.5'],
                 'port_security': True, 'allowed_address_pairs': [], 'rules': []},
                **changes)


def _rule(direction, protocol=None, low=None, high=None, remote=None,
          ethertype='IPv4'):
    return {'direction': direction, 'ethertype': ethertype, 'protocol': protocol,
            'port_range_min': low, 'port_range_max': high, 'remote': remote}


def _filter(state):
    return etree.fromstring(port_filter.build_filter(NAME, state))


def _rules(root, priority=500):
    """(action, direction, element, attributes) of the rules at ``priority``."""
    return [(r.get('action'), r.get('direction'), r[0].tag, dict(r[0].attrib))
            for r in root.iter('rule') if r.get('priority') == str(priority)]


def test_a_port_without_rules_sends_only_from_its_addresses_and_takes_replies():
    root = _filter(_state())
    assert (root.get('name'), root.get('chain')) == (NAME, 'root')
    assert root.findtext('uuid') == port_filter.filter_uuid(NAME)
    ref, = root.iter('filterref')
    assert ref.get('filter') == 'clean-traffic'
    assert [(p.get('name'), p.get('value')) for p in ref] == [
        ('MAC', 'fa:16:3e:00:00:05'), ('IP', '10.0.0.5')]
    assert _rules(root, -400) == [('accept', 'inout', 'all',
                                   {'state': 'ESTABLISHED,RELATED'})]
    assert sorted(_rules(root, -300)) == [
        ('accept', 'in', 'udp', {'srcportstart': '67', 'dstportstart': '68'}),
        ('accept', 'out', 'udp', {'srcportstart': '68', 'dstportstart': '67'})]
    assert _rules(root) == []  # no group rule: nothing else in or out
    assert _rules(root, 1000) == [('drop', 'inout', 'all', {})]


def test_group_rules_become_stateful_accepts():
    root = _filter(_state(rules=[
        _rule('ingress', 'tcp', 5000, 5001, remote=['10.0.0.7', '10.0.0.9']),
        _rule('ingress', 'icmp', 8, None, remote=['192.168.0.0/16']),
        _rule('egress'),
        _rule('egress', '17', 53, 53, remote=[]),   # an empty remote group
        _rule('ingress', 'tcp', ethertype='IPv6'),   # IPv6: not applied
        _rule('ingress', 'gre')]))                   # no libvirt match: nothing
    assert _rules(root) == [
        ('accept', 'in', 'tcp', {'dstportstart': '5000', 'dstportend': '5001',
                                 'srcipaddr': '10.0.0.7', 'srcipmask': '32'}),
        ('accept', 'in', 'tcp', {'dstportstart': '5000', 'dstportend': '5001',
                                 'srcipaddr': '10.0.0.9', 'srcipmask': '32'}),
        ('accept', 'in', 'icmp', {'type': '8', 'srcipaddr': '192.168.0.0',
                                  'srcipmask': '16'}),
        ('accept', 'out', 'all', {})]


def test_egress_remote_is_the_destination():
    root = _filter(_state(rules=[_rule('egress', 'udp', 53, 53,
                                       remote=['10.1.0.0/24'])]))
    assert _rules(root) == [('accept', 'out', 'udp', {
        'dstportstart': '53', 'dstportend': '53', 'dstipaddr': '10.1.0.0',
        'dstipmask': '24'})]


def test_allowed_address_pairs_may_send_too():
    root = _filter(_state(allowed_address_pairs=[
        {'ip_address': '10.0.0.50', 'mac_address': 'FA:16:3E:00:00:50'},
        {'ip_address': '10.0.0.5', 'mac_address': 'fa:16:3e:00:00:05'},
        {'ip_address': '10.9.0.0/24', 'mac_address': 'fa:16:3e:00:00:05'}]))
    ref, = root.iter('filterref')
    assert [(p.get('name'), p.get('value')) for p in ref] == [
        ('MAC', 'fa:16:3e:00:00:05'), ('MAC', 'fa:16:3e:00:00:50'),
        ('IP', '10.0.0.5'), ('IP', '10.0.0.50')]  # a prefix is not an address


def test_without_port_security_nothing_is_filtered():
    root = _filter(_state(port_security=False, rules=[_rule('ingress', 'tcp')]))
    assert list(root) == [root.find('uuid')]


def test_the_uuid_stays_with_the_name():
    assert port_filter.filter_uuid(NAME) == port_filter.filter_uuid(NAME)
    assert port_filter.filter_uuid(NAME) != port_filter.filter_uuid(NAME + 'x')


def test_a_domain_interface_refers_to_its_filter():
    iface = config.GuestInterface('fa:16:3e:00:00:05', 'pt1-net-x', 1450, NAME)
    assert etree.tostring(iface.format_dom()).decode().endswith(
        "<mtu size=\"1450\"/><filterref filter=\"%s\"/></interface>" % NAME)
    plain = config.GuestInterface('fa:16:3e:00:00:05', 'pt1-net-x')
    assert plain.format_dom().find('filterref') is None
