"""Versioned notifications: sent when a transport is configured, never otherwise."""

import logging
import os
import subprocess
import sys

import pytest

from provisioner.compute import actions
from provisioner.engine import runner
from provisioner import notifications
from provisioner import rpc
from tests.unit.flows.conftest import boot_request

from flows import constants as c


@pytest.fixture
def sent(conf):
    """Notifications configured over fake:// and captured by oslo's test driver."""
    notifications._register_messaging_opts()
    conf.set_override('transport_url', 'fake:///', 'oslo_messaging_notifications')
    conf.set_override('driver', ['test'], 'oslo_messaging_notifications')
    from oslo_messaging.notify import _impl_test
    _impl_test.reset()
    notifications.reset()
    yield _impl_test.NOTIFICATIONS
    notifications.reset()
    _impl_test.reset()


def _event_types(captured):
    return [message['event_type'] for _ctxt, message, _priority, _retry in captured]


def test_boot_stop_reboot_and_delete_are_notified(api, sent):
    instance_id = boot_request(api)
    api.run_boot(instance_id)
    _id, stop_id = api.power_action(instance_id, actions.STOP)
    runner.run_action(instance_id, stop_id)
    _id, start_id = api.power_action(instance_id, actions.START)
    runner.run_action(instance_id, start_id)
    _id, reboot_id = api.power_action(instance_id, actions.REBOOT)
    runner.run_action(instance_id, reboot_id)
    api.delete(instance_id)
    assert _event_types(sent) == [
        'instance.create.start', 'instance.create.end',
        'instance.power_off.start', 'instance.power_off.end',
        'instance.power_on.start', 'instance.power_on.end',
        'instance.reboot.start', 'instance.reboot.end',
        'instance.delete.start', 'instance.delete.end']
    _ctxt, message, priority, _retry = sent[3]
    assert priority == 'INFO'
    assert message['publisher_id'] == 'provisioner-compute:unit-host'
    payload = message['payload']
    assert payload['nova_object.name'] == 'InstanceActionPayload'
    assert payload['nova_object.version'] == '1.8'
    data = payload['nova_object.data']
    assert (data['uuid'], data['state'], data['power_state'], data['task_state']) == \
        (instance_id, 'stopped', 'shutdown', None)
    assert data['request_id'] == actions.get_by_id(stop_id)['request_id']
    assert data['flavor']['nova_object.data']['name'] == 'tiny'
    [ip] = data['ip_addresses']
    assert ip['nova_object.data']['address'] == '10.66.0.2'
    assert data['fault'] is None


def test_a_failed_stop_is_notified_as_an_error_with_its_fault(api, sent, conf):
    instance_id = boot_request(api)
    api.run_boot(instance_id)
    conf.set_override('fail_after_step', [c.POWER_OFF_DOMAIN], 'fault_injection')
    _id, action_id = api.power_action(instance_id, actions.STOP)
    runner.run_action(instance_id, action_id)
    _ctxt, message, priority, _retry = sent[-1]
    assert (message['event_type'], priority) == ('instance.power_off.error', 'ERROR')
    fault = message['payload']['nova_object.data']['fault']['nova_object.data']
    assert fault['function_name'] == c.POWER_OFF_DOMAIN
    assert 'Injected fault' in fault['exception_message']


def test_a_resumed_action_is_not_notified_as_starting_again(api, sent, hypervisor):
    from tests.unit.flows.test_power_flow import _interrupt_after
    instance_id = boot_request(api)
    api.run_boot(instance_id)
    _id, action_id = api.power_action(instance_id, actions.STOP)
    _interrupt_after(instance_id, action_id, c.POWER_OFF_DOMAIN)
    del sent[:]
    runner.run_action(instance_id, action_id)
    assert _event_types(sent) == ['instance.power_off.end']


def test_a_failing_notifier_never_breaks_the_flow(api, sent, monkeypatch, caplog):
    notifier = notifications.get_notifier()

    def broken(*args, **kwargs):
        raise ConnectionError('broker gone')

    monkeypatch.setattr(notifier, 'info', broken)
    instance_id = boot_request(api)
    with caplog.at_level(logging.WARNING, logger='provisioner.notifications'):
        info = api.run_boot(instance_id)
    assert info['vm_state'] == 'active'
    assert 'Could not send notification instance.create.end' in caplog.text


def test_noop_driver_disables_notifications(conf):
    notifications._register_messaging_opts()
    conf.set_override('transport_url', 'fake:///', 'oslo_messaging_notifications')
    conf.set_override('driver', ['noop'], 'oslo_messaging_notifications')
    assert notifications.get_notifier() is None


def test_distributed_transport_enables_them(conf):
    rpc.register_transport_opts()  # [DEFAULT] transport_url, to override
    conf.set_override('transport_url', 'fake:///')
    assert notifications.get_notifier() is not None


def test_all_in_one_creates_no_notifier_and_imports_no_messaging(tmp_path):
    script = (
        'import sys\n'
        'from provisioner.conf import CONF\n'
        'from provisioner.engine import runner\n'
        'from provisioner import notifications\n'
        'CONF([], project="provisioner", default_config_files=[])\n'
        'assert notifications.get_notifier() is None\n'
        'notifications.notify("no-such-instance", "stop", "start")\n'
        'loaded = [m for m in sys.modules if m.startswith("oslo_messaging")]\n'
        'assert not loaded, loaded\n')
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path))
    subprocess.run([sys.executable, '-c', script], check=True, env=env,
                   cwd=os.path.dirname(os.path.dirname(os.path.dirname(
                       os.path.dirname(os.path.abspath(__file__))))))


def test_a_config_file_setting_enables_them(tmp_path):
    config = tmp_path / 'provisioner.conf'
    config.write_text('[oslo_messaging_notifications]\ntransport_url = fake:///\n'
                      'driver = test\n')
    script = (
        'from provisioner.conf import CONF\n'
        'from provisioner import notifications\n'
        'CONF(["--config-file", %r], project="provisioner",'
        ' default_config_files=[])\n'
        'assert notifications.get_notifier() is not None\n' % str(config))
    subprocess.run([sys.executable, '-c', script], check=True,
                   cwd=os.path.dirname(os.path.dirname(os.path.dirname(
                       os.path.dirname(os.path.abspath(__file__))))))
