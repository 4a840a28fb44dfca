"""Network segments: VNIs from the configured ranges, the DHCP host and the hosts
holding a network across hosts (what l2population pushes)."""

import pytest

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import ipam
from provisioner.network import segments
from provisioner.network import service
from tests.unit import fixtures


def _segment(network_id):
    with db_api.transaction() as session:
        net = session.get(models.Network, network_id)
        return net.network_type, net.segmentation_id


def test_networks_take_the_lowest_free_vni_of_the_ranges(conf):
    conf.set_override('vni_ranges', ['7:8', '20:20'], group='network')
    made = [service.add_network('n%d' % i, None)['id'] for i in range(3)]
    assert [_segment(n) for n in made] == [('vxlan', 7), ('vxlan', 8), ('vxlan', 20)]
    with pytest.raises(segments.NoNetworkAvailable) as err:
        service.add_network('n3', None)
    assert err.value.http_status == 503
    assert 'No tenant network is available' in str(err.value)
    service.remove_network(made[1], lambda net: None)
    assert _segment(service.add_network('n4', None)['id']) == ('vxlan', 8)


def test_an_admin_names_the_vni_once(conf):
    made = service.add_network('a', None, segment={'network_type': 'vxlan',
                                                   'segmentation_id': 5000})
    assert (made['network_type'], made['segmentation_id']) == ('vxlan', 5000)
    with pytest.raises(segments.SegmentationIdInUse):
        service.add_network('b', None, segment={'segmentation_id': 5000})
    for bad in ({'network_type': 'gre'}, {'segmentation_id': 2 ** 24},
                {'segmentation_id': 'x'}):
        with pytest.raises(exception.Invalid):
            service.add_network('c', None, segment=bad)


def _report(host, ip):
    fixtures.add_host(host)
    with db_api.transaction() as session:
        session.query(models.Host).filter_by(name=host).update({'underlay_ip': ip})


def _boot_on(admin_context, net, host, name):
    instance = fixtures.add_instance(admin_context, [net], name=name)
    with db_api.transaction() as session:
        session.get(models.Instance, instance).host = host
    return instance, ipam.allocate_ports(instance, [net])


def test_first_host_serves_dhcp_and_every_holder_floods_to_the_others(admin_context):
    net = fixtures.add_network()  # made before segments: it gets one at its first bind
    _report('h1', '10.99.0.1')
    _report('h2', '10.99.0.2')
    a, ports_a = _boot_on(admin_context, net, 'h1', 'a')
    (bound,) = segments.bind_ports(ports_a, 'h1')
    assert bound['network']['dhcp_host'] == 'h1' and bound['network']['peers'] == []
    assert bound['network']['network_type'] == 'vxlan'
    b, ports_b = _boot_on(admin_context, net, 'h2', 'b')
    (bound,) = segments.bind_ports(ports_b, 'h2')
    assert (bound['network']['dhcp_host'], bound['network']['peers']) == (
        'h1', ['10.99.0.1'])
    plan = segments.sync_plan(net)
    assert plan['members'] == {'h1': '10.99.0.1', 'h2': '10.99.0.2'}
    assert sorted(e['mac'] for e in plan['entries']) == sorted(
        [ports_a[0]['mac'], ports_b[0]['mac']])
    assert plan['remove'] == []
    # h1's only port goes: it stays, as the DHCP host of the ports of h2.
    ipam.release_ports(a)
    plan = segments.sync_plan(net, leaving=['h1'])
    assert plan['members'] == {'h1': '10.99.0.1', 'h2': '10.99.0.2'}
    assert [e['mac'] for e in plan['entries']] == [ports_b[0]['mac']]
    # The last port goes: both hosts remove it, and the next port's host serves it.
    plan = segments.sync_plan(net, excluding_instance=b, leaving=['h2'])
    assert (plan['members'], plan['remove'], plan['dhcp_host']) == (
        {}, ['h1', 'h2'], None)
    ipam.release_ports(b)
    (bound,) = segments.bind_ports(_boot_on(admin_context, net, 'h2', 'c')[1], 'h2')
    assert bound['network']['dhcp_host'] == 'h2'


def test_a_host_without_an_l2_agent_keeps_its_own_dhcp(admin_context):
    net = fixtures.add_network()
    fixtures.add_host('old')
    _, ports = _boot_on(admin_context, net, 'old', 'a')
    (bound,) = segments.bind_ports(ports, 'old')
    assert (bound['network']['dhcp_host'], bound['network']['peers']) == (None, [])
    assert segments.sync_plan(net)['members'] == {}


def test_l2pop_tells_every_holder_its_peers_and_the_dhcp_host_the_entries(
        admin_context, monkeypatch):
    from provisioner import deployment
    from provisioner.engine import l2pop
    from provisioner.worker import l2

    sent = []

    class FakeAPI:
        def sync_network(self, host, net, member, entries=None):
            sent.append((host, net.get('peers'), member,
                         [e['mac'] for e in entries] if entries is not None else None))

    monkeypatch.setattr(l2, 'L2AgentAPI', FakeAPI)
    net = fixtures.add_network()
    _report('h1', '10.99.0.1')
    _report('h2', '10.99.0.2')
    _, ports_a = _boot_on(admin_context, net, 'h1', 'a')
    segments.bind_ports(ports_a, 'h1')
    b, ports_b = _boot_on(admin_context, net, 'h2', 'b')
    l2pop.sync([net])
    assert sent == []  # all-in-one: one host, its own steps plug it
    monkeypatch.setattr(deployment, 'mode', lambda: deployment.DISTRIBUTED)
    l2pop.sync([net])
    macs = [ports_a[0]['mac'], ports_b[0]['mac']]
    assert sent == [('h1', ['10.99.0.2'], True, macs), ('h2', ['10.99.0.1'], True, None)]
    del sent[:]
    l2pop.sync([net], leaving=['h2'], excluding_instance=b, strict=False)
    assert sent == [('h1', [], True, macs[:1]), ('h2', None, False, None)]


def test_the_dhcp_host_holds_every_hosts_entries_and_the_others_none(admin_context):
    from provisioner.maintenance import audit
    from provisioner.maintenance import records
    from provisioner.virt import inventory as inv

    net = fixtures.add_network()
    _report('h1', '10.99.0.1')
    _report('h2', '10.99.0.2')
    a, ports_a = _boot_on(admin_context, net, 'h1', 'a')
    segments.bind_ports(ports_a, 'h1')
    b, ports_b = _boot_on(admin_context, net, 'h2', 'b')
    with db_api.transaction() as session:
        for instance in (a, b):
            session.get(models.Instance, instance).vm_state = 'active'
    held = [inv.Resource(inv.DHCP_HOST, port['mac'], net, network=net)
            for port in ports_a + ports_b]
    # The DHCP host's entry of h2's port is no orphan there ...
    assert [f.name for f in audit.compare(held, records.load('h1'), 0)
            if f.kind == inv.DHCP_HOST] == []
    # ... and h2, which holds no entry, misses none.
    missing = audit.compare([], records.load('h2'), 0)
    assert (inv.DHCP_HOST, ports_b[0]['mac']) not in {(f.kind, f.name) for f in missing}
    assert (inv.NETWORK, net) in {(f.kind, f.name) for f in missing}
