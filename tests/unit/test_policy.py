"""Policy: documented defaults for every action, overridable in policy.yaml."""

import pathlib

from oslo_policy import generator
import pytest

from provisioner.catalog import api as catalog_api
from provisioner import exception
from provisioner.identity import admin
from provisioner.identity import service as identity
from provisioner import policies
from provisioner import policy

SAMPLE = pathlib.Path(__file__).resolve().parents[2] / 'etc' / 'provisioner' / \
    'policy.yaml.sample'

# Every action the issue names, including those other commands will enforce.
ACTIONS = ['instance:boot', 'instance:show', 'instance:list', 'instance:delete',
           'instance:resume', 'instance:rollback', 'instance:console',
           'instance:list:all_projects', 'flavor:create', 'image:create',
           'network:create', 'network:delete', 'host:update', 'quota:set', 'quota:show',
           'server_group:create', 'identity:user_create', 'identity:role_add']


def test_every_action_has_a_documented_default():
    rules = {rule.name: rule for rule in policies.list_rules()}
    for action in ACTIONS:
        assert action in rules, action
        assert rules[action].description and rules[action].operations


def test_the_sample_file_is_current():
    expected = ''.join(generator._sort_and_format_by_section(
        {'provisioner': policies.list_rules()}))
    assert SAMPLE.read_text() == expected, 'run "tox -e genpolicy"'


def _context(admin_context, user, role, project='admin'):
    admin.create_user(admin_context, user, 'pw-%s-123' % user)
    admin.add_role(admin_context, user, project, role)
    return identity.validate(identity.authenticate(user, 'pw-%s-123' % user, project))


@pytest.mark.parametrize('role,allowed', [
    ('admin', {'instance:boot', 'instance:show', 'instance:delete', 'flavor:create',
               'host:update', 'quota:set', 'identity:user_create'}),
    ('member', {'instance:boot', 'instance:show', 'instance:delete', 'flavor:list',
                'server_group:create', 'quota:show'}),
    ('reader', {'instance:show', 'instance:list', 'flavor:list', 'quota:show'}),
])
def test_defaults_per_role(admin_context, role, allowed):
    context = admin_context if role == 'admin' else _context(admin_context, 'u1', role)
    for action in allowed:
        assert policy.check(context, action), (role, action)
    refused = {'flavor:create', 'host:update', 'quota:set', 'identity:user_create',
               'instance:list:all_projects'}
    if role == 'reader':
        refused |= {'instance:boot', 'instance:delete', 'instance:resume',
                    'server_group:create'}
    for action in refused if role != 'admin' else ():
        assert not policy.check(context, action), (role, action)


def test_member_rules_are_bound_to_the_targets_project(admin_context):
    member = _context(admin_context, 'u1', 'member')
    assert policy.check(member, 'instance:delete', {'project_id': member.project_id})
    assert not policy.check(member, 'instance:delete', {'project_id': 'another'})


def test_policy_yaml_overrides_a_default(admin_context, conf, tmp_path):
    member = _context(admin_context, 'u1', 'member')
    policy_file = tmp_path / 'policy.yaml'
    policy_file.write_text('"instance:boot": "rule:admin"\n'
                           '"flavor:create": "rule:admin_or_member"\n')
    conf.set_override('policy_file', str(policy_file), group='oslo_policy')
    policy.reset()
    with pytest.raises(exception.Forbidden) as err:
        policy.authorize(member, 'instance:boot')
    assert 'instance:boot' in str(err.value)
    flavor = catalog_api.CatalogAPI(member, None).create_flavor('f1', 1, 128, 0)
    assert flavor['name'] == 'f1'


def test_catalog_writes_need_admin(admin_context):
    member = catalog_api.CatalogAPI(_context(admin_context, 'u1', 'member'), None)
    for call in (lambda: member.create_flavor('f1', 1, 128, 0),
                 lambda: member.create_image('i1', file='/nonexistent'),
                 lambda: member.create_network('n1', '10.1.0.0/24'),
                 lambda: member.update_host('h1', enabled=False)):
        with pytest.raises(exception.Forbidden):
            call()
    assert member.list('flavor') == []


def test_an_unregistered_action_is_an_error_not_an_allow(admin_context):
    with pytest.raises(Exception) as err:
        policy.check(admin_context, 'instance:teleport')
    assert 'instance:teleport' in str(err.value)


def test_placement_actions_are_enforced_where_they_happen(admin_context):
    from provisioner.cmd import scheduling
    from provisioner.compute import server_groups
    reader = _context(admin_context, 'u1', 'reader')
    with pytest.raises(exception.Forbidden) as err:
        server_groups.create(reader, 'g1', 'affinity')
    assert 'server_group:create' in str(err.value)
    assert server_groups.list_all(reader) == []
    member = _context(admin_context, 'u2', 'member')
    assert scheduling._project_id(member, None, 'quota:show') == member.project_id
    with pytest.raises(exception.Forbidden):
        scheduling._project_id(member, None, 'quota:set')
    admin.create_project(admin_context, 'other')
    # Another project's quota reads like a project that does not exist.
    for action in ('quota:show', 'quota:set'):
        with pytest.raises(exception.NotFound):
            scheduling._project_id(member, 'other', action)
    other_id = scheduling._project_id(admin_context, 'other', 'quota:set')
    assert other_id != admin_context.project_id
