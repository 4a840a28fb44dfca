"""Nova's volume proxy (os-volumes, os-snapshots; 2.1 - 2.35)."""

import uuid

import pytest

from provisioner.identity import service as identity_service
from tests.unit.api.compute import microversion
from tests.unit.api.compute import V

pytestmark = pytest.mark.usefixtures('test_hypervisor')


def test_a_volume_made_through_nova_is_the_volume_services(member_client):
    created = member_client.post(V + '/os-volumes', {'volume': {
        'size': 1, 'display_name': 'data', 'metadata': {'k': 'v'}}})
    assert created.status_int == 200, created.text
    volume = created.json['volume']
    assert (volume['size'], volume['displayName'], volume['metadata'],
            volume['attachments']) == (1, 'data', {'k': 'v'}, [{}])
    project = member_client.get(V + '/os-volumes').json['volumes']
    assert [v['id'] for v in project] == [volume['id']]
    shown = member_client.get(V + '/os-volumes/' + volume['id']).json['volume']
    assert shown['id'] == volume['id']
    project_id = identity_service.validate(member_client.token).project_id
    cinder = member_client.get('/volume/v3/%s/volumes/%s' % (project_id, volume['id']))
    assert cinder.json['volume']['name'] == 'data'
    assert member_client.delete(V + '/os-volumes/' + volume['id']).status_int == 202


@pytest.mark.parametrize('size', ['#$%', '', '0', 0, -1])
def test_bad_sizes_are_400(member_client, size):
    assert member_client.post(V + '/os-volumes', {'volume': {
        'size': size}}).status_int == 400


def test_missing_ids_and_later_versions_are_404(member_client):
    for path in ('/os-volumes/%s' % uuid.uuid4(), '/os-volumes/',
                 '/os-snapshots/%s' % uuid.uuid4()):
        assert member_client.get(V + path).status_int == 404, path
    assert member_client.delete(V + '/os-volumes/').status_int == 404
    assert member_client.delete(V + '/os-volumes/%s' % uuid.uuid4()).status_int == 404
    assert member_client.get(V + '/os-volumes', headers=microversion(
        '2.36')).status_int == 404
