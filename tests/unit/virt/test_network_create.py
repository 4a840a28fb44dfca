"""network create on this host: refused before libvirt is asked, or nothing stays."""

import time

import libvirt
import pytest
import sqlalchemy as sa

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.network import shared as networks
from provisioner.virt.libvirt import host as libvirt_host

def _recorded():
    with db_api.transaction() as session:
        return session.execute(sa.select(models.Network.name)).scalars().all()


def _libvirt_networks(driver):
    return [n.name() for n in driver.host.get_connection().listAllNetworks()]


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
