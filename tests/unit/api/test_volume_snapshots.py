"""Cinder's volume snapshots and volumes made from them or from other volumes: the
answers' shapes (tempest's schemas), the rules (force, sizes, delete with
snapshots, cascade), the quota, and the snapshot and copy flows with their
reverts (the host's copy stubbed: libvirt's test:/// driver has no files; the
real copies: tests/functional)."""

import pytest

from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.quota import counters
from provisioner import virt

from tests.unit.api.test_servers import call
from tests.unit.api import test_volume_service as volume_service

# The volume service's tests' cloud: flows run inline on libvirt's test:/// driver.
application, vcloud = volume_service.application, volume_service.vcloud
create, show, vpath = volume_service.create, volume_service.show, volume_service.vpath

_SHOW_KEYS = {'id', 'created_at', 'updated_at', 'name', 'description', 'volume_id',
              'status', 'size', 'metadata'}
_EXTENDED = {'os-extended-snapshot-attributes:progress',
             'os-extended-snapshot-attributes:project_id'}


def spath(vcloud, suffix=''):
    return '/volume/v3/%s/snapshots%s' % (vcloud['project'], suffix)


def snap(application, vcloud, status=202, **body):
    response = call(application, 'POST', spath(vcloud), {'snapshot': body},
                    vcloud['token'])
    assert response.status_int == status, response.text
    return response.json.get('snapshot') or response.json


def _on_host(volume_id, status='available'):
    """The volume has bytes on this host (as after its first attachment)."""
    with db_api.transaction() as session:
        row = session.get(models.Volume, volume_id)
        row.host, row.status = 'node1', status


@pytest.fixture
def host_copies(monkeypatch):
    """The driver's copies, recorded (and made to fail on demand)."""
    made = {'calls': [], 'fail': False}
    driver = type(virt.get_driver())

    def record(name):
        def call_(self, *args, **kwargs):
            made['calls'].append((name,) + args)
            if made['fail'] and name != 'delete':
                raise RuntimeError('disk full')
            return '/pool/%s' % args[0]
        return call_
    monkeypatch.setattr(driver, 'snapshot_volume', record('snapshot'))
    monkeypatch.setattr(driver, 'copy_volume', record('copy'))
    monkeypatch.setattr(driver, 'delete_volume_snapshot', record('delete'))
    monkeypatch.setattr(driver, 'delete_volume', record('delete_volume'))
    return made


def _gigabytes(vcloud):
    with db_api.transaction() as session:
        return counters.usage(session, vcloud['project'])['volumes_gib']


def test_snapshot_shapes_list_show_update_delete(application, vcloud):
    volume = create(application, vcloud, size=2)
    created = snap(application, vcloud, volume_id=volume['id'], name='s1',
                   description='d', metadata={'k': 'v'})
    assert set(created) == _SHOW_KEYS
    assert (created['status'], created['size'], created['volume_id'],
            created['metadata']) == ('available', 2, volume['id'], {'k': 'v'})
    shown = call(application, 'GET', spath(vcloud, '/' + created['id']),
                 token=vcloud['token']).json['snapshot']
    assert set(shown) == _SHOW_KEYS | _EXTENDED
    listed = call(application, 'GET', spath(vcloud), token=vcloud['token']).json
    assert listed['snapshots'] == [created]
    detailed = call(application, 'GET', spath(vcloud, '/detail?volume_id=%s'
                                          % volume['id']), token=vcloud['token']).json
    assert detailed['snapshots'] == [shown]
    assert call(application, 'GET', spath(vcloud, '?name=other'),
                token=vcloud['token']).json['snapshots'] == []
    updated = call(application, 'PUT', spath(vcloud, '/' + created['id']),
                   {'snapshot': {'display_name': 's2'}}, vcloud['token'])
    assert updated.json['snapshot']['name'] == 's2'
    assert _gigabytes(vcloud) == 4  # the volume's 2 and its snapshot's 2
    # A volume with snapshots stays (Cinder's 400).
    refused = call(application, 'DELETE', vpath(vcloud, '/' + volume['id']),
                   token=vcloud['token'])
    assert refused.status_int == 400 and 'snapshots' in refused.text
    gone = call(application, 'DELETE', spath(vcloud, '/' + created['id']),
                token=vcloud['token'])
    assert gone.status_int == 202
    assert call(application, 'GET', spath(vcloud, '/' + created['id']),
                token=vcloud['token']).status_int == 404
    assert _gigabytes(vcloud) == 2


def test_snapshot_metadata(application, vcloud):
    volume = create(application, vcloud, size=1)
    created = snap(application, vcloud, volume_id=volume['id'])
    path = spath(vcloud, '/%s/metadata' % created['id'])
    assert call(application, 'POST', path, {'metadata': {'a': '1'}},
                vcloud['token']).json == {'metadata': {'a': '1'}}
    assert call(application, 'PUT', path + '/b', {'meta': {'b': '2'}},
                vcloud['token']).json == {'meta': {'b': '2'}}
    assert call(application, 'GET', path, token=vcloud['token']).json == {
        'metadata': {'a': '1', 'b': '2'}}
    assert call(application, 'DELETE', path + '/a', token=vcloud['token']
                ).status_int == 200
    assert call(application, 'DELETE', path + '/a', token=vcloud['token']
                ).status_int == 404
    assert show(application, vcloud, volume['id'])['metadata'] == {}


@pytest.mark.parametrize('body, status, words', [
    ({'volume_id': 'nope'}, 404, 'not found'),
    ({}, 400, 'volume_id'),
    ({'volume_id': None, 'force': 'maybe'}, 400, 'force'),
])
def test_bad_snapshot_requests(application, vcloud, body, status, words):
    if body.get('volume_id', 1) is None:
        body['volume_id'] = create(application, vcloud, size=1)['id']
    found = snap(application, vcloud, status=status, **body)
    assert words in str(found)
    assert call(application, 'GET', spath(vcloud), token=vcloud['token']
                ).json['snapshots'] == []


def test_snapshot_of_an_in_use_volume_needs_force(application, vcloud, host_copies):
    volume = create(application, vcloud, size=1)
    _on_host(volume['id'], status='in-use')
    refused = snap(application, vcloud, status=400, volume_id=volume['id'])
    assert 'must be available' in str(refused)
    made = snap(application, vcloud, volume_id=volume['id'], force=True)
    # The inline flow copied it on the volume's host: available now.
    shown = call(application, 'GET', spath(vcloud, '/' + made['id']),
                 token=vcloud['token']).json['snapshot']
    assert shown['status'] == 'available'
    assert host_copies['calls'] == [('snapshot', volume['id'], made['id'])]


def test_a_failed_snapshot_copy_is_undone_and_the_snapshot_is_error(
        application, vcloud, host_copies):
    volume = create(application, vcloud, size=1)
    _on_host(volume['id'])
    host_copies['fail'] = True
    made = snap(application, vcloud, volume_id=volume['id'])
    shown = call(application, 'GET', spath(vcloud, '/' + made['id']),
                 token=vcloud['token']).json['snapshot']
    assert shown['status'] == 'error'
    # The revert deleted whatever the copy left on the host.
    assert ('delete', made['id']) in host_copies['calls']
    host_copies['fail'] = False
    assert call(application, 'DELETE', spath(vcloud, '/' + made['id']),
                token=vcloud['token']).status_int == 202
    assert call(application, 'GET', spath(vcloud), token=vcloud['token']
                ).json['snapshots'] == []


def test_a_volume_from_a_snapshot_is_copied_on_its_host(application, vcloud,
                                                        host_copies):
    volume = create(application, vcloud, size=1)
    _on_host(volume['id'])
    made = snap(application, vcloud, volume_id=volume['id'])
    smaller = call(application, 'POST', vpath(vcloud),
                   {'volume': {'size': 0, 'snapshot_id': made['id']}}, vcloud['token'])
    assert smaller.status_int == 400
    copy = create(application, vcloud, size=3, snapshot_id=made['id'])
    assert copy['snapshot_id'] == made['id']
    shown = show(application, vcloud, copy['id'])
    assert (shown['status'], shown['size']) == ('available', 3)
    assert ('copy', copy['id'], 3) in host_copies['calls']
    with db_api.transaction() as session:
        assert session.get(models.Volume, copy['id']).host == 'node1'
    # A copy that fails leaves its volume in error, its file deleted.
    host_copies['fail'] = True
    broken = create(application, vcloud, size=1, source_volid=volume['id'])
    assert show(application, vcloud, broken['id'])['status'] == 'error'
    assert ('delete_volume', broken['id']) in host_copies['calls']


def test_cascade_deletes_the_snapshots_with_the_volume(application, vcloud,
                                                       host_copies):
    volume = create(application, vcloud, size=1)
    _on_host(volume['id'])
    made = snap(application, vcloud, volume_id=volume['id'])
    gone = call(application, 'DELETE', vpath(vcloud, '/%s?cascade=true' % volume['id']),
                token=vcloud['token'])
    assert gone.status_int == 202
    assert ('delete', made['id']) in host_copies['calls']
    assert call(application, 'GET', spath(vcloud), token=vcloud['token']
                ).json['snapshots'] == []
    assert _gigabytes(vcloud) == 0


def test_quota_counts_snapshot_gigabytes(application, vcloud):
    volume = create(application, vcloud, size=2)
    counters.set_limits(vcloud['project'], volumes_gib=3)
    over = snap(application, vcloud, status=413, volume_id=volume['id'])
    assert 'gigabytes' in str(over)
    quota = call(application, 'GET', '/volume/v3/%s/os-quota-sets/%s?usage=true'
                 % (vcloud['project'], vcloud['project']), token=vcloud['token'])
    assert quota.json['quota_set']['snapshots']['in_use'] == 0
