"""Cinder v3's volume answers as tempest and the clients check them: the create and
update answers (no os-vol-* attributes), metadata, os-set_bootable,
os-update_readonly_flag, list filters, sort and pages, extensions, and Cinder's
404s for a volume type, snapshot or source volume that does not exist."""

import re

import pytest

from provisioner.api.volume import views
from provisioner.identity import service as identity_service
from provisioner.volume import volumes

_EXTENDED = ('os-vol-tenant-attr:tenant_id', 'os-vol-host-attr:host',
             'volume_image_metadata')


@pytest.fixture
def demo(member_client):
    """The demo member's client and the volume API's base path of its project."""
    context = identity_service.validate(member_client.token)
    return member_client, '/volume/v3/%s' % context.project_id


def _create(client, base, **volume):
    volume.setdefault('size', 1)
    response = client.post(base + '/volumes', {'volume': volume})
    assert response.status_int == 202, response.text
    return response.json['volume']


def _action(client, base, volume_id, action, args):
    return client.post('%s/volumes/%s/action' % (base, volume_id), {action: args})


def _show(client, base, volume_id):
    return client.get('%s/volumes/%s' % (base, volume_id)).json['volume']


def test_create_and_update_answer_without_the_show_attributes(demo):
    client, base = demo
    created = _create(client, base, name='data', metadata={'Type': 'Test'})
    assert not set(_EXTENDED) & set(created)
    assert created['metadata'] == {'Type': 'Test'}
    updated = client.put('%s/volumes/%s' % (base, created['id']),
                         {'volume': {'name': 'data2', 'description': 'd'}}).json['volume']
    assert not set(_EXTENDED) & set(updated)
    assert (updated['name'], updated['metadata']) == ('data2', {'Type': 'Test'})
    shown = _show(client, base, created['id'])
    # Project readers see the owner (Cinder's policy); the host is for admins only.
    assert shown['os-vol-tenant-attr:tenant_id'] == base.rsplit('/', 1)[1]
    assert 'os-vol-host-attr:host' not in shown
    detailed = client.get(base + '/volumes/detail').json['volumes']
    assert detailed == [shown]


def test_admins_see_the_host_as_cinder_writes_it():
    assert re.fullmatch('.+@.+#.+', views._host({'host': 'node1'}))
    assert views._host({'host': None}) is None


def test_update_with_metadata_replaces_it(demo):
    client, base = demo
    volume = _create(client, base, metadata={'a': '1', 'b': '2'})
    updated = client.put('%s/volumes/%s' % (base, volume['id']),
                         {'volume': {'metadata': {'c': '3'}}}).json['volume']
    assert updated['metadata'] == {'c': '3'}


def test_metadata_crud(demo):
    client, base = demo
    volume = _create(client, base)
    path = '%s/volumes/%s/metadata' % (base, volume['id'])
    pairs = {'key1': 'value1', 'key2': 'value2', 'key4': '<value&special_chars>'}
    assert client.post(path, {'metadata': pairs}).json == {'metadata': pairs}
    added = client.post(path, {'metadata': {'key3': 'value3'}})
    assert added.status_int == 200
    assert added.json['metadata'] == dict(pairs, key3='value3')
    replaced = client.put(path, {'metadata': {'key4': 'value4'}})
    assert (replaced.status_int, replaced.json) == (200, {'metadata': {'key4': 'value4'}})
    assert client.get(path).json == {'metadata': {'key4': 'value4'}}
    item = client.put(path + '/key5', {'meta': {'key5': 'five'}})
    assert (item.status_int, item.json) == (200, {'meta': {'key5': 'five'}})
    assert client.get(path + '/key5').json == {'meta': {'key5': 'five'}}
    deleted = client.delete(path + '/key4')
    assert (deleted.status_int, deleted.body) == (200, b'')
    assert client.get(path).json == {'metadata': {'key5': 'five'}}
    assert _show(client, base, volume['id'])['metadata'] == {'key5': 'five'}


@pytest.mark.parametrize('method, suffix, body, status', [
    ('GET', '/nokey', None, 404),
    ('DELETE', '/nokey', None, 404),
    ('PUT', '/key1', {'meta': {'other': 'v'}}, 400),
    ('PUT', '/key1', {'meta': {'key1': 'v', 'key2': 'v'}}, 400),
    ('PUT', '/key1', {'meta': {}}, 400),
    ('POST', '', {'metadata': {'key1': 1}}, 400),
    ('POST', '', {'metadata': {'bad\nkey': 'v'}}, 400),
    ('POST', '', {'metadata': 'text'}, 400),
    ('PUT', '', {'other': {}}, 400),
])
def test_bad_metadata_requests_change_nothing(demo, method, suffix, body, status):
    client, base = demo
    volume = _create(client, base, metadata={'key1': 'value1'})
    path = '%s/volumes/%s/metadata' % (base, volume['id'])
    response = client.request(method, path + suffix, body)
    assert response.status_int == status, response.text
    assert client.get(path).json == {'metadata': {'key1': 'value1'}}


def test_metadata_of_a_volume_that_does_not_exist_is_404(demo):
    client, base = demo
    assert client.get(base + '/volumes/nope/metadata').status_int == 404
    assert client.post(base + '/volumes/nope/metadata',
                       {'metadata': {'a': 'b'}}).status_int == 404


def test_set_bootable(demo):
    client, base = demo
    volume = _create(client, base)
    for value, shown in ((True, 'true'), (False, 'false'), ('yes', 'true')):
        response = _action(client, base, volume['id'], 'os-set_bootable',
                           {'bootable': value})
        assert response.status_int == 200, response.text
        assert _show(client, base, volume['id'])['bootable'] == shown
    refused = _action(client, base, volume['id'], 'os-set_bootable', {'bootable': 'x'})
    assert refused.status_int == 400 and 'badRequest' in refused.json


def test_readonly_flag_shows_in_metadata_as_cinder_admin_metadata(demo):
    client, base = demo
    volume = _create(client, base, metadata={'a': 'b'})
    assert 'readonly' not in _show(client, base, volume['id'])['metadata']
    for value in (True, False):
        response = _action(client, base, volume['id'], 'os-update_readonly_flag',
                           {'readonly': value})
        assert response.status_int == 202, response.text
        assert _show(client, base, volume['id'])['metadata'] == {
            'a': 'b', 'readonly': str(value)}
    # The user's metadata does not hold it.
    metadata = client.get('%s/volumes/%s/metadata' % (base, volume['id'])).json
    assert metadata == {'metadata': {'a': 'b'}}
    refused = _action(client, base, volume['id'], 'os-update_readonly_flag', {})
    assert refused.status_int == 400


def test_readonly_flag_needs_an_available_volume(demo):
    client, base = demo
    volume = _create(client, base)
    volumes.mark(volume['id'], 'in-use')
    response = _action(client, base, volume['id'], 'os-update_readonly_flag',
                       {'readonly': True})
    assert response.status_int == 400 and 'available' in response.text
    assert 'readonly' not in _show(client, base, volume['id'])['metadata']


def test_unknown_action_is_400(demo):
    client, base = demo
    volume = _create(client, base)
    response = _action(client, base, volume['id'], 'os-migrate_volume', {})
    assert response.status_int == 400 and 'os-set_bootable' in response.text


@pytest.mark.parametrize('field, status', [
    ('volume_type', 404), ('snapshot_id', 404), ('source_volid', 404)])
def test_sources_that_do_not_exist_are_404(demo, field, status):
    client, base = demo
    response = client.post(base + '/volumes', {'volume': {'size': 1, field: 'abc'}})
    assert response.status_int == status and 'itemNotFound' in response.json
    assert client.get(base + '/volumes').json['volumes'] == []


def test_a_copy_of_a_volume_of_no_bytes_yet_takes_its_source_at_once(demo):
    client, base = demo
    source = _create(client, base, size=2)
    # No size: the source's (Cinder's).
    response = client.post(base + '/volumes', {'volume': {'source_volid': source['id']}})
    copy = response.json['volume']
    assert (response.status_int, copy['status'], copy['size'], copy['source_volid']) == (
        202, 'available', 2, source['id'])
    response = client.post(base + '/volumes',
                           {'volume': {'size': 1, 'source_volid': source['id']}})
    assert response.status_int == 400 and 'smaller' in response.text
    assert len(client.get(base + '/volumes').json['volumes']) == 2


def test_list_filters(demo):
    client, base = demo
    first = _create(client, base, name='one', metadata={'Type': 'work'},
                    availability_zone='zone1')
    second = _create(client, base, name='two', metadata={'Type': 'play', 'x': 'y'})
    volumes.mark(second['id'], 'error')

    def names(query, detail=True):
        path = base + ('/volumes/detail?' if detail else '/volumes?') + query
        response = client.get(path)
        assert response.status_int == 200, response.text
        return [v['name'] for v in response.json['volumes']]

    assert names('name=one') == ['one'] and names('name=one', False) == ['one']
    assert names('name=nobody') == []
    assert names('status=error') == ['two'] and names('status=null') == []
    assert names('availability_zone=zone1') == ['one']
    assert names('availability_zone=nova') == ['two']
    assert names("metadata={'Type': 'work'}") == ['one']
    assert names("metadata={'Type': 'play', 'x': 'y'}") == ['two']
    assert names('metadata={}') == ['one', 'two']
    assert names('bootable=false&name=two') == ['two']
    assert client.get(base + '/volumes?metadata=nonsense').status_int == 400
    assert first['id']


def test_list_sort(demo):
    client, base = demo
    ids = [_create(client, base, name=name)['id'] for name in ('b', 'a', 'c')]

    def listed(query):
        response = client.get(base + '/volumes/detail?' + query)
        assert response.status_int == 200, response.text
        return [v['name'] for v in response.json['volumes']]

    assert listed('') == ['b', 'a', 'c']
    assert listed('sort_key=name&sort_dir=asc') == ['a', 'b', 'c']
    assert listed('sort=name:desc') == ['c', 'b', 'a']
    assert listed('sort_key=id&sort_dir=desc&limit=2') == [
        _show(client, base, i)['name'] for i in sorted(ids, reverse=True)[:2]]
    assert client.get(base + '/volumes?sort_key=secret').status_int == 400
    assert client.get(base + '/volumes?sort=name:up').status_int == 400


def test_pages_link_after_every_full_page(demo):
    """Cinder's rule, which tempest follows: a next link after a full page, so the
    last page of a count divisible by the limit is an empty one, without a link."""
    client, base = demo
    ids = [_create(client, base)['id'] for _ in range(2)]
    seen, path, pages = [], base + '/volumes?limit=1', 0
    while path:
        body = client.get(path).json
        seen += [v['id'] for v in body['volumes']]
        links = [link['href'] for link in body.get('volumes_links', ())
                 if link['rel'] == 'next']
        path = links[0].replace('http://localhost', '') if links else None
        pages += 1
    assert (seen, pages) == (ids, 3)
    unlimited = client.get(base + '/volumes').json
    assert 'volumes_links' not in unlimited


def test_extensions(demo):
    client, base = demo
    response = client.get(base + '/extensions')
    assert response.status_int == 200
    extensions = response.json['extensions']
    aliases = [e['alias'] for e in extensions]
    assert {'os-vol-tenant-attr', 'os-volume-actions', 'os-vol-image-meta'} <= set(
        aliases)
    assert all(set(e) == {'alias', 'name', 'updated', 'description', 'links'}
               for e in extensions)


@pytest.mark.parametrize('method', ['GET', 'PUT', 'DELETE'])
def test_a_volume_of_no_id_is_404_not_the_list(demo, method):
    client, base = demo
    _create(client, base)
    response = client.request(method, base + '/volumes/',
                              {'volume': {}} if method == 'PUT' else None)
    assert response.status_int == 404 and 'itemNotFound' in response.json
    assert len(client.get(base + '/volumes').json['volumes']) == 1


def test_version_documents_with_or_without_a_slash(client):
    for path in ('/volume', '/volume/', '/volume/v3', '/volume/v3/'):
        response = client.get(path)
        assert response.status_int in (200, 300), (path, response.status_int)
        assert response.json['versions'][0]['id'] == 'v3.0'


def test_reserve_and_unreserve(demo):
    client, base = demo
    volume = _create(client, base)
    assert _action(client, base, volume['id'], 'os-reserve', {}).status_int == 202
    assert _show(client, base, volume['id'])['status'] == 'attaching'
    again = _action(client, base, volume['id'], 'os-reserve', {})
    assert again.status_int == 400 and 'available' in again.text
    # Reserved: not deletable, as any attaching volume.
    assert client.delete('%s/volumes/%s' % (base, volume['id'])).status_int == 400
    assert _action(client, base, volume['id'], 'os-unreserve', {}).status_int == 202
    assert _show(client, base, volume['id'])['status'] == 'available'
    # Unreserving what is not reserved changes nothing, as in Cinder.
    assert _action(client, base, volume['id'], 'os-unreserve', {}).status_int == 202
    assert _show(client, base, volume['id'])['status'] == 'available'


@pytest.mark.parametrize('action', ['os-reserve', 'os-unreserve', 'os-attach',
                                    'os-detach'])
def test_an_action_on_a_volume_that_does_not_exist_is_404(demo, action):
    client, base = demo
    response = _action(client, base, 'nope', action, {})
    assert response.status_int == 404 and 'itemNotFound' in response.json


def test_cinders_attach_action_points_to_novas_attachments(demo):
    client, base = demo
    volume = _create(client, base)
    response = _action(client, base, volume['id'], 'os-attach',
                       {'instance_uuid': volume['id'], 'mountpoint': '/dev/vdb'})
    assert response.status_int == 400 and 'os-volume_attachments' in response.text
    assert _show(client, base, volume['id'])['status'] == 'available'


@pytest.mark.parametrize('body', [{}, {'os-extend': 2},
                                  {'os-reserve': {}, 'os-unreserve': {}}])
def test_one_action_with_an_object_a_request(demo, body):
    client, base = demo
    volume = _create(client, base)
    response = client.post('%s/volumes/%s/action' % (base, volume['id']), body)
    assert response.status_int == 400 and 'badRequest' in response.json


def test_pages_take_an_offset_and_a_marker_not_found_is_404(demo):
    client, base = demo
    made = [_create(client, base, name='v%d' % n)['id'] for n in range(3)]
    listed = client.get(base + '/volumes?offset=2&limit=3').json['volumes']
    assert [v['id'] for v in listed] == made[2:]
    after = client.get('%s/volumes?marker=%s&offset=1' % (base, made[0]))
    assert [v['id'] for v in after.json['volumes']] == made[2:]
    missing = client.get(base + '/snapshots?marker=00000000-0000-0000-0000-000000000000')
    assert missing.status_int == 404
