"""Cinder's QoS specs for admins: create with a consumer and specs, set and unset
keys, associate with volume types, delete (force while associated)."""

import pytest

from tests.unit.api import cinder


@pytest.fixture
def admin(admin_client):
    return admin_client, cinder.base(admin_client) + '/qos-specs'


def _create(client, path, **specs):
    response = client.post(path, {'qos_specs': dict({'name': 'fast'}, **specs)})
    assert response.status_int == 200, response.text
    return response.json['qos_specs']


def test_qos_specs_crud(admin):
    client, path = admin
    made = _create(client, path, consumer='front-end', read_iops_sec=2000)
    assert (made['consumer'], made['specs']) == ('front-end', {'read_iops_sec': '2000'})
    assert client.get(path).json['qos_specs'] == [made]
    assert client.post(path, {'qos_specs': {'name': 'fast'}}).status_int == 409
    assert client.post(path, {'qos_specs': {'name': 'x', 'consumer': 'no'}}) \
        .status_int == 400
    one = '%s/%s' % (path, made['id'])
    assert client.put(one, {'qos_specs': {'iops_bytes': '500'}}).json == \
        {'qos_specs': {'iops_bytes': '500'}}
    assert client.get(one).json['qos_specs']['specs']['iops_bytes'] == '500'
    assert client.put(one + '/delete_keys', {'keys': ['iops_bytes']}).status_int == 202
    assert 'iops_bytes' not in client.get(one).json['qos_specs']['specs']
    assert client.delete(one).status_int == 202
    assert client.get(one).status_int == 404


def test_associations(admin):
    client, path = admin
    qos_id = _create(client, path)['id']
    base = path.rsplit('/', 1)[0]
    type_id = client.post(base + '/types', {'volume_type': {'name': 'gold'}}) \
        .json['volume_type']['id']
    one = '%s/%s' % (path, qos_id)
    assert client.get('%s/associate?vol_type_id=%s' % (one, type_id)).status_int == 202
    assert client.get(one + '/associations').json == {'qos_associations': [
        {'association_type': 'volume_type', 'name': 'gold', 'id': type_id}]}
    assert client.delete(one).status_int == 400
    assert client.get(one + '/disassociate_all').status_int == 202
    assert client.get(one + '/associations').json == {'qos_associations': []}
    assert client.get('%s/associate?vol_type_id=%s' % (one, type_id)).status_int == 202
    assert client.delete(one + '?force=true').status_int == 202


def test_members_are_refused(member_client):
    assert member_client.get(cinder.base(member_client) + '/qos-specs').status_int \
        == 403
