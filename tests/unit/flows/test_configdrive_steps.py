"""The config drive steps alone, as the engine runs them in-process: execute and
revert called directly, on test:///."""

import os

import pytest

from provisioner.compute import guest_documents
from provisioner.engine.step_records import with_records
from tests.unit.flows.conftest import boot_request

from flows import constants as c
from flows.steps import configdrive
from flows.steps import network


@pytest.fixture
def instance_id(api):
    return boot_request(api, user_data=b'#!/bin/sh\necho secret-ish\n')


def test_build_then_its_revert_then_delete(instance_id, hypervisor):
    ports = with_records(network.AllocatePorts(c.ALLOCATE_PORTS)).execute(instance_id)
    step = with_records(configdrive.BuildConfigDrive(c.BUILD_CONFIG_DRIVE))
    drive = step.execute(instance_id=instance_id, ports=ports)
    assert step.execute(instance_id=instance_id, ports=ports) == drive
    assert drive == hypervisor.config_drive_path(instance_id)
    with open(drive, 'rb') as iso:
        content = iso.read()
    assert b'echo secret-ish' in content and ports[0]['ip'].encode() in content
    step.revert(instance_id=instance_id, result=drive)
    step.revert(instance_id=instance_id, result=drive)
    assert not os.path.exists(drive)
    step.execute(instance_id=instance_id, ports=ports)
    delete = configdrive.DeleteConfigDrive(c.DELETE_CONFIG_DRIVE)
    delete.execute(instance_id=instance_id)
    delete.execute(instance_id=instance_id)
    assert not os.path.exists(drive)


def test_network_data_routes_only_through_a_gateway():
    port = {'id': 'p1', 'mac': 'fa:16:3e:00:00:01', 'ip': '10.0.0.5',
            'network': {'id': 'n1', 'cidr': '10.0.0.0/24', 'gateway': None,
                        'dns_nameservers': ['10.0.0.2']}}
    data = guest_documents.network_data([port])
    assert data['networks'][0]['routes'] == []
    assert data['networks'][0]['netmask'] == '255.255.255.0'
    assert data['services'] == [{'type': 'dns', 'address': '10.0.0.2'}]
