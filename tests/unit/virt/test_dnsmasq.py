"""A network's dnsmasq in its DHCP namespace: its command line, options and hosts
files (pure), and the names that keep namespace hosts of one machine apart."""

import json
import subprocess

import pytest

from provisioner.virt import dhcp_namespace
from provisioner.virt import dnsmasq

FIRST = {'id': 's1', 'cidr': '10.77.0.0/24', 'gateway': '10.77.0.1',
         'dhcp_start': '10.77.0.2', 'dhcp_end': '10.77.0.9', 'enable_dhcp': True,
         'dns_nameservers': ['192.0.2.53'],
         'host_routes': [{'destination': '10.50.0.0/16', 'nexthop': '10.77.0.254'}]}
SECOND = {'id': 's2', 'cidr': '10.88.0.0/28', 'gateway': None,
          'dhcp_start': '10.88.0.2', 'dhcp_end': '10.88.0.9', 'enable_dhcp': True}
FILES = {name: '/s/%s' % name for name in ('pid', 'hosts', 'opts', 'leases', 'log')}


def test_a_network_dict_with_one_subnet_is_its_own_subnet():
    net = dict(FIRST, id='n1')
    assert dnsmasq.subnets(net) == [net]
    assert dnsmasq.subnets({'id': 'n1', 'cidr': None}) == []
    assert dnsmasq.subnets({'id': 'n1', 'subnets': [FIRST, SECOND]}) == [FIRST, SECOND]


def test_every_served_subnet_gets_a_static_range_and_the_port_an_address():
    net = {'id': 'n1', 'subnets': [FIRST, SECOND, dict(SECOND, id='s3',
                                                      cidr='10.99.0.0/24',
                                                      enable_dhcp=False)]}
    argv = dnsmasq.argv('ns-x', FILES, net)
    assert argv[:2] == ['dnsmasq', '--conf-file=/dev/null'] and '--port=0' in argv
    assert [a for a in argv if a.startswith('--dhcp-range')] == [
        '--dhcp-range=set:subnet0,10.77.0.0,static,255.255.255.0,86400s',
        '--dhcp-range=set:subnet1,10.88.0.0,static,255.255.255.240,86400s']
    assert '--interface=ns-x' in argv and '--dhcp-hostsfile=/s/hosts' in argv
    # Without a gateway the DHCP port takes the first address outside the pool.
    assert dnsmasq.interface_addresses(net) == ['10.77.0.1/24', '10.88.0.1/28',
                                                '169.254.169.254/32']


def test_options_give_the_router_only_with_a_gateway_and_routes_metadata():
    lines = dnsmasq.options({'id': 'n1', 'subnets': [FIRST, SECOND]}, mtu=1450)
    assert lines == [
        'tag:subnet0,option:router,10.77.0.1',
        'tag:subnet0,option:dns-server,192.0.2.53',
        'tag:subnet0,option:mtu,1450',
        'tag:subnet0,option:classless-static-route,169.254.169.254/32,10.77.0.1,'
        '10.50.0.0/16,10.77.0.254,0.0.0.0/0,10.77.0.1',
        'tag:subnet1,option:router',  # empty: no default route
        'tag:subnet1,option:mtu,1450',
        'tag:subnet1,option:classless-static-route,169.254.169.254/32,10.88.0.1']


def test_options_are_lines_of_configuration_so_values_are_checked_again():
    with pytest.raises(ValueError):
        dnsmasq.options(dict(FIRST, id='n1', dns_nameservers=['1.1.1.1\nx=y']))


def test_hosts_file_lines_round_trip_and_a_name_is_given_once():
    entries = [{'mac': 'FA:16:3E:00:00:03', 'ip': '10.77.0.3', 'hostname': 'web'},
               {'mac': 'fa:16:3e:00:00:02', 'ip': '10.77.0.2', 'hostname': 'web'},
               {'mac': 'fa:16:3e:00:00:04', 'ip': '10.77.0.4', 'hostname': None}]
    lines = dnsmasq.host_lines(entries)
    assert lines == ['fa:16:3e:00:00:02,10.77.0.2,web', 'fa:16:3e:00:00:03,10.77.0.3',
                     'fa:16:3e:00:00:04,10.77.0.4']
    assert dnsmasq.parse_host_lines('\n'.join(lines)) == [
        {'mac': 'fa:16:3e:00:00:02', 'ip': '10.77.0.2', 'name': 'web'},
        {'mac': 'fa:16:3e:00:00:03', 'ip': '10.77.0.3', 'name': None},
        {'mac': 'fa:16:3e:00:00:04', 'ip': '10.77.0.4', 'name': None}]


def test_namespace_names_differ_per_host_and_deployment(conf):
    name = dhcp_namespace.namespace_name('prov-1', 'net-a')
    assert name.startswith('qdhcp-net-a-')
    assert name != dhcp_namespace.namespace_name('prov-2', 'net-a')
    conf.set_override('host', 'another-host')
    assert name != dhcp_namespace.namespace_name('prov-1', 'net-a')
    assert all(len(n) <= 15 for n in dhcp_namespace.veth_names(name))


def test_the_driver_keeps_the_entries_in_the_hosts_file_of_the_network(driver, net):
    driver.ensure_network(net)
    driver.sync_dhcp(net, [{'mac': 'fa:16:3e:00:00:05', 'ip': '10.9.0.5',
                            'hostname': 'A b'}])
    paths = dhcp_namespace.files(driver.resource_prefix(), net['id'])
    with open(paths['hosts']) as hosts:
        assert hosts.read() == 'fa:16:3e:00:00:05,10.9.0.5,a-b\n'
    assert dhcp_namespace.network_ids(driver.resource_prefix()) == [net['id']]
    driver.delete_network(net)
    assert dhcp_namespace.network_ids(driver.resource_prefix()) == []


class FakeIp:
    """iproute2 for the DHCP namespace's veth: which devices exist, what ran."""

    def __init__(self, links, addresses=()):
        self.links, self.addresses, self.calls = set(links), list(addresses), []

    def run(self, argv, check=True, timeout=30):
        self.calls.append(argv)
        if argv[:3] == ['ip', 'link', 'delete']:
            self.links.discard((argv[-1], None))
        out = json.dumps([{'addr_info': [
            {'family': 'inet', 'local': a.split('/')[0], 'prefixlen': int(a.split('/')[1])}
            for a in self.addresses]}])
        return subprocess.CompletedProcess(argv, 0, out, '')

    def link(self, name, netns=None):
        return {'ifname': name} if (name, netns) in self.links else None


def test_a_veth_left_without_its_peer_is_made_again(monkeypatch):
    """A worker killed between the veth's two halves: the next converge repairs."""
    outer, inner = dhcp_namespace.veth_names('ns1')
    fake = FakeIp({(outer, None)})  # the bridge side only: its peer went
    monkeypatch.setattr(dhcp_namespace.commands, 'run', fake.run)
    monkeypatch.setattr(dhcp_namespace.commands, 'link', fake.link)
    assert dhcp_namespace._ensure_veth('ns1', 'br-1', 1450) == inner
    assert fake.calls[0] == ['ip', 'link', 'delete', 'dev', outer]
    assert ['ip', 'link', 'add', outer, 'mtu', '1450', 'type', 'veth', 'peer', 'name',
            inner, 'mtu', '1450', 'netns', 'ns1'] in fake.calls


def test_addresses_converge_on_the_subnets(monkeypatch):
    fake = FakeIp((), addresses=['10.77.0.1/24', '10.50.0.1/24'])
    monkeypatch.setattr(dhcp_namespace.commands, 'run', fake.run)
    dhcp_namespace._ensure_addresses('ns1', 'ns-x', ['10.77.0.1/24',
                                                     '169.254.169.254/32'])
    assert fake.calls[1:] == [
        ['ip', '-n', 'ns1', 'addr', 'del', '10.50.0.1/24', 'dev', 'ns-x'],
        ['ip', '-n', 'ns1', 'addr', 'add', '169.254.169.254/32', 'dev', 'ns-x']]
