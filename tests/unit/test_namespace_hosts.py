"""tools/hosts (tools/namespace_hosts): names, addresses, libvirt settings, the relay.

What needs root and namespaces is proven in tests/functional/hosts.
"""

import importlib.util
import ipaddress
import pathlib
import socket
import sys
import threading

import pytest

_PACKAGE = pathlib.Path(__file__).resolve().parents[2] / 'tools' / 'namespace_hosts'


def _load():
    """The tool's package, as tools/hosts imports it (tools/ is not on sys.path)."""
    if 'namespace_hosts' not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            'namespace_hosts', _PACKAGE / '__init__.py',
            submodule_search_locations=[str(_PACKAGE)])
        package = importlib.util.module_from_spec(spec)
        sys.modules['namespace_hosts'] = package
        spec.loader.exec_module(package)
    return (importlib.import_module('namespace_hosts.names'),
            importlib.import_module('namespace_hosts.hypervisor'),
            importlib.import_module('namespace_hosts.relay'))


names, hypervisor, relay = _load()


@pytest.mark.parametrize('tag', ['-', 'Demo', 'a-b', 'toolong12', '1ab', 'a b'])
def test_a_bad_tag_is_refused(tag):
    with pytest.raises(names.UsageError, match='bad --name'):
        names.Run(tag)


def test_every_name_of_a_run_starts_with_its_tag():
    run = names.Run('t1')
    assert (run.netns('h1'), run.fabric, run.management_device) == (
        't1-h1', 't1-fabric', 't1-mgmt')
    assert run.state_dir == '/var/lib/provisioner-hosts/t1'
    assert run.owns('t1-ceph') and not run.owns('t12-h1') and not run.owns('t1')
    assert len(names.Run('abcdefgh').management_device) <= 15  # an interface name


def test_a_member_is_named_in_full_or_with_name():
    assert names.split_member('t1-h2', None) == ('t1', 'h2')
    assert names.split_member('t1-h2', 't1') == ('t1', 'h2')
    assert names.split_member('h2', None) == (names.DEFAULT_TAG, 'h2')
    with pytest.raises(names.UsageError, match='does not belong'):
        names.split_member('t1-h2', 't2')


@pytest.mark.parametrize('name', ['h1', 'h12', 'fabric', 'mgmt', 'Ceph', 'c-1',
                                  'a' * 13, ''])
def test_an_attached_namespace_cannot_take_a_reserved_or_bad_name(name):
    with pytest.raises(names.UsageError, match='bad namespace name'):
        names.check_attached_name(name)


@pytest.mark.parametrize('check, value, says', [
    ('check_port', 0, 'bad port 0'), ('check_port', 65536, 'bad port'),
    ('check_mtu', 575, 'bad --mtu'), ('check_mtu', 65536, 'bad --mtu'),
    ('check_host_count', 0, '1 to 50'), ('check_host_count', 51, '1 to 50')])
def test_numbers_out_of_range_are_refused(check, value, says):
    with pytest.raises(names.UsageError, match=says):
        getattr(names, check)(value)


def test_the_address_plan_of_an_underlay():
    network = ipaddress.ip_network('10.99.3.0/24')
    assert names.management_address(network) == '10.99.3.1'
    assert [names.host_address(network, i) for i in (1, 2, 50)] == [
        '10.99.3.11', '10.99.3.12', '10.99.3.60']
    assert names.free_attached_address(network, ['10.99.3.100']) == '10.99.3.101'
    with pytest.raises(names.UsageError, match='no free address'):
        names.free_attached_address(network, ['10.99.3.%d' % i for i in range(100, 251)])


def test_the_underlay_is_the_first_free_slash_24():
    taken = [ipaddress.ip_network(net) for net in
             ('10.99.0.0/24', '10.99.1.7/32', '192.0.2.0/24')]
    assert str(names.free_underlay(taken)) == '10.99.2.0/24'
    with pytest.raises(names.UsageError, match='no free /24'):
        names.free_underlay([ipaddress.ip_network('10.0.0.0/8')])


@pytest.mark.parametrize('text, says', [
    ('8.8.8.0/24', 'private /24'), ('10.99.0.0/16', 'private /24'),
    ('10.99.0.1/24', 'bad --cidr'), ('10.99.7.0/24', 'overlaps 10.99.7.0/25')])
def test_a_chosen_underlay_must_be_a_free_private_slash_24(text, says):
    with pytest.raises(names.UsageError, match=says):
        names.parse_underlay(text, [ipaddress.ip_network('10.99.7.0/25')])


def test_libvirt_settings_replace_the_copied_ones(tmp_path):
    conf = tmp_path / 'qemu.conf'
    conf.write_text('#user = "qemu"\nuser = "libvirt-qemu"\nvnc_listen = "0.0.0.0"\n')
    hypervisor._set(str(conf), {'user': '"root"', 'group': '"root"'})
    assert conf.read_text() == ('#user = "qemu"\nvnc_listen = "0.0.0.0"\n'
                                '# set by tools/hosts\ngroup = "root"\nuser = "root"\n')


def test_a_host_gets_its_own_uuid_no_virtlogd_and_no_dns(tmp_path):
    hypervisor.prepare(str(tmp_path), 't1-h1', '10.99.0.11', 'c0ffee00-0000-4000-8000-'
                       '000000000001', True, [('t1-h1', '10.99.0.11'),
                                              ('t1-h2', '10.99.0.12')])
    daemon = (tmp_path / 'etc' / 'libvirtd.conf').read_text()
    qemu = (tmp_path / 'etc' / 'qemu.conf').read_text()
    assert 'host_uuid = "c0ffee00-0000-4000-8000-000000000001"' in daemon
    assert 'listen_addr = "10.99.0.11"' in daemon and 'auth_tcp = "none"' in daemon
    for line in ('stdio_handler = "file"', 'dynamic_ownership = 0', 'namespaces = [ ]',
                 'cgroup_controllers = [ ]', 'migration_address = "10.99.0.11"'):
        assert line in qemu.splitlines()
    assert '10.99.0.12 t1-h2' in (tmp_path / 'hosts').read_text()
    assert 'nameserver' not in (tmp_path / 'resolv.conf').read_text()
    for sub in ('run', 'lib', 'etc', 'log', 'cache'):
        assert (tmp_path / sub).is_dir()
    assert hypervisor.libvirt_uri(str(tmp_path)) == (
        'qemu+unix:///system?socket=%s/run/libvirt-sock' % tmp_path)


def test_the_relay_carries_both_ways_and_passes_the_end_on():
    # A service on 127.0.0.1:PORT; the relay on another loopback address, same port.
    service = socket.create_server(('127.0.0.1', 0))
    port = service.getsockname()[1]
    listener = socket.create_server(('127.0.0.2', port))
    threading.Thread(target=relay.accept, args=(listener, port), daemon=True).start()
    try:
        client = socket.create_connection(('127.0.0.2', port), timeout=10)
        upstream, _ = service.accept()
        upstream.settimeout(10)
        client.sendall(b'AMQP\x00\x00\x09\x01')
        assert upstream.recv(100) == b'AMQP\x00\x00\x09\x01'
        upstream.sendall(b'answer')
        client.shutdown(socket.SHUT_WR)
        assert client.recv(100) == b'answer'
        assert upstream.recv(100) == b''  # the client's end reached the service
        upstream.close()
        assert client.recv(100) == b''
        client.close()
    finally:
        listener.shutdown(socket.SHUT_RDWR)
        listener.close()
        service.close()
