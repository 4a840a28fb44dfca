"""Cinder's volume transfers: a project offers an available volume, another
accepts it with the key (the volume, its owner and its gigabytes move), or the
giver deletes the offer and the volume is available again."""

import pytest

from provisioner.quota import counters
from tests.unit.api import cinder
from tests.unit.api.conftest import Client


@pytest.fixture
def giver(member_client):
    return member_client, cinder.base(member_client)


@pytest.fixture
def taker(app, make_token):
    client = Client(app, make_token('alt-member', 'member', 'alt'))
    return client, cinder.base(client)


def _offer(client, base, size=1):
    volume = client.post(base + '/volumes', {'volume': {'size': size}}).json['volume']
    response = client.post(base + '/os-volume-transfer',
                           {'transfer': {'volume_id': volume['id'], 'name': 't'}})
    assert response.status_int == 202, response.text
    return volume['id'], response.json['transfer']


def _gib(base):
    found = {q['resource']: q for q in counters.show(base.rsplit('/', 1)[1])}
    return found['volumes_gib']['in_use']


def test_accepted_with_the_key(giver, taker):
    client, base = giver
    volume_id, transfer = _offer(client, base, size=2)
    assert len(transfer['auth_key']) == 16
    path = '%s/volumes/%s' % (base, volume_id)
    assert client.get(path).json['volume']['status'] == 'awaiting-transfer'
    assert client.delete(path).status_int == 400
    listed = client.get(base + '/os-volume-transfer/detail').json['transfers']
    assert [t['volume_id'] for t in listed] == [volume_id]
    assert 'auth_key' not in listed[0]
    alt, alt_base = taker
    accept = '%s/os-volume-transfer/%s/accept' % (alt_base, transfer['id'])
    assert alt.get('%s/os-volume-transfer/%s' % (alt_base, transfer['id'])) \
        .status_int == 404
    assert alt.post(accept, {'accept': {'auth_key': 'wrong'}}).status_int == 400
    assert alt.post(accept, {'accept': {'auth_key': transfer['auth_key']}}) \
        .status_int == 202
    shown = alt.get('%s/volumes/%s' % (alt_base, volume_id)).json['volume']
    assert (shown['status'], shown['os-vol-tenant-attr:tenant_id']) == \
        ('available', alt_base.rsplit('/', 1)[1])
    assert client.get(path).status_int == 404
    assert (_gib(base), _gib(alt_base)) == (0, 2)


def test_deleted_offer_makes_the_volume_available(giver):
    client, base = giver
    volume_id, transfer = _offer(client, base)
    assert client.post(base + '/os-volume-transfer', {'transfer': {
        'volume_id': volume_id}}).status_int == 400
    assert client.delete('%s/os-volume-transfer/%s' % (base, transfer['id'])) \
        .status_int == 202
    assert client.get('%s/volumes/%s' % (base, volume_id)).json['volume']['status'] \
        == 'available'
    assert client.get(base + '/os-volume-transfer').json == {'transfers': []}
