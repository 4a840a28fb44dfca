"""Fixtures of the libvirt driver tests: a private test:/// hypervisor per test."""

import pytest

from provisioner.virt import driver as virt_driver

NODE_XML = '<node/>'


@pytest.fixture
def test_uri(conf, tmp_path):
    """A test:///<file> hypervisor of this test only (test:///default is shared)."""
    node = tmp_path / 'node.xml'
    node.write_text(NODE_XML)
    uri = 'test://%s' % node
    conf.set_override('connection_uri', uri, 'libvirt')
    return uri


@pytest.fixture
def driver(test_uri):
    drv = virt_driver.LibvirtDriver()
    yield drv
    drv.host.close()


@pytest.fixture
def net():
    return {'id': 'n1', 'name': 'net1', 'cidr': '10.9.0.0/24', 'gateway': '10.9.0.1',
            'dhcp_start': '10.9.0.10', 'dhcp_end': '10.9.0.99'}
