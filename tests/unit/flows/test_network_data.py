"""network_data.json of the config drive: what the guest learns of its subnet."""

from provisioner.compute import guest_documents


def _port(**network):
    net = dict({'id': 'n1', 'cidr': '10.5.0.0/24', 'gateway': '10.5.0.1',
                'dns_nameservers': []}, **network)
    return {'id': 'p1', 'mac': 'fa:16:3e:05:00:07', 'ip': '10.5.0.7', 'network': net}


def test_dns_servers_reach_the_guest_and_no_gateway_means_no_route():
    data = guest_documents.network_data([_port(gateway=None,
                                           dns_nameservers=['192.0.2.53'])])
    (network,) = data['networks']
    assert network['routes'] == [] and network['ip_address'] == '10.5.0.7'
    assert network['dns_nameservers'] == ['192.0.2.53']
    assert data['services'] == [{'type': 'dns', 'address': '192.0.2.53'}]


def test_a_gateway_is_the_default_route():
    (network,) = guest_documents.network_data([_port()])['networks']
    assert network['routes'] == [{'network': '0.0.0.0', 'netmask': '0.0.0.0',
                                  'gateway': '10.5.0.1'}]
