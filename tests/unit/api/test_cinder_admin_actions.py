"""Cinder's admin actions on volumes and snapshots as tempest runs them: a status
reset to any of Cinder's statuses, os-force_delete whatever the status, and a
snapshot's os-update_snapshot_status with its progress."""

import pytest

from tests.unit.api import cinder


@pytest.fixture
def admin(admin_client):
    return admin_client, cinder.base(admin_client)


def _volume(client, base):
    response = client.post(base + '/volumes', {'volume': {'size': 1}})
    assert response.status_int == 202, response.text
    return '%s/volumes/%s' % (base, response.json['volume']['id'])


@pytest.mark.parametrize('status', ['creating', 'attaching', 'error', 'maintenance'])
def test_force_delete_a_volume_reset_to(admin, status):
    client, base = admin
    path = _volume(client, base)
    assert client.post(path + '/action', {'os-reset_status': {'status': status}}) \
        .status_int == 202
    assert client.get(path).json['volume']['status'] == status
    assert client.post(path + '/action', {'os-force_delete': {}}).status_int == 202
    assert client.get(path).status_int == 404


def test_reset_to_an_unknown_status_is_refused(admin):
    client, base = admin
    path = _volume(client, base)
    response = client.post(path + '/action', {'os-reset_status': {'status': 'bogus'}})
    assert response.status_int == 400
    assert client.get(path).json['volume']['status'] == 'available'


def test_members_cannot_force_delete(admin, member_client):
    base = cinder.base(member_client)
    path = _volume(member_client, base)
    assert member_client.post(path + '/action', {'os-force_delete': {}}) \
        .status_int == 403


def _snapshot(client, base):
    volume_id = _volume(client, base).rsplit('/', 1)[1]
    response = client.post(base + '/snapshots', {'snapshot': {'volume_id': volume_id}})
    assert response.status_int == 202, response.text
    return '%s/snapshots/%s' % (base, response.json['snapshot']['id'])


def test_snapshot_status_reset_and_update(admin):
    client, base = admin
    path = _snapshot(client, base)
    action = path + '/action'
    assert client.post(action, {'os-reset_status': {'status': 'creating'}}) \
        .status_int == 202
    assert client.post(action, {'os-update_snapshot_status': {
        'status': 'error', 'progress': '80%'}}).status_int == 202
    shown = client.get(path).json['snapshot']
    assert (shown['status'], shown['os-extended-snapshot-attributes:progress']) == \
        ('error', '80%')
    # error -> available is no move a snapshot's maker reports.
    assert client.post(action, {'os-update_snapshot_status': {
        'status': 'available'}}).status_int == 400
    assert client.post(action, {'os-reset_status': {'status': 'nope'}}) \
        .status_int == 400


@pytest.mark.parametrize('status', ['creating', 'deleting', 'error', 'error_deleting'])
def test_force_delete_a_snapshot_reset_to(admin, status):
    client, base = admin
    path = _snapshot(client, base)
    assert client.post(path + '/action', {'os-reset_status': {'status': status}}) \
        .status_int == 202
    assert client.post(path + '/action', {'os-force_delete': {}}).status_int == 202
    assert client.get(path).status_int == 404
