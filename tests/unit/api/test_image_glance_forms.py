"""Image v2 as Glance takes it: the 2.0 JSON-patch form, owner, nameless images and
any name, Glance's formats, deactivate/reactivate, /v2/images/ and /v2/info/import."""

import json

import pytest

from provisioner.catalog import images
from provisioner.compute import api as compute_api
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner import exception
from provisioner.identity import service as identity_service
from tests.unit.api.test_image_upload import app, create, other_client, upload  # noqa: F401
from tests.unit import fixtures

PATCH_20 = 'application/openstack-images-v2.0-json-patch'


def patch(client, image_id, ops, content_type=PATCH_20):
    return client.patch('/image/v2/images/' + image_id, raw=json.dumps(ops).encode(),
                        headers={'Content-Type': content_type})


def test_the_2_0_patch_form_unprotects_and_renames(member_client):
    created = create(member_client, 'guarded', protected=True)
    assert member_client.delete('/image/v2/images/' + created['id']).status_int == 403
    response = patch(member_client, created['id'],
                     [{'replace': '/protected', 'value': False},
                      {'replace': '/name', 'value': 'free'},
                      {'add': '/hw_x', 'value': '1'}])
    assert response.status_int == 200, response.text
    assert (response.json['protected'], response.json['name'], response.json['hw_x']) \
        == (False, 'free', '1')
    body = patch(member_client, created['id'], [{'remove': '/hw_x'}]).json
    assert 'hw_x' not in body
    assert member_client.delete('/image/v2/images/' + created['id']).status_int == 204


@pytest.mark.parametrize('ops', [
    [{'replace': '/name', 'remove': '/x', 'value': 'y'}],  # two operations in one
    [{'path': '/name', 'value': 'y'}],  # none
    [{'replace': '/name'}],  # no value
])
def test_a_bad_2_0_patch_is_400_and_changes_nothing(member_client, ops):
    created = create(member_client, 'kept')
    response = patch(member_client, created['id'], ops)
    assert response.status_int == 400, response.text
    assert member_client.get('/image/v2/images/' + created['id']).json['name'] == 'kept'


def test_only_an_admin_changes_the_owner(member_client, admin_client):
    created = create(member_client, 'given')
    new_owner = 'f' * 32
    assert patch(member_client, created['id'],
                 [{'replace': '/owner', 'value': new_owner}]).status_int == 403
    response = patch(admin_client, created['id'], [{'replace': '/owner', 'value': new_owner}])
    assert response.status_int == 200, response.text
    assert admin_client.get('/image/v2/images/' + created['id']).json['owner'] == new_owner
    # No longer the member's project's: private, so not found.
    assert member_client.get('/image/v2/images/' + created['id']).status_int == 404
    made = admin_client.post('/image/v2/images', {'name': 'theirs', 'owner': new_owner})
    assert made.status_int == 201 and made.json['owner'] == new_owner


def test_names_are_any_text_or_none(member_client):
    nameless = member_client.post('/image/v2/images', {'disk_format': 'raw'})
    assert nameless.status_int == 201, nameless.text
    assert nameless.json['name'] is None
    odd = 'Ünïcode name/with ../slashes; and "quotes" <b>' + 'x' * 200
    made = create(member_client, odd)
    assert made['name'] == odd
    assert upload(member_client, made['id'], b'bytes').status_int == 204
    assert member_client.get('/image/v2/images/' + made['id']).json['status'] == 'active'
    listed = member_client.get('/image/v2/images?name=' + json.dumps(odd)[1:-1]
                               .replace('"', '%22').replace(' ', '%20')
                               .replace(';', '%3B').replace('<', '%3C')
                               .replace('>', '%3E').replace('\\u00dc', '%C3%9C')
                               .replace('\\u00ef', '%C3%AF'))
    assert listed.status_int == 200
    renamed = patch(member_client, nameless.json['id'],
                    [{'replace': '/name', 'value': None}])
    assert renamed.status_int == 200 and renamed.json['name'] is None
    assert patch(member_client, made['id'], [{'replace': '/name', 'value': 'a\x00b'}]) \
        .status_int == 400


@pytest.mark.parametrize('container', images.CONTAINER_FORMATS)
def test_every_glance_container_format_is_taken(member_client, container):
    made = create(member_client, 'c', container_format=container, disk_format='vmdk')
    assert (made['container_format'], made['disk_format']) == (container, 'vmdk')


def test_an_image_of_a_format_a_boot_cannot_read_is_kept_not_booted(
        member_client, make_token, deployment):
    made = create(member_client, 'appliance', container_format='ova',
                  disk_format='vmdk')
    assert upload(member_client, made['id'], b'not really an ova').status_int == 204
    assert member_client.get('/image/v2/images/%s/file' % made['id']).body == \
        b'not really an ova'
    with db_api.transaction() as session:
        assert session.get(models.Image, made['id']).disk_path is None
    fixtures.add_network()
    with db_api.transaction() as session:
        session.add(models.Flavor(id='f1', name='tiny', vcpus=1, ram_mib=64,
                                  disk_gib=0))
    member = identity_service.validate(make_token('demo-member'))
    with pytest.raises(exception.Invalid, match='bare container'):
        compute_api.ComputeAPI(member, deployment).create_instance(
            'vm', 'tiny', made['id'], ['net1'])


def test_deactivate_and_reactivate(member_client, admin_client):
    made = create(member_client, 'paused')
    url = '/image/v2/images/%s' % made['id']
    assert member_client.post(url + '/actions/deactivate').status_int == 403  # queued
    assert upload(member_client, made['id'], b'data').status_int == 204
    for _ in range(2):  # the second is a no-op
        response = member_client.post(url + '/actions/deactivate')
        assert response.status_int == 204, response.text
    shown = member_client.get(url).json
    assert shown['status'] == 'deactivated' and shown['size'] == 4
    assert member_client.get(url + '/file').status_int == 403
    assert admin_client.get(url + '/file').body == b'data'
    for _ in range(2):
        assert member_client.post(url + '/actions/reactivate').status_int == 204
    assert member_client.get(url).json['status'] == 'active'
    assert member_client.get(url + '/file').body == b'data'
    assert member_client.post('/image/v2/images/%s/actions/deactivate'
                              % ('0' * 8 + '-0000-4000-8000-' + '0' * 12)).status_int == 404


def test_another_project_cannot_deactivate(member_client, other_client):  # noqa: F811
    made = create(member_client, 'mine', visibility='private')
    upload(member_client, made['id'], b'data')
    response = other_client.post('/image/v2/images/%s/actions/deactivate' % made['id'])
    assert response.status_int == 404


def test_an_empty_image_id_is_404_as_glance(member_client):
    assert member_client.get('/image/v2/images/').status_int == 404
    assert member_client.delete('/image/v2/images/').status_int == 404
    assert member_client.delete('/image/v2/images').status_int == 405
    assert member_client.get('/image/v2/images').status_int == 200


def test_import_info_lists_no_methods(member_client):
    body = member_client.get('/image/v2/info/import').json
    assert body == {'import-methods': {'description': 'Import methods available.',
                                       'type': 'array', 'value': []}}


def _listed(client, query):
    response = client.get('/image/v2/images?' + query)
    assert response.status_int == 200, response.text
    return sorted(i['name'] for i in response.json['images'])


def test_hidden_images_are_listed_only_when_asked_for(member_client):
    hidden = member_client.post('/image/v2/images', {'name': 'hid', 'os_hidden': True})
    assert hidden.status_int == 201 and hidden.json['os_hidden'] is True
    shown = create(member_client, 'seen')
    assert _listed(member_client, 'sort=name') == ['seen']
    assert _listed(member_client, 'os_hidden=true') == ['hid']
    assert member_client.get('/image/v2/images/' + hidden.json['id']).status_int == 200
    assert patch(member_client, shown['id'], [{'replace': '/os_hidden', 'value': True}]) \
        .json['os_hidden'] is True
    assert _listed(member_client, 'os_hidden=true') == ['hid', 'seen']
    assert patch(member_client, shown['id'], [{'replace': '/os_hidden', 'value': 'yes'}]) \
        .status_int == 400
    assert member_client.post('/image/v2/images', {'os_hidden': 'x'}).status_int == 400


def test_size_filters(member_client):
    for name, size in (('small', 10), ('big', 1000)):
        assert upload(member_client, create(member_client, name)['id'],
                      b'x' * size).status_int == 204
    create(member_client, 'empty')  # no data, no size: never matches a size filter
    assert _listed(member_client, 'size_min=10') == ['big', 'small']
    assert _listed(member_client, 'size_min=11') == ['big']
    assert _listed(member_client, 'size_max=999') == ['small']
    assert _listed(member_client, 'size=1000') == ['big']
    assert _listed(member_client, 'size_min=5&size_max=20') == ['small']
    assert member_client.get('/image/v2/images?size_min=big').status_int == 400
