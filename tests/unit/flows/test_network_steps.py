"""The network steps alone, as the engine runs them in-process: execute and revert
called directly, on test:///."""

import pytest

from provisioner.compute import states
from provisioner import naming
from provisioner.network import ipam
from provisioner.engine.step_records import with_records
from tests.unit.flows.conftest import boot_request

from flows import constants as c
from flows.steps import network


@pytest.fixture
def instance_id(api):
    return boot_request(api)


def _dhcp(hypervisor, port):
    return [entry for entry in hypervisor.dhcp_hosts(port['network'])
            if entry['mac'].lower() == port['mac'].lower()]


def test_allocate_ports_then_its_revert(api, instance_id):
    step = with_records(network.AllocatePorts(c.ALLOCATE_PORTS))
    ports = step.execute(instance_id)
    again = step.execute(instance_id)  # an interrupted run's ports are adopted
    assert [p['ip'] for p in again] == [p['ip'] for p in ports]
    assert len(ports) == 1 and ports[0]['ip'].startswith('10.66.0.')
    assert api.show(instance_id)['task_state'] == states.NETWORKING
    step.revert(instance_id, result=ports)
    step.revert(instance_id, result=ports)
    assert ipam.ports_for(instance_id) == []


def test_release_ports_once(instance_id):
    with_records(network.AllocatePorts(c.ALLOCATE_PORTS)).execute(instance_id)
    step = with_records(network.ReleasePorts(c.RELEASE_PORTS))
    step.execute(instance_id)
    step.execute(instance_id)
    assert ipam.ports_for(instance_id) == []


def test_reserve_dhcp_then_its_revert_then_release(instance_id, hypervisor):
    ports = with_records(network.AllocatePorts(c.ALLOCATE_PORTS)).execute(instance_id)
    step = with_records(network.ReserveDhcp(c.RESERVE_DHCP))
    step.execute(instance_id=instance_id, ports=ports)
    step.execute(instance_id=instance_id, ports=ports)  # one entry, not two
    assert [e['ip'] for e in _dhcp(hypervisor, ports[0])] == [ports[0]['ip']]
    step.revert(instance_id=instance_id, ports=ports, result=None)
    step.revert(instance_id=instance_id, ports=ports, result=None)
    assert _dhcp(hypervisor, ports[0]) == []
    step.execute(instance_id=instance_id, ports=ports)
    release = with_records(network.ReleaseDhcp(c.RELEASE_DHCP))
    release.execute(instance_id=instance_id)
    release.execute(instance_id=instance_id)
    assert _dhcp(hypervisor, ports[0]) == []


def test_hostname_is_an_rfc_1123_label():
    assert naming.hostname('Web_01.example') == 'web-01-example'
    assert naming.hostname('___') == 'instance'
    assert len(naming.hostname('a' * 80)) == 63
