import uuid

import pytest

from provisioner.db import api as db_api
from provisioner.db import models
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


def _user_port(net, ip):
    with db_api.transaction() as session:
        port = models.Port(id=str(uuid.uuid4()), instance_id=None, network_id=net,
                           mac=ipam.mac_for(ip), ip=ip, boot_made=False)
        session.add(port)
    return port.id


def test_a_users_port_is_bound_then_unbound_and_a_boots_own_deleted(admin_context):
    net = fixtures.add_network('net1', '10.77.0.0/24', '10.77.0.2', '10.77.0.9')
    other = fixtures.add_network('net2', '10.78.0.0/24', '10.78.0.2', '10.78.0.9')
    mine = _user_port(net, '10.77.0.100')
    vm = fixtures.add_instance(admin_context, [net, other])
    nics = [{'port_id': mine}, {'network_id': other, 'fixed_ip': '10.78.0.50'}]
    ports = ipam.allocate_ports(vm, nics)
    assert [(p['id'], p['ip']) for p in ports] == [(mine, '10.77.0.100'),
                                                   (ports[1]['id'], '10.78.0.50')]
    assert ipam.allocate_ports(vm, nics) == ports  # a re-run adopts both
    other_vm = fixtures.add_instance(admin_context, [net], name='vm2')
    with pytest.raises(ipam.PortInUse):
        ipam.allocate_ports(other_vm, [{'port_id': mine}])
    ipam.release_ports(vm)  # a revert or a delete
    assert [(p['id'], p['instance_id']) for p in ipam.list_ports()] == [(mine, None)]
    ipam.release_ports(vm)  # idempotent


def test_a_fixed_ip_must_fit_and_be_free(admin_context):
    net = fixtures.add_network('net1', '10.77.0.0/24', '10.77.0.2', '10.77.0.9')
    _user_port(net, '10.77.0.100')
    vm = fixtures.add_instance(admin_context, [net])
    for ip, error in (('10.77.0.100', ipam.IpAddressAlreadyAllocated),
                      ('10.77.0.1', exception.Invalid),  # the gateway
                      ('10.77.0.255', exception.Invalid),
                      ('10.79.0.5', exception.Invalid)):
        with pytest.raises(error):
            ipam.allocate_ports(vm, [{'network_id': net, 'fixed_ip': ip}])
    assert ipam.ports_for(vm) == []


def test_a_network_without_subnet_has_no_addresses(admin_context):
    with db_api.transaction() as session:
        session.add(models.Network(id='n0', name='bare'))
    vm = fixtures.add_instance(admin_context, [])
    with pytest.raises(exception.Invalid, match='has no subnet'):
        ipam.allocate_ports(vm, ['n0'])
