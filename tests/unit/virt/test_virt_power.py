"""Power off, power on and reboot on a private test:/// hypervisor: each twice."""

import uuid

from lxml import etree
import pytest

from provisioner import exception
from provisioner.virt import spec as virt_spec
from tests import probes


@pytest.fixture
def instance_uuid():
    return str(uuid.uuid4())


@pytest.fixture
def running(driver, instance_uuid):
    driver.define_domain(virt_spec.GuestSpec(
        uuid=instance_uuid, display_name='vm', vcpus=1, memory_mib=96,
        console_log=driver.console_log_path(instance_uuid),
        root_disk='/var/lib/none/root.qcow2'))
    driver.start_domain(instance_uuid)
    return instance_uuid


class _IgnoresAcpi:
    """A virDomain whose guest ignores the power button."""

    def __init__(self, domain):
        self._domain = domain

    def shutdown(self):
        pass

    def __getattr__(self, name):
        return getattr(self._domain, name)


def test_power_off_is_clean_and_idempotent(driver, running):
    assert driver.power_off(running, timeout=5) is True
    assert driver.power_state(running) == 'shutdown'
    assert driver.power_off(running, timeout=5) is True  # already off: success
    assert probes.domain_exists(driver, running)  # powered off, never undefined


def test_power_off_without_a_domain_is_success(driver, instance_uuid):
    assert driver.power_off(instance_uuid, timeout=5) is True


def test_a_guest_ignoring_acpi_is_powered_off_after_the_timeout(driver, running):
    guest = driver._guest(running)
    guest._domain = _IgnoresAcpi(guest._domain)
    assert guest.shutdown(timeout=0.1, interval=0.02) is False
    assert driver.power_state(running) == 'shutdown'


def test_power_on_is_idempotent(driver, running):
    driver.power_off(running, timeout=5)
    driver.power_on(running)
    driver.power_on(running)
    assert driver.power_state(running) == 'running'


def test_power_on_of_an_undefined_domain_is_a_clear_error(driver, instance_uuid):
    with pytest.raises(exception.HypervisorError, match='not defined'):
        driver.power_on(instance_uuid)


@pytest.mark.parametrize('hard', [False, True])
def test_reboot_leaves_the_domain_running(driver, running, hard):
    driver.reboot(running, hard)
    assert driver.power_state(running) == 'running'
    driver.power_off(running, timeout=5)
    driver.reboot(running, hard)  # a domain that was off is simply started
    assert driver.power_state(running) == 'running'


def test_soft_reboot_of_a_guest_ignoring_acpi_power_cycles_it(driver, running, conf):
    guest = driver._guest(running)
    guest._domain = _IgnoresAcpi(guest._domain)
    conf.set_override('shutdown_timeout', 0, 'compute')
    driver._guest = lambda _uuid: guest
    driver.reboot(running, hard=False)
    assert driver.power_state(running) == 'running'


def test_reboot_of_an_undefined_domain_is_a_clear_error(driver, instance_uuid):
    with pytest.raises(exception.HypervisorError, match='before rebooting'):
        driver.reboot(instance_uuid, hard=True)


def test_console_log_is_appended_to_across_restarts(driver, instance_uuid):
    xml = driver.domain_xml(virt_spec.GuestSpec(
        uuid=instance_uuid, display_name='vm', vcpus=1, memory_mib=96,
        console_log=driver.console_log_path(instance_uuid), root_disk='/r.qcow2'))
    source = etree.fromstring(xml.encode()).find('devices/serial/source')
    assert source.get('append') == 'on'
    assert source.get('path') == driver.console_log_path(instance_uuid)
