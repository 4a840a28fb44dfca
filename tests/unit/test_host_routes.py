"""The host's routes as the tests read them."""

import ipaddress

import pytest

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
