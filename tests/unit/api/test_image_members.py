"""Image v2 members: sharing an image with another project, as Glance does."""

import pytest

from provisioner.catalog import images
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import service as identity_service
from tests.unit.api.test_image_upload import app, create, other_client  # noqa: F401


@pytest.fixture
def other_project(make_token):
    return identity_service.validate(make_token('other-member', 'member', 'other')) \
        .project_id


def ids(client, query=''):
    return [i['id'] for i in client.get('/image/v2/images' + query).json['images']]


def test_share_accept_reject_remove(member_client, other_client,  # noqa: F811
                                    other_project):
    image = create(member_client, 'shared-one')
    assert image['visibility'] == 'shared'
    url = '/image/v2/images/%s/members' % image['id']
    assert other_client.get('/image/v2/images/' + image['id']).status_int == 404
    response = member_client.post(url, {'member': other_project})
    assert response.status_int == 200, response.text
    member = response.json
    assert (member['image_id'], member['member_id'], member['status'], member['schema']) \
        == (image['id'], other_project, 'pending', '/v2/schemas/member')
    assert member_client.post(url, {'member': other_project}).status_int == 409
    # A member sees the image (and boots it) at once; lists it once it accepts.
    assert other_client.get('/image/v2/images/' + image['id']).status_int == 200
    other = identity_service.validate(other_client.token)
    with db_api.transaction() as session, \
            pytest.raises(exception.Invalid, match='queued, not active'):  # not 404
        images.check_bootable(other, session.get(models.Image, image['id']))
    assert image['id'] not in ids(other_client)
    assert image['id'] in ids(other_client, '?member_status=pending')
    assert image['id'] in ids(other_client, '?member_status=all')
    assert other_client.get('/image/v2/images?member_status=maybe').status_int == 400
    mine = url + '/' + other_project
    assert member_client.put(mine, {'status': 'accepted'}).status_int == 403  # owner
    assert other_client.put(mine, {'status': 'maybe'}).status_int == 400
    response = other_client.put(mine, {'status': 'accepted'})
    assert response.status_int == 200 and response.json['status'] == 'accepted'
    assert image['id'] in ids(other_client)
    listed = member_client.get(url).json
    assert listed['schema'] == '/v2/schemas/members'
    assert [m['status'] for m in listed['members']] == ['accepted']
    assert other_client.get(mine).json['status'] == 'accepted'
    assert other_client.put(mine, {'status': 'rejected'}).status_int == 200
    assert image['id'] not in ids(other_client)
    # Only the owner adds and removes members.
    assert other_client.delete(mine).status_int == 403
    assert member_client.delete(mine).status_int == 204
    assert member_client.delete(mine).status_int == 404
    assert other_client.get('/image/v2/images/' + image['id']).status_int == 404


def test_only_shared_images_have_members(member_client, other_project):
    image = create(member_client, 'private-one', visibility='private')
    response = member_client.post('/image/v2/images/%s/members' % image['id'],
                                  {'member': other_project})
    assert response.status_int == 403, response.text
    response = member_client.post('/image/v2/images/%s/members' % image['id'],
                                  {'who': 'x'})
    assert response.status_int == 400 and '{"member"' in response.json['message']


def test_a_member_sees_its_own_membership_only(member_client, other_client,  # noqa: F811
                                               other_project, make_token, app):  # noqa: F811
    from tests.unit.api.conftest import Client
    image = create(member_client, 'shared-two')
    url = '/image/v2/images/%s/members' % image['id']
    member_client.post(url, {'member': other_project})
    member_client.post(url, {'member': 'f' * 32})
    assert len(member_client.get(url).json['members']) == 2
    seen = other_client.get(url).json['members']
    assert [m['member_id'] for m in seen] == [other_project]
    assert other_client.get(url + '/' + 'f' * 32).status_int == 404
    stranger = Client(app, make_token('stranger', 'member', 'elsewhere'))
    assert stranger.get(url).status_int == 404
    # Deleting the image takes its members with it.
    assert member_client.delete('/image/v2/images/' + image['id']).status_int == 204


def test_member_schemas(member_client):
    assert member_client.get('/image/v2/schemas/member').json['name'] == 'member'
    assert member_client.get('/image/v2/schemas/members').json['name'] == 'members'
