"""network create on this host: refused before libvirt is asked, or nothing stays."""

import time

import libvirt
import pytest
import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import host_routes
from provisioner.network import shared as networks
from provisioner.virt.libvirt import host as libvirt_host

ROUTE_TABLE = (
    'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n'
    'eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n')


def _recorded():
    with db_api.transaction() as session:
        return session.execute(sa.select(models.Network.name)).scalars().all()


def _libvirt_networks(driver):
    return [n.name() for n in driver.host.get_connection().listAllNetworks()]


@pytest.fixture
def real_host(driver, monkeypatch, tmp_path):
    """The driver as on a host whose bridges are real, with an uplink on 192.0.2.0/24."""
    table = tmp_path / 'route'
    table.write_text(ROUTE_TABLE)
    monkeypatch.setattr(host_routes, 'ROUTE_TABLE', str(table))
    monkeypatch.setattr(driver, '_makes_host_bridges', lambda: True)
    return driver


def test_a_slash_zero_is_refused_at_once_and_nothing_is_made(driver):
    started = time.monotonic()
    with pytest.raises(exception.Invalid) as err:
        networks.create(driver, 'n2', '0.0.0.0/0')
    assert time.monotonic() - started < 1
    assert 'CIDR 0.0.0.0/0 is too large' in str(err.value)
    assert _recorded() == [] and _libvirt_networks(driver) == []


def test_a_slash_16_gets_its_defaults_without_listing_its_addresses(driver):
    row = networks.create(driver, 'big', '10.20.0.0/16')
    assert (row['gateway'], row['dhcp_start'], row['dhcp_end']) == \
        ('10.20.0.1', '10.20.0.2', '10.20.255.254')


def test_a_cidr_on_a_host_route_is_refused_before_libvirt_is_asked(real_host):
    with pytest.raises(exception.Conflict) as err:
        networks.create(real_host, 'n2', '192.0.2.0/24')
    assert str(err.value).startswith('CIDR 192.0.2.0/24 overlaps the route '
                                     '192.0.2.0/24 (device eth0) of host unit-host')
    assert _recorded() == [] and _libvirt_networks(real_host) == []


def test_the_worker_that_makes_the_bridge_refuses_it_too(real_host, net):
    """Distributed, the row exists; ensure_network on the host checks its routes."""
    with pytest.raises(exception.Conflict):
        real_host.ensure_network(dict(net, cidr='192.0.2.0/24', gateway='192.0.2.1',
                                      dhcp_start='192.0.2.10', dhcp_end='192.0.2.99'))
    assert _libvirt_networks(real_host) == []
    real_host.ensure_network(net)  # a free range is made; its own route is no clash
    real_host.ensure_network(net)


def _refuse(network):
    raise libvirt.libvirtError('internal error: Network is already in use by interface '
                               'eth0')


def test_a_network_libvirt_cannot_start_is_undefined_and_its_row_deleted(
        driver, monkeypatch):
    monkeypatch.setattr(libvirt_host, 'start_and_autostart', _refuse)
    with pytest.raises(exception.HypervisorError) as err:
        networks.create(driver, 'n2', '10.30.0.0/24')
    assert 'starting network provisioner-net-' in str(err.value)
    assert _recorded() == [] and _libvirt_networks(driver) == []


def test_a_network_defined_before_is_kept_when_it_cannot_start(driver, net, monkeypatch):
    """Adopted, not made by this call: another run may own it."""
    driver.ensure_network(net)
    conn = driver.host.get_connection()
    conn.networkLookupByName('provisioner-net-n1').destroy()
    monkeypatch.setattr(libvirt_host, 'start_and_autostart', _refuse)
    with pytest.raises(exception.HypervisorError):
        driver.ensure_network(net)
    assert _libvirt_networks(driver) == ['provisioner-net-n1']
