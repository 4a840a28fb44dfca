"""A guest network must not overlap a route of the host that makes its bridge."""

import ipaddress

import pytest

from provisioner import exception
from provisioner.network import host_routes

# /proc/net/route of a host with a default route, its uplink and one bridge
# (addresses in network byte order, printed as little-endian integers).
ROUTE_TABLE = (
    'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n'
    'eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n'
    'eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n'
    'virbr9\t0000090A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n')


@pytest.fixture
def table(tmp_path):
    path = tmp_path / 'route'
    path.write_text(ROUTE_TABLE)
    return str(path)


def test_routes_are_read_without_the_default_route(table):
    assert host_routes.routes(table) == [
        (ipaddress.IPv4Network('192.0.2.0/24'), 'eth0'),
        (ipaddress.IPv4Network('10.9.0.0/16'), 'virbr9')]


def test_no_route_table_means_nothing_to_compare(tmp_path):
    assert host_routes.routes(str(tmp_path / 'missing')) == []


@pytest.mark.parametrize('cidr,route,device', [
    ('192.0.2.0/24', '192.0.2.0/24', 'eth0'),
    ('192.0.2.128/25', '192.0.2.0/24', 'eth0'),
    ('10.9.4.0/24', '10.9.0.0/16', 'virbr9'),
])
def test_a_cidr_overlapping_a_route_is_refused(table, cidr, route, device):
    with pytest.raises(exception.Conflict) as err:
        host_routes.check_free(ipaddress.IPv4Network(cidr), 'h1', path=table)
    assert str(err.value) == (
        'CIDR %s overlaps the route %s (device %s) of host h1: a guest network there '
        'would take that traffic away; choose a range no route of the host uses'
        % (cidr, route, device))


def test_free_ranges_and_the_networks_own_bridge_pass(table):
    host_routes.check_free(ipaddress.IPv4Network('10.10.0.0/24'), 'h1', path=table)
    host_routes.check_free(ipaddress.IPv4Network('10.9.0.0/16'), 'h1',
                           own_device='virbr9', path=table)
