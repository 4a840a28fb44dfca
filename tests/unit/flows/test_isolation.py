"""Projects cannot see each other; readers cannot change anything.

Every instance action is tried by a member of another project (by id and by name),
who must get exactly what a missing instance gives: "not found".
"""

import pytest

from provisioner.compute import api as compute_api
from provisioner import exception
from provisioner.identity import admin
from provisioner.identity import service as identity
from tests.unit import fixtures
from tests.unit.flows.conftest import boot_request


def _login(admin_context, user, project, role):
    admin.create_user(admin_context, user, 'pw-%s-123' % user)
    admin.add_role(admin_context, user, project, role)
    token = identity.authenticate(user, 'pw-%s-123' % user, project)
    return compute_api.ComputeAPI(identity.validate(token), fixtures.deployment())


@pytest.fixture
def projects(api, admin_context):
    for name in ('proj-a', 'proj-b'):
        admin.create_project(admin_context, name)
    users = {'a_member': _login(admin_context, 'alice', 'proj-a', 'member'),
             'b_member': _login(admin_context, 'bob', 'proj-b', 'member'),
             'b_reader': _login(admin_context, 'rita', 'proj-b', 'reader')}
    instance_id = boot_request(users['b_member'], name='vm-b', volumes=(1,))
    info = users['b_member'].run_boot(instance_id)
    assert info['vm_state'] == 'active' and info['addresses'] and info['volumes']
    users['b_instance'] = info
    return users


ACTIONS = {
    'show': lambda api, ref: api.show(ref),
    'console': lambda api, ref: api.console(ref),
    'delete': lambda api, ref: api.delete(ref),
    'resume': lambda api, ref: api.resume(ref),
    'rollback': lambda api, ref: api.rollback(ref),
}


@pytest.mark.parametrize('by', ['id', 'name'])
@pytest.mark.parametrize('action', sorted(ACTIONS))
def test_member_of_another_project_gets_not_found(projects, action, by):
    instance = projects['b_instance']
    ref = instance[by]
    with pytest.raises(exception.NotFound) as err:
        ACTIONS[action](projects['a_member'], ref)
    assert str(err.value) == 'Instance %s not found.' % ref
    # The same words as for an instance that does not exist at all.
    with pytest.raises(exception.NotFound) as missing:
        ACTIONS[action](projects['a_member'], 'no-such-instance')
    assert str(missing.value) == 'Instance no-such-instance not found.'
    after = projects['b_member'].show(instance['id'])
    assert (after['vm_state'], after['addresses'], after['volumes']) == \
        ('active', instance['addresses'], instance['volumes'])


def test_member_of_another_project_lists_nothing_of_it(projects):
    a_member = projects['a_member']
    assert a_member.list() == []
    with pytest.raises(exception.Forbidden) as err:
        a_member.list(all_projects=True)
    assert 'instance:list:all_projects' in str(err.value)
    # Its ports and volumes are not reachable either: they only appear in the
    # owner's view of the instance.
    ip = projects['b_instance']['addresses'][0]['ip']
    volume = projects['b_instance']['volumes'][0]['id']
    assert ip not in repr(a_member.list()) and volume not in repr(a_member.list())


def test_a_name_resolves_in_ones_own_project_only(projects):
    a_member = projects['a_member']
    own = boot_request(a_member, name='vm-b', volumes=())
    assert a_member.show('vm-b')['id'] == own != projects['b_instance']['id']


@pytest.mark.parametrize('action', ['delete', 'resume', 'rollback'])
def test_reader_cannot_change_its_projects_instances(projects, action):
    instance = projects['b_instance']
    with pytest.raises(exception.Forbidden) as err:
        ACTIONS[action](projects['b_reader'], instance['name'])
    assert 'instance:%s' % action in str(err.value)
    assert projects['b_reader'].show(instance['name'])['vm_state'] == 'active'


def test_reader_cannot_boot_but_can_look(projects):
    reader = projects['b_reader']
    with pytest.raises(exception.Forbidden) as err:
        boot_request(reader, name='vm-r')
    assert 'instance:boot' in str(err.value)
    assert [i['name'] for i in reader.list()] == ['vm-b']


def test_admin_reaches_another_projects_instance_by_id(projects, api):
    instance = projects['b_instance']
    assert api.show(instance['id'])['project_id'] == instance['project_id']
    with pytest.raises(exception.NotFound):
        api.show(instance['name'])  # names resolve in the admin's own project



def test_running_another_projects_boot_is_not_found(projects):
    instance_id = projects['b_instance']['id']
    with pytest.raises(exception.NotFound):
        projects['a_member'].run_boot(instance_id)
