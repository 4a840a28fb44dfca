import pytest

from provisioner import exception
from provisioner.network import ipam
from tests.unit import fixtures


def test_ports_get_consecutive_ips_and_unique_macs(admin_context):
    net = fixtures.add_network()
    a = fixtures.add_instance(admin_context, [net], name='a')
    b = fixtures.add_instance(admin_context, [net], name='b')
    (port_a,) = ipam.allocate_ports(a, [net])
    (port_b,) = ipam.allocate_ports(b, [net])
    assert (port_a['ip'], port_b['ip']) == ('10.77.0.2', '10.77.0.3')
    assert port_a['mac'] != port_b['mac'] and port_a['mac'].startswith('fa:16:3e:')


def test_rerun_adopts_the_port_it_allocated(admin_context):
    net = fixtures.add_network()
    a = fixtures.add_instance(admin_context, [net])
    first = ipam.allocate_ports(a, [net])
    assert ipam.allocate_ports(a, [net]) == first
    assert ipam.ports_for(a) == first


def test_exhausted_range_is_a_clear_conflict(admin_context):
    net = fixtures.add_network()
    ids = [fixtures.add_instance(admin_context, [net], name='vm%d' % i) for i in range(4)]
    for instance_id in ids[:3]:
        ipam.allocate_ports(instance_id, [net])
    with pytest.raises(exception.Conflict) as err:
        ipam.allocate_ports(ids[3], [net])
    assert 'No free IP address left on network net1' in str(err.value)


def test_release_frees_the_address_for_reuse(admin_context):
    net = fixtures.add_network()
    a = fixtures.add_instance(admin_context, [net], name='a')
    b = fixtures.add_instance(admin_context, [net], name='b')
    ip = ipam.allocate_ports(a, [net])[0]['ip']
    ipam.release_ports(a)
    ipam.release_ports(a)
    assert ipam.ports_for(a) == []
    assert ipam.allocate_ports(b, [net])[0]['ip'] == ip
