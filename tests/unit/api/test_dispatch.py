"""provisioner-api all-in-one: flows run in its threads, and resume at start-up."""

import logging
import time

from provisioner.api import app
from provisioner.engine import dispatch


def test_a_flow_logs_under_the_request_id_that_started_it(caplog):
    seen = []
    dispatcher = dispatch.LocalDispatcher()
    token = app._request_id.set('req-0123')
    try:
        dispatcher._submit('test', lambda: seen.append(app._request_id.get()))
    finally:
        app._request_id.reset(token)
    dispatcher.stop()
    assert seen == ['req-0123']
    record = logging.LogRecord('x', logging.INFO, __file__, 1, 'm', None, None)
    assert app.RequestIdFilter().filter(record) and record.request_id == '-'


def test_nothing_runs_after_a_stop():
    dispatcher = dispatch.LocalDispatcher()
    dispatcher.stop()
    ran = []
    dispatcher._submit('late', lambda: ran.append(1))
    assert ran == []


def test_boots_and_power_actions_left_unfinished_resume_at_start(conf, tmp_path,
                                                                 admin_context,
                                                                 deployment):
    from provisioner.catalog import flavors
    from provisioner.catalog import images
    from provisioner.network import shared as networks
    from provisioner.compute import api as compute_api
    from provisioner import virt
    node = tmp_path / 'node.xml'
    node.write_text('<node/>')
    conf.set_override('connection_uri', 'test://%s' % node, 'libvirt')
    conf.set_override('virt_type', 'qemu', 'libvirt')
    (tmp_path / 'vmlinuz').write_bytes(b'kernel')
    flavors.create('tiny', 1, 128, 1)
    images.create('guest', kernel=str(tmp_path / 'vmlinuz'))
    networks.create(virt.get_driver(), 'net1', '10.66.0.0/24')
    api = compute_api.ComputeAPI(admin_context, deployment)
    # Recorded (as the API does before it answers) but never run: a killed process.
    booting = api.create_instance('vm1', 'tiny', 'guest', ['net1'])
    stopped = api.create_instance('vm2', 'tiny', 'guest', ['net1'])
    api.run_boot(stopped)
    api.power_action(stopped, 'stop')

    dispatcher = dispatch.LocalDispatcher()
    assert dispatcher.resume_interrupted() == 2
    # stop() suspends flows still running: let these two end first (a loaded machine
    # may take seconds).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
            api.show(booting)['vm_state'] == 'active'
            and api.show(stopped)['task_state'] is None):
        time.sleep(0.1)
    dispatcher.stop()
    assert api.show(booting)['vm_state'] == 'active'
    assert (api.show(stopped)['vm_state'], api.show(stopped)['task_state']) == (
        'stopped', None)
    again = dispatch.LocalDispatcher()
    assert again.resume_interrupted() == 0
    again.stop()


class _Engine:
    def suspend(self):
        pass


def test_the_engines_of_finished_flows_are_not_kept(monkeypatch):
    # provisioner-api lives long: an engine kept per boot and power action after its
    # flow ended held every finished flow in memory.
    ran = []

    def run_action(instance_id, action_id, on_engine):
        on_engine(_Engine())
        ran.append(action_id)

    monkeypatch.setattr(dispatch.runner, 'run_action', run_action)
    dispatcher = dispatch.LocalDispatcher()
    for n in range(50):
        dispatcher.run_action('instance-%d' % n, n)
    deadline = time.monotonic() + 10
    while len(ran) < 50 and time.monotonic() < deadline:
        time.sleep(0.01)
    dispatcher.stop()
    assert len(ran) == 50 and not dispatcher._engines
