"""Nova's image proxy (2.1 - 2.35): the image API's images in Nova's shapes."""

from tests.unit.api.compute import microversion
from tests.unit.api.compute import V

GLANCE = '/image/v2/images'


def _image(client, name, **props):
    created = client.post(GLANCE, dict({'name': name, 'disk_format': 'raw',
                                        'container_format': 'bare'}, **props))
    assert created.status_int == 201, created.text
    return created.json['id']


def test_images_list_filter_and_show_as_nova_shows_them(member_client):
    first = _image(member_client, 'one', image_type='snapshot',
                   instance_uuid='8b0a6d2e-9d7a-4a34-9f3b-2f1c1c1c1c1c')
    second = _image(member_client, 'two', min_ram=512)
    listed = member_client.get(V + '/images').json['images']
    assert {i['id'] for i in listed} >= {first, second}
    assert set(listed[0]) == {'id', 'name', 'links'}
    shown = member_client.get(V + '/images/' + first).json['image']
    assert (shown['status'], shown['progress'], shown['minRam']) == ('SAVING', 25, 0)
    assert shown['metadata']['image_type'] == 'snapshot'
    assert shown['server']['id'] == '8b0a6d2e-9d7a-4a34-9f3b-2f1c1c1c1c1c'
    assert [r['rel'] for r in shown['links']] == ['self', 'bookmark', 'alternate']
    for query, expected in (('name=two', {second}), ('type=snapshot', {first}),
                            ('minRam=256', {second}), ('status=QUEUED', {first, second}),
                            ('server=8b0a6d2e-9d7a-4a34-9f3b-2f1c1c1c1c1c', {first})):
        found = member_client.get(V + '/images/detail?' + query).json['images']
        assert {i['id'] for i in found} == expected, query
    page = member_client.get(V + '/images?limit=1').json
    assert len(page['images']) == 1 and 'images_links' in page
    assert member_client.get(V + '/images/nope').status_int == 404
    assert member_client.get(V + '/images', headers=microversion('2.36')).status_int \
        == 404
    assert member_client.delete(V + '/images/' + second).status_int == 204
    assert member_client.get(V + '/images/' + second).status_int == 404


def test_image_metadata_is_its_properties(member_client):
    image_id = _image(member_client, 'meta', os_distro='debian')
    meta = V + '/images/%s/metadata' % image_id
    assert member_client.get(meta).json['metadata'] == {'os_distro': 'debian'}
    merged = member_client.post(meta, {'metadata': {'a': '1'}}).json['metadata']
    assert merged == {'os_distro': 'debian', 'a': '1'}
    replaced = member_client.put(meta, {'metadata': {'b': '2'}}).json['metadata']
    assert replaced == {'b': '2'}
    assert member_client.get(meta + '/b').json == {'meta': {'b': '2'}}
    assert member_client.put(meta + '/c', {'meta': {'c': '3'}}).json == {
        'meta': {'c': '3'}}
    assert member_client.put(meta + '/c', {'meta': {'d': '3'}}).status_int == 400
    assert member_client.delete(meta + '/b').status_int == 204
    assert member_client.delete(meta + '/b').status_int == 404
    assert member_client.get(meta).json['metadata'] == {'c': '3'}
    glance = member_client.get(GLANCE + '/' + image_id).json
    assert glance['c'] == '3' and 'os_distro' not in glance
    too_many = {'metadata': {'k%d' % i: 'v' for i in range(129)}}
    assert member_client.post(meta, too_many).status_int in (400, 403)
