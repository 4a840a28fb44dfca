"""The volume service (Cinder v3 subset) and Nova's os-volume_attachments.

Flows run inside the request on libvirt's test:/// driver (test_servers'
InlineDispatcher), so each answer is followed by the state a user sees once the
flow ended.
"""

import collections
import json
import pathlib
import subprocess

from lxml import etree
import pytest
from taskflow import states as tf_states

from provisioner.api import app
from provisioner.catalog import images
from provisioner.compute import actions
from provisioner.compute import instances
from provisioner.quota import counters
from provisioner.compute import states
from provisioner.conf import CONF
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.engine import runner
from provisioner.identity import service as identity
from provisioner import virt
from provisioner.virt.libvirt import guest as libvirt_guest
from provisioner.virt import spec as virt_spec
from provisioner.volume import volumes

from tests.unit.api.test_servers import call
from tests.unit import fixtures
from tests.unit.flows.conftest import run_until
from tests import probes

from flows import constants as c


@pytest.fixture
def application(conf):
    return app.build_app(fixtures.deployment(fixtures.InlineDispatcher()))


# libvirt's test:/// driver cannot hot-plug: the domains' disks, live (True) and
# defined (False), are kept here instead (the real thing: the functional tests).
_DISKS = collections.defaultdict(lambda: {True: {}, False: {}})


def _disks(guest, live=True):
    return dict(_DISKS[guest.name][live])


def _plug(plug):
    def change(guest, xml, live=True, persistent=True):
        disk = etree.fromstring(xml)
        target, source = disk.find('target').get('dev'), disk.find('source').get('file')
        for kind, wanted in ((True, live), (False, persistent)):
            if wanted and plug:
                _DISKS[guest.name][kind][target] = source
            elif wanted:
                _DISKS[guest.name][kind].pop(target, None)
    return change


@pytest.fixture
def vcloud(conf, tmp_path, admin_context, monkeypatch):
    _DISKS.clear()
    monkeypatch.setattr(libvirt_guest.Guest, 'disks', _disks)
    monkeypatch.setattr(libvirt_guest.Guest, 'attach_device', _plug(True))
    monkeypatch.setattr(libvirt_guest.Guest, 'detach_device', _plug(False))
    node = tmp_path / 'node.xml'
    node.write_text('<node/>')
    conf.set_override('connection_uri', 'test://%s' % node, 'libvirt')
    conf.set_override('virt_type', 'qemu', 'libvirt')
    return {'token': identity.authenticate('admin', 'admin-secret', 'admin'),
            'project': admin_context.project_id, 'context': admin_context,
            'tmp': tmp_path}


def boot(vcloud, name='vm1'):
    """A running server: its row (active, on this host) and its domain."""
    instance_id = fixtures.add_instance(vcloud['context'], name=name)
    instances.update(instance_id, vm_state=states.ACTIVE, host=CONF.host,
                     power_state=states.RUNNING)
    kernel = vcloud['tmp'] / 'vmlinuz'
    kernel.write_bytes(b'kernel')
    driver = virt.get_driver()
    driver.define_domain(virt_spec.GuestSpec(
        uuid=instance_id, display_name=name, vcpus=1, memory_mib=128,
        console_log=str(vcloud['tmp'] / name / 'console.log'), kernel=str(kernel)))
    driver.start_domain(instance_id)
    return instance_id


def vpath(vcloud, suffix=''):
    return '/volume/v3/%s/volumes%s' % (vcloud['project'], suffix)


def create(application, vcloud, **volume):
    response = call(application, 'POST', vpath(vcloud), {'volume': volume},
                    vcloud['token'])
    assert response.status_int == 202, response.text
    return response.json['volume']


def show(application, vcloud, volume_id):
    return call(application, 'GET', vpath(vcloud, '/' + volume_id),
                token=vcloud['token']).json['volume']


def attachments_path(server_id, volume_id=''):
    return '/compute/v2.1/servers/%s/os-volume_attachments%s' % (
        server_id, '/' + volume_id if volume_id else '')


def attach(application, vcloud, server_id, volume_id, **spec):
    return call(application, 'POST', attachments_path(server_id),
                {'volumeAttachment': dict(spec, volumeId=volume_id)}, vcloud['token'])


def test_create_update_extend_delete(application, vcloud):
    volume = create(application, vcloud, size='2', name='data', description='d')
    assert (volume['status'], volume['size'], volume['name'], volume['bootable'],
            volume['attachments']) == ('available', 2, 'data', 'false', [])
    response = call(application, 'PUT', vpath(vcloud, '/' + volume['id']),
                    {'volume': {'name': 'data2'}}, vcloud['token'])
    assert response.json['volume']['name'] == 'data2'
    extend = call(application, 'POST', vpath(vcloud, '/%s/action' % volume['id']),
                  {'os-extend': {'new_size': 3}}, vcloud['token'])
    assert extend.status_int == 202
    assert show(application, vcloud, volume['id'])['size'] == 3
    shrink = call(application, 'POST', vpath(vcloud, '/%s/action' % volume['id']),
                  {'os-extend': {'new_size': 1}}, vcloud['token'])
    assert shrink.status_int == 400 and 'badRequest' in shrink.json
    listed = call(application, 'GET', vpath(vcloud, '/detail?name=data2'),
                  token=vcloud['token']).json['volumes']
    assert [v['id'] for v in listed] == [volume['id']]
    assert call(application, 'DELETE', vpath(vcloud, '/' + volume['id']),
                token=vcloud['token']).status_int == 202
    assert call(application, 'GET', vpath(vcloud, '/' + volume['id']),
                token=vcloud['token']).status_int == 404


@pytest.mark.parametrize('volume', [{'size': 0}, {'size': 'x'}, {'size': True},
                                    {'size': 1, 'imageRef': 'no-such-image'},
                                    {'size': 1, 'name': 'n' * 256},
                                    {'size': 1, 'metadata': {'k': 1}},
                                    {'size': 1, 'backup_id': 'abc'}])
def test_bad_volumes_are_400_and_create_nothing(application, vcloud, volume):
    response = call(application, 'POST', vpath(vcloud), {'volume': volume},
                    vcloud['token'])
    assert response.status_int == 400 and 'badRequest' in response.json, response.text
    assert call(application, 'GET', vpath(vcloud), token=vcloud['token']).json[
        'volumes'] == []


def test_over_quota_is_cinders_413(application, vcloud):
    counters.set_limits(vcloud['project'], volumes_gib=3)
    create(application, vcloud, size=2)
    response = call(application, 'POST', vpath(vcloud), {'volume': {'size': 2}},
                    vcloud['token'])
    assert response.status_int == 413
    assert 'VolumeSizeExceedsAvailableQuota' in response.json['overLimit']['message']
    assert len(call(application, 'GET', vpath(vcloud), token=vcloud['token'])
               .json['volumes']) == 1


def test_attach_detach_delete(application, vcloud):
    server_id = boot(vcloud)
    volume = create(application, vcloud, size=1)
    response = attach(application, vcloud, server_id, volume['id'])
    assert response.status_int == 200, response.text
    shown = show(application, vcloud, volume['id'])
    assert shown['status'] == 'in-use'
    device = shown['attachments'][0]['device']
    assert shown['attachments'][0]['server_id'] == server_id and device.startswith(
        '/dev/vd')
    assert response.json['volumeAttachment']['device'] == device  # reserved at POST
    driver = virt.get_driver()
    assert probes.volume_attached(driver, server_id, volume['id']) == device
    listed = call(application, 'GET', attachments_path(server_id),
                  token=vcloud['token']).json['volumeAttachments']
    assert listed == [{'id': volume['id'], 'volumeId': volume['id'],
                       'serverId': server_id, 'device': device}]
    server = call(application, 'GET', '/compute/v2.1/servers/' + server_id,
                  token=vcloud['token']).json['server']
    assert {'id': volume['id']} in server['os-extended-volumes:volumes_attached']
    # In use: another attach is 400, delete is 400, nothing changes.
    again = attach(application, vcloud, server_id, volume['id'])
    assert again.status_int == 400, again.text
    refused = call(application, 'DELETE', vpath(vcloud, '/' + volume['id']),
                   token=vcloud['token'])
    assert refused.status_int == 400 and 'badRequest' in refused.json
    assert show(application, vcloud, volume['id'])['status'] == 'in-use'
    response = call(application, 'DELETE', attachments_path(server_id, volume['id']),
                    token=vcloud['token'])
    assert response.status_int == 202
    assert show(application, vcloud, volume['id'])['status'] == 'available'
    assert probes.volume_attached(driver, server_id, volume['id']) is None
    not_attached = call(application, 'DELETE',
                        attachments_path(server_id, volume['id']), token=vcloud['token'])
    assert not_attached.status_int == 404
    assert call(application, 'DELETE', vpath(vcloud, '/' + volume['id']),
                token=vcloud['token']).status_int == 202
    assert not probes.volume_exists(driver, volume['id'])
    actions = call(application, 'GET', '/compute/v2.1/servers/%s/os-instance-actions'
                   % server_id, token=vcloud['token']).json['instanceActions']
    assert [a['action'] for a in actions][:2] == ['detach_volume', 'attach_volume']


@pytest.mark.parametrize('step', ['volume-action-guard', 'make-volume', 'plug-volume',
                                  'record-attachment'])
def test_a_failed_attach_rolls_back(application, vcloud, step, conf):
    server_id = boot(vcloud)
    volume = create(application, vcloud, size=1)
    conf.set_override('fail_after_step', [step], 'fault_injection')
    attach(application, vcloud, server_id, volume['id'])
    conf.clear_override('fail_after_step', 'fault_injection')
    shown = show(application, vcloud, volume['id'])
    assert (shown['status'], shown['attachments']) == ('available', [])
    driver = virt.get_driver()
    assert probes.volume_attached(driver, server_id, volume['id']) is None
    assert not probes.volume_exists(driver, volume['id'])  # fresh: its file went too
    # ... and it attaches fine afterwards.
    assert attach(application, vcloud, server_id, volume['id']).status_int == 200
    assert show(application, vcloud, volume['id'])['status'] == 'in-use'


def test_an_attach_interrupted_after_plugging_resumes(application, vcloud):
    server_id = boot(vcloud)
    volume = create(application, vcloud, size=1)
    posted = []
    fixtures.with_dispatcher(application, type(
        'Recorder', (), {'run_action': lambda self, *a: posted.append(a)})())
    assert attach(application, vcloud, server_id, volume['id']).status_int == 200
    [(instance_id, action_id)] = posted
    action = actions.get_by_id(action_id)
    engine = runner._load_engine(runner.action_flow_detail(instance_id, action),
                                 instance_id, store={c.ACTION_ID: action_id,
                                                     c.HOST: CONF.host})
    run_until(engine, c.PLUG_VOLUME)  # the process "dies" before recording it
    assert show(application, vcloud, volume['id'])['status'] == 'attaching'
    assert actions.unfinished() == [(instance_id, action_id)]

    assert runner.run_action(instance_id, action_id) == tf_states.SUCCESS
    shown = show(application, vcloud, volume['id'])
    assert shown['status'] == 'in-use'
    assert probes.volume_attached(virt.get_driver(), server_id, volume['id']) == \
        shown['attachments'][0]['device']
    assert actions.unfinished() == []


def test_a_volume_from_an_image_is_a_full_copy_made_at_its_first_attachment(
        application, vcloud):
    source = vcloud['tmp'] / 'disk.qcow2'
    subprocess.run(['qemu-img', 'create', '-q', '-f', 'qcow2', str(source), '16M'],
                   check=True)
    image_id = images.create('bootable', file=str(source))['id']
    volume = create(application, vcloud, size=1, imageRef=image_id)
    assert volume['bootable'] == 'true' and 'volume_image_metadata' not in volume
    shown = show(application, vcloud, volume['id'])['volume_image_metadata']
    assert (shown['image_id'], shown['image_name'], shown['disk_format']) == (
        image_id, 'bootable', 'qcow2')
    driver = virt.get_driver()
    assert not probes.volume_exists(driver, volume['id'])  # no host holds it yet
    server_id = boot(vcloud)
    assert attach(application, vcloud, server_id, volume['id']).status_int == 200
    assert show(application, vcloud, volume['id'])['status'] == 'in-use'
    copy = pathlib.Path(CONF.state_path) / 'volumes' / ('volume-%s.qcow2' % volume['id'])
    info = json.loads(subprocess.run(['qemu-img', 'info', '--output=json', str(copy)],
                                     capture_output=True, check=True).stdout)
    assert 'backing-filename' not in info  # a full copy, not an overlay


def _image_file(vcloud, name):
    source = vcloud['tmp'] / (name + '.qcow2')
    subprocess.run(['qemu-img', 'create', '-q', '-f', 'qcow2', str(source), '16M'],
                   check=True)
    return images.create(name, file=str(source))['id']


def test_an_image_a_volume_still_has_to_copy_is_not_deleted(application, vcloud):
    image_id = _image_file(vcloud, 'source')
    volume = create(application, vcloud, size=1, imageRef=image_id)
    image_url = '/image/v2/images/' + image_id
    refused = call(application, 'DELETE', image_url, token=vcloud['token'])
    assert refused.status_int == 409, refused.text
    assert volume['id'] in refused.json['message']  # Glance's body, naming the volume
    assert call(application, 'GET', image_url, token=vcloud['token']).status_int == 200
    server_id = boot(vcloud)
    assert attach(application, vcloud, server_id, volume['id']).status_int == 200
    assert show(application, vcloud, volume['id'])['status'] == 'in-use'
    # Made: the volume has its own copy, the image may go.
    assert call(application, 'DELETE', image_url, token=vcloud['token']).status_int \
        == 204


def test_a_volume_whose_image_vanished_is_not_made_blank(application, vcloud):
    image_id = _image_file(vcloud, 'gone')
    volume = create(application, vcloud, size=1, imageRef=image_id)
    with db_api.transaction() as session:  # as an image deleted before this check
        session.delete(session.get(models.Image, image_id))
    server_id = boot(vcloud)
    attach(application, vcloud, server_id, volume['id'])
    shown = show(application, vcloud, volume['id'])
    assert (shown['status'], shown['attachments']) == ('available', [])
    assert not probes.volume_exists(virt.get_driver(), volume['id'])
    [action] = [a for a in actions.list_for(server_id)
                if a['action'] == 'attach_volume']
    assert 'deleted before volume %s' % volume['id'] in action['message']


def test_a_volume_on_another_host_is_not_attached_here(application, vcloud):
    volume = create(application, vcloud, size=1)
    volumes._set(volume['id'], host='elsewhere')  # made there at an earlier attach
    server_id = boot(vcloud)
    response = attach(application, vcloud, server_id, volume['id'])
    assert response.status_int == 409 and 'share no storage' in response.text
    assert show(application, vcloud, volume['id'])['status'] == 'available'


def test_a_guest_that_holds_on_to_the_disk_keeps_it_attached(application, vcloud,
                                                              conf, monkeypatch):
    server_id = boot(vcloud)
    volume = create(application, vcloud, size=1)
    attach(application, vcloud, server_id, volume['id'])
    conf.set_override('volume_detach_timeout', 1, 'compute')

    def ignored_by_the_guest(guest, xml, live=True, persistent=True):
        _plug(False)(guest, xml, live=False, persistent=persistent)
    monkeypatch.setattr(libvirt_guest.Guest, 'detach_device', ignored_by_the_guest)
    response = call(application, 'DELETE',
                    attachments_path(server_id, volume['id']), token=vcloud['token'])
    assert response.status_int == 202
    shown = show(application, vcloud, volume['id'])
    assert shown['status'] == 'in-use'  # the detach rolled back: still plugged in
    device = shown['attachments'][0]['device']
    assert probes.volume_attached(virt.get_driver(), server_id, volume['id']) == device
    assert _DISKS['instance-%s' % server_id][False]  # back in its definition too
    [detach, _attach] = call(application, 'GET', '/compute/v2.1/servers/%s/'
                             'os-instance-actions' % server_id,
                             token=vcloud['token']).json['instanceActions'][:2]
    assert detach['action'] == 'detach_volume' and 'did not release' in detach['message']


def test_admins_reset_a_volume_a_failed_flow_left_half_way(application, vcloud,
                                                           make_token):
    volume = create(application, vcloud, size=1)
    volumes.mark(volume['id'], 'attaching')  # as a flow that could not end leaves it
    action = vpath(vcloud, '/%s/action' % volume['id'])
    bad = call(application, 'POST', action, {'os-reset_status': {'status': 'gone'}},
               vcloud['token'])
    assert bad.status_int == 400
    assert call(application, 'POST', action,
                {'os-reset_status': {'status': 'available'}},
                vcloud['token']).status_int == 202
    assert show(application, vcloud, volume['id'])['status'] == 'available'

    member = make_token('vol-member', 'member', 'demo')
    project = call(application, 'GET', '/identity/v3/auth/tokens', token=member,
                   headers={'X-Subject-Token': member}).json['token']['project']['id']
    own = call(application, 'POST', '/volume/v3/%s/volumes' % project,
               {'volume': {'size': 1}}, member).json['volume']
    refused = call(application, 'POST', '/volume/v3/%s/volumes/%s/action'
                   % (project, own['id']), {'os-reset_status': {'status': 'error'}},
                   member)
    assert refused.status_int == 403


@pytest.mark.parametrize('readonly', [True, False])
def test_a_read_only_volume_is_plugged_in_read_only(application, vcloud, monkeypatch,
                                                    readonly):
    """Cinder's os-update_readonly_flag: Nova attaches such a volume read-only."""
    plugged = []
    plug = _plug(True)

    def attach_device(guest, xml, live=True, persistent=True):
        plugged.append(etree.fromstring(xml))
        plug(guest, xml, live, persistent)

    monkeypatch.setattr(libvirt_guest.Guest, 'attach_device', attach_device)
    server_id = boot(vcloud)
    volume = create(application, vcloud, size=1)
    flag = call(application, 'POST', vpath(vcloud, '/%s/action' % volume['id']),
                {'os-update_readonly_flag': {'readonly': readonly}}, vcloud['token'])
    assert flag.status_int == 202
    assert attach(application, vcloud, server_id, volume['id']).status_int == 200
    assert plugged and all((disk.find('readonly') is not None) == readonly
                           for disk in plugged)


def test_image_metadata_actions(application, vcloud):
    """Cinder's os-set/unset/show_image_metadata: the volume's copy of what its
    image was, which its source stays whatever they set."""
    source = vcloud['tmp'] / 'disk.qcow2'
    subprocess.run(['qemu-img', 'create', '-q', '-f', 'qcow2', str(source), '16M'],
                   check=True)
    image_id = images.create('bootable', file=str(source))['id']
    volume = create(application, vcloud, size=1, imageRef=image_id)
    action = vpath(vcloud, '/%s/action' % volume['id'])
    pairs = {'image_id': 'another', 'kernel_id': 'k', 'ramdisk_id': 'r'}
    response = call(application, 'POST', action, {'os-set_image_metadata': {
        'metadata': pairs}}, vcloud['token'])
    assert response.status_int == 200, response.text
    assert pairs.items() <= response.json['metadata'].items()
    assert pairs.items() <= show(application, vcloud, volume['id'])[
        'volume_image_metadata'].items()
    unset = call(application, 'POST', action, {'os-unset_image_metadata': {
        'key': 'ramdisk_id'}}, vcloud['token'])
    assert (unset.status_int, unset.body) == (200, b'')
    again = call(application, 'POST', action, {'os-unset_image_metadata': {
        'key': 'ramdisk_id'}}, vcloud['token'])
    assert again.status_int == 404
    shown = call(application, 'POST', action, {'os-show_image_metadata': {}},
                 vcloud['token'])
    assert shown.status_int == 200 and 'ramdisk_id' not in shown.json['metadata']
    assert shown.json['metadata']['kernel_id'] == 'k'
    bad = call(application, 'POST', action, {'os-set_image_metadata': {
        'metadata': {'k': 1}}}, vcloud['token'])
    assert bad.status_int == 400
    assert volumes.source(volume['id'])['image_id'] == image_id  # its source stays


def test_attachment_microversions(application, vcloud):
    """2.49 tag, 2.70 tag shown, 2.79 delete_on_termination, 2.85 PUT, 2.89 ids."""
    server_id = boot(vcloud)
    volume = create(application, vcloud, size=1)

    def mv(version):
        return {'OpenStack-API-Version': 'compute %s' % version}

    def post(version, **spec):
        return call(application, 'POST', attachments_path(server_id),
                    {'volumeAttachment': dict(spec, volumeId=volume['id'])},
                    vcloud['token'], headers=mv(version))
    assert post('2.48', tag='data').status_int == 400
    assert post('2.78', tag='data', delete_on_termination=False).status_int == 400
    assert post('2.79', delete_on_termination=True).status_int == 400
    created = post('2.79', tag='data', delete_on_termination=False)
    assert created.status_int == 200, created.text
    assert created.json['volumeAttachment'] == {
        'id': volume['id'], 'volumeId': volume['id'], 'serverId': server_id,
        'device': '/dev/vdc', 'tag': 'data', 'delete_on_termination': False}

    def shown(version):
        return call(application, 'GET', attachments_path(server_id, volume['id']),
                    token=vcloud['token'], headers=mv(version)).json['volumeAttachment']
    assert 'tag' not in shown('2.69')
    assert shown('2.70')['tag'] == 'data' and 'delete_on_termination' not in shown(
        '2.78')
    assert shown('2.79')['delete_on_termination'] is False
    at_289 = shown('2.89')
    assert 'id' not in at_289 and at_289['attachment_id'] == volume['id']
    assert at_289['bdm_uuid'] == shown('2.89')['bdm_uuid']

    def put(version, **spec):
        return call(application, 'PUT', attachments_path(server_id, volume['id']),
                    {'volumeAttachment': dict({'volumeId': volume['id']}, **spec)},
                    vcloud['token'], headers=mv(version))
    assert put('2.84', delete_on_termination=False).status_int == 404
    assert put('2.85', delete_on_termination=False).status_int == 202
    assert put('2.85', delete_on_termination=True).status_int == 400
    assert put('2.85', volumeId=server_id).status_int == 400
    assert put('2.85', tag='other').status_int == 400
