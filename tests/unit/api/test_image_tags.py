"""Glance's image tags: set at create, by JSON patch (whole list or per element, as
openstacksdk computes it), by PUT/DELETE .../tags/{tag}, and as a list filter."""

import json

import jsonpatch
import pytest

from tests.unit.api.test_image_upload import app  # noqa: F401 - fixture
from tests.unit.api.test_image_upload import create
from tests.unit.api.test_image_upload import other_client  # noqa: F401 - fixture
from tests.unit.api.test_image_upload import PATCH_TYPE


@pytest.fixture
def image(member_client):
    return create(member_client, 'tagged', tags=['web', 'v1', 'web'])


def tags_of(client, image_id):
    return client.get('/image/v2/images/' + image_id).json['tags']


def patch(client, image_id, ops):
    return client.patch('/image/v2/images/' + image_id, raw=json.dumps(ops).encode(),
                        headers={'Content-Type': PATCH_TYPE})


def test_create_keeps_tags_in_order_without_repeats(member_client, image):
    assert image['tags'] == ['web', 'v1']
    assert tags_of(member_client, image['id']) == ['web', 'v1']


def test_put_and_delete_one_tag(member_client, image):
    path = '/image/v2/images/%s/tags/' % image['id']
    assert member_client.put(path + 'db').status_int == 204
    assert member_client.put(path + 'db').status_int == 204  # already there: no change
    assert tags_of(member_client, image['id']) == ['web', 'v1', 'db']
    assert member_client.delete(path + 'web').status_int == 204
    missing = member_client.delete(path + 'web')
    assert missing.status_int == 404 and 'Tag web not found' in missing.text
    assert tags_of(member_client, image['id']) == ['v1', 'db']


def test_patches_as_openstacksdk_computes_them(member_client, image):
    """`openstack image set --tag`/`--property` send jsonpatch.make_patch's diff."""
    before = {'tags': ['web', 'v1']}
    for after in (['web', 'v1', 'db'], ['db'], [], ['a', 'b']):
        ops = jsonpatch.make_patch(before, {'tags': after}).patch
        response = patch(member_client, image['id'], ops)
        assert response.status_int == 200, (ops, response.text)
        assert response.json['tags'] == after
        before = {'tags': after}
    assert patch(member_client, image['id'],
                 [{'op': 'replace', 'path': '/tags', 'value': ['x']}]).json['tags'] == ['x']
    assert patch(member_client, image['id'],
                 [{'op': 'remove', 'path': '/tags'}]).json['tags'] == []
    assert patch(member_client, image['id'],
                 [{'op': 'remove', 'path': '/tags/0'}]).status_int == 409


def test_bad_tags_are_refused_and_change_nothing(member_client, image):
    path = '/image/v2/images/%s/tags/' % image['id']
    assert member_client.put(path + 'x' * 256).status_int == 400
    assert patch(member_client, image['id'],
                 [{'op': 'add', 'path': '/tags', 'value': 'web'}]).status_int == 400
    assert patch(member_client, image['id'],
                 [{'op': 'add', 'path': '/tags/-', 'value': ['nested']}]).status_int == 400
    too_many = [{'op': 'replace', 'path': '/tags',
                 'value': ['t%d' % n for n in range(129)]}]
    assert patch(member_client, image['id'], too_many).status_int == 400
    assert tags_of(member_client, image['id']) == ['web', 'v1']


def test_list_filters_by_every_tag_given(member_client, image):
    create(member_client, 'other', tags=['web'])
    names = lambda query: sorted(i['name'] for i in member_client.get(  # noqa: E731
        '/image/v2/images' + query).json['images'])
    assert names('?tag=web') == ['other', 'tagged']
    assert names('?tag=web&tag=v1') == ['tagged']
    assert names('?tag=nope') == []


def test_another_projects_image_cannot_be_tagged(other_client, image):  # noqa: F811
    path = '/image/v2/images/%s/tags/x' % image['id']
    assert other_client.put(path).status_int == 404
