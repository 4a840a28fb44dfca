"""Cinder's volume types as tempest and the clients use them: admins create,
update and delete them, with extra specs, access lists for private types and an
encryption spec; users see the types they may use and make volumes of them; a
retype needing no migration changes the type a volume shows."""

import pytest

from tests.unit.api import cinder


@pytest.fixture
def admin(admin_client):
    return admin_client, cinder.base(admin_client)


@pytest.fixture
def demo(member_client):
    return member_client, cinder.base(member_client)


def _create_type(client, base, **fields):
    fields.setdefault('name', 'gold')
    response = client.post(base + '/types', {'volume_type': fields})
    assert response.status_int == 200, response.text
    return response.json['volume_type']


def test_type_crud_as_cinder_answers_it(admin):
    client, base = admin
    made = _create_type(client, base, description='fast', extra_specs={'a': 1},
                        **{'os-volume-type-access:is_public': True})
    assert (made['name'], made['description'], made['is_public'],
            made['os-volume-type-access:is_public'], made['extra_specs']) == \
        ('gold', 'fast', True, True, {'a': '1'})
    assert client.get('%s/types/%s' % (base, made['id'])).json['volume_type'] == made
    assert client.get('%s/types/gold' % base).json['volume_type']['id'] == made['id']
    updated = client.put('%s/types/%s' % (base, made['id']),
                         {'volume_type': {'name': 'silver'}}).json['volume_type']
    assert updated['name'] == 'silver'
    assert 'os-volume-type-access:is_public' not in updated  # Cinder's update answer
    assert [t['name'] for t in client.get(base + '/types').json['volume_types']] == \
        ['silver']
    assert client.delete('%s/types/%s' % (base, made['id'])).status_int == 202
    assert client.get('%s/types/%s' % (base, made['id'])).status_int == 404
    assert client.get(base + '/types/default').status_int == 404


@pytest.mark.parametrize('fields, status', [
    ({'name': ''}, 400), ({'name': '   '}, 400), ({'description': 'x'}, 400),
    ({'name': 'gold', 'extra_specs': ['x']}, 400), ({'name': 'gold'}, 409)])
def test_bad_types_are_refused(admin, fields, status):
    client, base = admin
    _create_type(client, base)
    response = client.post(base + '/types', {'volume_type': fields})
    assert response.status_int == status, response.text


def test_only_admins_manage_types(admin, demo):
    made = _create_type(*admin)
    client, base = demo
    assert client.post(base + '/types', {'volume_type': {'name': 'x'}}).status_int \
        == 403
    assert client.delete('%s/types/%s' % (base, made['id'])).status_int == 403
    shown = client.get('%s/types/%s' % (base, made['id'])).json['volume_type']
    assert shown['extra_specs'] == {}


def test_extra_specs(admin):
    client, base = admin
    specs = '%s/types/%s/extra_specs' % (base, _create_type(client, base)['id'])
    assert client.post(specs, {'extra_specs': {'k1': 'v1', 'k2': 'v2'}}).json == \
        {'extra_specs': {'k1': 'v1', 'k2': 'v2'}}
    assert client.put(specs + '/k1', {'k1': 'new'}).json == {'k1': 'new'}
    assert client.get(specs + '/k1').json == {'k1': 'new'}
    assert client.put(specs + '/k1', {'k2': 'x'}).status_int == 400
    assert client.put(specs + '/k1', {'k1': 'x', 'k2': 'y'}).status_int == 400
    assert client.put(specs + '/k1', {}).status_int == 400
    assert client.post(specs, {'extra_specs': None}).status_int == 400
    assert client.delete(specs + '/k2').status_int == 202
    assert client.delete(specs + '/k2').status_int == 404
    assert client.get(specs + '/k2').status_int == 404
    assert client.get(specs).json == {'extra_specs': {'k1': 'new'}}
    assert client.get('%s/types/nope/extra_specs' % base).status_int == 404
    assert client.post('%s/types/nope/extra_specs' % base,
                       {'extra_specs': {'a': 'b'}}).status_int == 404


def test_private_types_for_the_projects_of_their_access_list(admin, demo):
    client, base = admin
    private = _create_type(client, base, **{'os-volume-type-access:is_public': False})
    user, user_base = demo
    volume = {'volume': {'size': 1, 'volume_type': private['id']}}
    assert user.post(user_base + '/volumes', volume).status_int == 404
    assert user.get(user_base + '/types').json['volume_types'] == []
    action = '%s/types/%s/action' % (base, private['id'])
    project = user_base.rsplit('/', 1)[1]
    assert client.post(action, {'addProjectAccess': {'project': project}}) \
        .status_int == 202
    assert client.post(action, {'addProjectAccess': {'project': project}}) \
        .status_int == 409
    assert client.get('%s/types/%s/os-volume-type-access' % (base, private['id'])) \
        .json == {'volume_type_access': [{'volume_type_id': private['id'],
                                          'project_id': project}]}
    made = user.post(user_base + '/volumes', volume)
    assert made.status_int == 202 and made.json['volume']['volume_type'] == 'gold'
    assert client.post(action, {'removeProjectAccess': {'project': project}}) \
        .status_int == 202
    assert user.get('%s/types/%s' % (user_base, private['id'])).status_int == 404


def test_retype_without_migration(admin, demo):
    client, base = admin
    gold, silver = (_create_type(client, base, name=name)['id']
                    for name in ('gold', 'silver'))
    user, user_base = demo
    volume = user.post(user_base + '/volumes', {
        'volume': {'size': 1, 'volume_type': gold}}).json['volume']
    path = '%s/volumes/%s' % (user_base, volume['id'])
    retype = user.post(path + '/action', {'os-retype': {
        'new_type': silver, 'migration_policy': 'never'}})
    assert retype.status_int == 202, retype.text
    assert user.get(path).json['volume']['volume_type'] == 'silver'
    assert user.post(path + '/action', {'os-retype': {'new_type': silver}}) \
        .status_int == 400
    assert client.delete('%s/types/%s' % (base, silver)).status_int == 400
    shown = client.get('%s/volumes/%s' % (base, volume['id'])).json['volume']
    assert (shown['migration_status'], shown['os-vol-mig-status-attr:migstat']) == \
        (None, None)


def test_encryption_spec(admin, demo):
    client, base = admin
    type_id = _create_type(client, base)['id']
    path = '%s/types/%s/encryption' % (base, type_id)
    assert client.get(path).json == {}
    spec = {'provider': 'LuksEncryptor', 'key_size': 256, 'cipher': 'aes-xts-plain64',
            'control_location': 'front-end'}
    made = client.post(path, {'encryption': spec}).json['encryption']
    assert {key: made[key] for key in spec} == spec
    assert client.post(path, {'encryption': spec}).status_int == 409
    changed = dict(spec, key_size=128, control_location='back-end')
    assert client.put('%s/%s' % (path, made['encryption_id']),
                      {'encryption': changed}).status_int == 200
    assert client.get(path).json['key_size'] == 128
    assert client.get(path + '/cipher').json == {'cipher': 'aes-xts-plain64'}
    user, user_base = demo
    # provisioner does not encrypt volumes: a volume of such a type is refused.
    refused = user.post(user_base + '/volumes', {
        'volume': {'size': 1, 'volume_type': type_id}})
    assert refused.status_int == 400 and 'encrypt' in refused.text
    assert client.delete('%s/%s' % (path, made['encryption_id'])).status_int == 202
    assert client.get(path).json == {}
