"""The L2 agent's host side: the VXLAN device, its flood entries, the bare bridge of a
host that does not serve the network's DHCP, and the guests' overlay MTU."""

import json
import subprocess

import pytest

from provisioner.virt import commands
from provisioner.virt import vxlan
from provisioner.worker import l2

NET = {'id': 'n1', 'cidr': '10.77.0.0/24', 'gateway': '10.77.0.1',
       'dhcp_start': '10.77.0.2', 'dhcp_end': '10.77.0.9', 'enable_dhcp': True,
       'network_type': 'vxlan', 'segmentation_id': 42}


class FakeIp:
    """iproute2 as far as these calls go: one device's vxlan data and FDB."""

    def __init__(self, data=None, fdb=()):
        self.data, self.fdb, self.calls = data, list(fdb), []

    def __call__(self, argv, **kwargs):
        self.calls.append(argv)
        out, code = '', 0
        if argv[:3] == ['ip', '-j', '-d']:
            code = 1 if self.data is None else 0
            out = json.dumps([{'linkinfo': {'info_data': self.data}}])
        elif argv[:3] == ['bridge', '-j', 'fdb']:
            out = json.dumps([{'mac': vxlan.FLOOD_MAC, 'dst': d} for d in self.fdb]
                             + [{'mac': 'fa:16:3e:00:00:02', 'dst': '10.99.0.9'}])
        return subprocess.CompletedProcess(argv, code, out, '')


@pytest.fixture
def fake_ip(monkeypatch):
    fake = FakeIp()
    monkeypatch.setattr(commands.subprocess, 'run', fake)
    return fake


def test_device_is_made_once_and_enslaved(fake_ip):
    name = vxlan.ensure('br-x', 42, '10.99.0.1', 4789, 1450)
    assert len(name) <= 15 and name == vxlan.device_name('br-x')
    assert fake_ip.calls[1] == ['ip', 'link', 'add', name, 'mtu', '1450', 'type',
                                'vxlan', 'id', '42', 'local', '10.99.0.1', 'dstport',
                                '4789']
    assert fake_ip.calls[2] == ['ip', 'link', 'set', 'dev', name, 'mtu', '1450',
                                'master', 'br-x', 'up']
    fake_ip.data, fake_ip.calls = {'id': 42, 'local': '10.99.0.1', 'port': 4789}, []
    vxlan.ensure('br-x', 42, '10.99.0.1', 4789, 1450)
    assert [c[:3] for c in fake_ip.calls] == [['ip', '-j', '-d'], ['ip', 'link', 'set']]


def test_a_stale_device_is_made_again(fake_ip):
    fake_ip.data = {'id': 7, 'local': '10.99.0.1', 'port': 4789}
    vxlan.ensure('br-x', 42, '10.99.0.1', 4789, 1450)
    assert ['ip', 'link', 'delete', 'dev', vxlan.device_name('br-x')] in fake_ip.calls


def test_flood_entries_converge_on_the_peers(fake_ip):
    fake_ip.fdb = ['10.99.0.2', '10.99.0.3']
    vxlan.set_peers('br-x', ['10.99.0.3', '10.99.0.4'])
    name = vxlan.device_name('br-x')
    assert fake_ip.calls[1:] == [
        ['bridge', 'fdb', 'append', vxlan.FLOOD_MAC, 'dev', name, 'dst', '10.99.0.4'],
        ['bridge', 'fdb', 'del', vxlan.FLOOD_MAC, 'dev', name, 'dst', '10.99.0.2']]


def test_overlay_only_with_an_underlay_address(driver, conf):
    assert (driver.overlay(NET), driver.serves_dhcp(NET), driver.guest_mtu(NET)) == (
        False, True, None)
    conf.set_override('local_ip', '10.99.0.1', group='l2')
    elsewhere = dict(NET, dhcp_host='other')
    assert (driver.overlay(NET), driver.serves_dhcp(elsewhere),
            driver.guest_mtu(NET)) == (True, False, 1450)
    assert driver.serves_dhcp(dict(NET, dhcp_host=conf.host))


class FakeDriver:
    def __init__(self, serves):
        self.calls, self.serves = [], serves

    def ensure_network(self, net):
        self.calls.append(('ensure', net['peers']))

    def delete_network(self, net):
        self.calls.append(('delete', net['id']))

    def serves_dhcp(self, net):
        return self.serves

    def sync_dhcp(self, net, entries):
        self.calls.append(('dhcp', entries))


def test_sync_network_holds_or_removes():
    entries = [{'mac': 'fa:16:3e:00:00:02', 'ip': '10.77.0.2', 'hostname': 'a'}]
    dhcp_host, other = FakeDriver(True), FakeDriver(False)
    l2.sync_network(dhcp_host, dict(NET, peers=['10.99.0.2']), True, entries)
    l2.sync_network(other, dict(NET, peers=['10.99.0.1']), True, None)
    l2.sync_network(other, NET, False)
    assert dhcp_host.calls == [('ensure', ['10.99.0.2']), ('dhcp', entries)]
    assert other.calls == [('ensure', ['10.99.0.1']), ('delete', 'n1')]
