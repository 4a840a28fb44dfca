"""Each network's DHCP in a namespace of its own (Neutron's DHCP agent): two networks
may share a CIDR, and one network may have two subnets, both served.

The guests prove it on their consoles (they print the address they leased); the
host shows no route of theirs and no address on their bridges.
"""

import ipaddress

from tests import netutil


def _server(openstack, name, *nic):
    return openstack.json('server', 'create', '--flavor', 'tiny', '--image', 'guest',
                          *nic, '--wait', name)


def _leased(openstack, server):
    return openstack.wait_for_console(server['id'])['ip']


def _address(openstack, server):
    [(_network, [ip])] = openstack.json('server', 'show', server['id'])[
        'addresses'].items()
    return ip


def _delete(openstack, servers, ports, networks):
    for server in servers:
        openstack.run('server', 'delete', '--wait', server['id'], check=False)
    for port in ports:
        openstack.run('port', 'delete', port['id'], check=False)
    for network in networks:
        openstack.run('network', 'delete', network, check=False)


def test_two_networks_of_one_cidr_each_serve_their_guest(openstack):
    cidr = netutil.free_cidr(248)
    servers = []
    try:
        subnets = []
        for name in ('api-same-a', 'api-same-b'):
            openstack.json('network', 'create', name)
            subnets.append(openstack.json('subnet', 'create', '--network', name,
                                          '--subnet-range', cidr, name))
        assert subnets[0]['cidr'] == subnets[1]['cidr'] == cidr
        for name in ('api-same-a', 'api-same-b'):
            servers.append(_server(openstack, 'vm-' + name, '--network', name))
        for server in servers:
            ip = _address(openstack, server)
            assert ipaddress.ip_address(ip) in ipaddress.ip_network(cidr)
            assert _leased(openstack, server) == ip
    finally:
        _delete(openstack, servers, (), ('api-same-a', 'api-same-b'))


def test_a_second_subnet_gives_a_port_its_address_and_dhcp_serves_it(openstack):
    first_cidr, second_cidr = netutil.free_cidr(248), netutil.free_cidr(248)
    servers, ports = [], []
    try:
        openstack.json('network', 'create', 'api-two-subnets')
        first = openstack.json('subnet', 'create', '--network', 'api-two-subnets',
                               '--subnet-range', first_cidr, 'api-first')
        second = openstack.json('subnet', 'create', '--network', 'api-two-subnets',
                                '--subnet-range', second_cidr, 'api-second')
        overlapping = openstack.run('subnet', 'create', '--network', 'api-two-subnets',
                                    '--subnet-range', first_cidr, 'api-third',
                                    check=False)
        assert overlapping.returncode != 0 and 'overlaps with another subnet' in \
            overlapping.stderr, overlapping.stderr
        assert sorted(openstack.json('network', 'show', 'api-two-subnets')['subnets']) \
            == sorted([first['id'], second['id']])
        ports.append(openstack.json('port', 'create', '--network', 'api-two-subnets',
                                    'api-port-first'))
        ports.append(openstack.json('port', 'create', '--network', 'api-two-subnets',
                                    '--fixed-ip', 'subnet=%s' % second['id'],
                                    'api-port-second'))
        [(first_fixed), (second_fixed)] = [p['fixed_ips'][0] for p in ports]
        assert first_fixed['subnet_id'] == first['id']
        assert second_fixed['subnet_id'] == second['id']
        assert ipaddress.ip_address(second_fixed['ip_address']) in \
            ipaddress.ip_network(second_cidr)
        for port in ports:
            servers.append(_server(openstack, 'vm-%s' % port['name'],
                                   '--port', port['id']))
        for server, fixed in zip(servers, (first_fixed, second_fixed)):
            assert _leased(openstack, server) == fixed['ip_address']
    finally:
        _delete(openstack, servers, ports, ('api-two-subnets',))
