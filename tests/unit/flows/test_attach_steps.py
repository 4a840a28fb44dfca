"""The volume service's steps alone (attach, detach, delete): execute and revert
called directly, on test:///, as the engine runs them in-process."""

import dataclasses

import pytest
from taskflow.types import failure as tf_failure

from provisioner.compute import actions
from provisioner.engine.step_records import with_records
from provisioner import exception
from provisioner.volume import api as volume_api
from provisioner.virt.libvirt import guest as libvirt_guest
from provisioner.volume import volumes
# libvirt's test:/// driver cannot hot-plug: the volume service's tests keep the
# domains' disks in a dict instead (the real thing: the functional tests).
from tests.unit.api import test_volume_service as hotplug
from tests.unit.flows.conftest import boot_request

from flows import constants as c
from flows.steps import attach as steps


@pytest.fixture
def server(api):
    instance_id = boot_request(api, volumes=())
    api.run_boot(instance_id)
    return instance_id


@pytest.fixture
def volume(admin_context):
    return volume_api.VolumeAPI(admin_context).create(1, name="data")[0]


@pytest.fixture
def attach(admin_context, server, volume):
    """An attach the API recorded (volume attaching): its action and payload."""
    action_id, _device = volume_api.VolumeAPI(admin_context).request_attach(
        server, volume)
    payload = with_records(steps.VolumeActionGuard(c.VOLUME_ACTION_GUARD)).execute(
        instance_id=server, volume_id=volume)
    return action_id, payload


def _status(volume_id):
    [vol] = volumes.describe(volume_id=volume_id)
    return vol['status']


@pytest.fixture
def plugged(monkeypatch):
    """The devices of each domain, live, as the guest wrapper reports them."""
    hotplug._DISKS.clear()
    monkeypatch.setattr(libvirt_guest.Guest, 'disks', hotplug._disks)
    monkeypatch.setattr(libvirt_guest.Guest, 'attach_device', hotplug._plug(True))
    monkeypatch.setattr(libvirt_guest.Guest, 'detach_device', hotplug._plug(False))
    return lambda instance_id: sorted(hotplug._DISKS['instance-%s' % instance_id][True])


def test_guard_provides_the_payload_and_its_revert_restores_the_volume(
        server, volume, attach):
    action_id, payload = attach
    # The device the attach reserved: vda the root, vdb the config drive.
    assert payload == dataclasses.asdict(steps.VolumePayload(
        instance_id=server, volume_id=volume, size_gib=1, fresh=True,
        device='/dev/vdc'))
    assert _status(volume) == 'attaching'
    guard = with_records(steps.VolumeActionGuard(c.VOLUME_ACTION_GUARD))
    failures = {c.PLUG_VOLUME: tf_failure.Failure.from_exception(
        exception.HypervisorError(reason='no slot left'))}
    for _ in range(2):  # idempotent
        guard.revert(server, action_id, volume, False, result=payload,
                     flow_failures=failures)
    [vol] = volumes.describe(volume_id=volume)
    assert (vol['status'], vol['device']) == ('available', None)  # given back
    assert actions.get_by_id(action_id)['message'] == (
        'Error: plug-volume: Hypervisor error: no slot left')


def test_make_volume_then_its_revert_deletes_only_a_fresh_one(hypervisor, attach):
    _, payload = attach
    step = steps.MakeVolume(c.MAKE_VOLUME)
    path = step.execute(volume_payload=payload)
    assert step.execute(volume_payload=payload) == path  # run again: the same file
    assert hypervisor.volume_path(payload['volume_id']) == path
    # A volume that had bytes before this flow keeps them.
    step.revert(volume_payload=dict(payload, fresh=False), result=path)
    assert hypervisor.volume_path(payload['volume_id']) == path
    for _ in range(2):
        step.revert(volume_payload=payload, result=path)
    assert hypervisor.volume_path(payload['volume_id']) is None


def test_plug_then_unplug_and_their_reverts(server, attach, plugged):
    _, payload = attach
    steps.MakeVolume(c.MAKE_VOLUME).execute(volume_payload=payload)
    plug = steps.PlugVolume(c.PLUG_VOLUME)
    device = plug.execute(volume_payload=payload)
    assert device == payload['device'] == '/dev/vdc'  # as the attach reserved it
    assert plugged(server) == ['vdc']
    assert plug.execute(volume_payload=payload) == device  # run again: adopted
    for _ in range(2):
        plug.revert(volume_payload=payload, result=device)
    assert plugged(server) == []

    plug.execute(volume_payload=payload)
    unplug = steps.UnplugVolume(c.UNPLUG_VOLUME)
    unplug.execute(volume_payload=payload)
    assert plugged(server) == []
    unplug.revert(volume_payload=payload, result=None)  # plugged back: still in-use
    assert plugged(server) == [device.rpartition('/')[2]]


def test_plug_takes_a_free_target_when_a_disk_holds_the_reserved_one(
        server, attach, plugged):
    _, payload = attach
    hotplug._DISKS['instance-%s' % server][True]['vdc'] = '/elsewhere/disk'
    steps.MakeVolume(c.MAKE_VOLUME).execute(volume_payload=payload)
    device = steps.PlugVolume(c.PLUG_VOLUME).execute(volume_payload=payload)
    assert device != '/dev/vdc' and plugged(server) == sorted(
        ['vdc', device.rpartition('/')[2]])


def test_record_attachment_then_detachment(api, server, volume, attach):
    record = with_records(steps.RecordAttachment(c.RECORD_ATTACHMENT))
    record.execute(server, volume, '/dev/vdb')
    [vol] = volumes.describe(volume_id=volume)
    assert (vol['status'], vol['device']) == ('in-use', '/dev/vdb')
    assert volumes.host_of(volume) == api.show(server)['host']
    with_records(steps.RecordDetachment(c.RECORD_DETACHMENT)).execute(volume)
    [vol] = volumes.describe(volume_id=volume)
    assert (vol['status'], vol['device']) == ('available', None)


def test_delete_volume_file_then_forget_volume(hypervisor, volume, attach):
    _, payload = attach
    steps.MakeVolume(c.MAKE_VOLUME).execute(volume_payload=payload)
    delete = steps.DeleteVolumeFile(c.DELETE_VOLUME_FILE)
    for _ in range(2):  # gone is fine
        delete.execute(volume_id=volume)
    assert hypervisor.volume_path(volume) is None
    forget = with_records(steps.ForgetVolume(c.FORGET_VOLUME))
    for _ in range(2):
        forget.execute(volume_id=volume)
    assert volumes.describe(volume_id=volume) == []
