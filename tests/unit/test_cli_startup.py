"""The CLI's start-up imports only what a command needs (issue 12 item 1).

Timing-free, so stable in CI: each check runs the CLI in a fresh interpreter and
looks at ``sys.modules`` afterwards. The timings are tests/bench/startup.py's.
"""

import argparse
import importlib
import os
import socket

import pytest

from provisioner.cmd import cli
from provisioner.cmd import subcommands
from tests import cli_probe
from tests.unit.test_cli import run  # noqa: F401 - fixture

HEAVY = ('taskflow', 'sqlalchemy', 'oslo_messaging', 'oslo_policy', 'libvirt', 'webob',
         'cheroot')




def _probe(tmp_path, argv, **env):
    environ = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    environ.update(env, XDG_CACHE_HOME=str(tmp_path / 'cache'))
    result = cli_probe.probe(argv, environ)
    result['heavy'] = cli_probe.heavy(result['modules'], HEAVY)
    return result


@pytest.mark.parametrize('argv', [['--version'], ['--help'], ['list', '--help'],
                                  ['quota', 'set', '--help']])
def test_help_and_version_import_nothing_heavy(tmp_path, argv):
    result = _probe(tmp_path, argv)
    assert result['code'] == 0, result['output']
    assert 'provisioner' in result['output']
    assert result['heavy'] == []
    # Not even the commands or the configuration: the parser names them only.
    assert 'provisioner.cmd.commands' not in result['modules']
    assert 'oslo_config' not in result['modules']


def test_a_command_through_the_rest_api_imports_no_database_nor_engine(tmp_path):
    with socket.socket() as sock:  # a port nothing listens on: the command fails fast
        sock.bind(('127.0.0.1', 0))
        port = sock.getsockname()[1]
    result = _probe(tmp_path, ['list'], OS_AUTH_URL='http://127.0.0.1:%d/identity/v3'
                    % port, OS_USERNAME='u', OS_PASSWORD='a-password',
                    OS_PROJECT_NAME='p')
    assert result['code'] != 0
    assert 'No provisioner-api answered' in result['output']
    assert result['heavy'] == []


def _commands(parser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _commands(sub)
    func = parser.get_default('func')
    if func is not None:
        yield parser.prog, func


def test_every_command_the_parser_names_exists():
    commands = list(_commands(cli.build_parser()))
    assert len(commands) > 30
    for prog, func in commands:
        target = getattr(importlib.import_module(func.module), func.name, None)
        assert callable(target), '%s: %r' % (prog, func)


def test_the_parser_copies_of_library_constants_are_current():
    from provisioner.cmd import scheduling
    from provisioner.quota import counters
    from provisioner.compute import server_groups
    assert subcommands.SERVER_GROUP_POLICIES == server_groups.POLICIES
    assert scheduling.QUOTA_RESOURCES == counters.RESOURCES
    args = cli.build_parser().parse_args(['quota', 'set'])
    for resource in counters.RESOURCES:
        assert getattr(args, resource) is None


# -- the all-in-one list's quick path (provisioner.cmd.quick_list) -----------------

@pytest.fixture
def quick_answers(monkeypatch):
    """What each quick list returned (None: it left the command to the full path)."""
    from provisioner.cmd import quick_list
    answers = []
    real = quick_list.list_instances

    def spy(args):
        answers.append(real(args))
        return answers[-1]

    monkeypatch.setattr(quick_list, 'list_instances', spy)
    return answers


def _boot_two(run, tmp_path):  # noqa: F811
    kernel = tmp_path / 'vmlinuz'
    kernel.write_bytes(b'kernel')
    for args in (('flavor', 'create', 'tiny', '--vcpus', 1, '--ram', 128, '--disk', 1),
                 ('image', 'create', 'guest', '--kernel', kernel),
                 ('network', 'create', 'net1', '--cidr', '10.88.0.0/24'),
                 ('network', 'create', 'net2', '--cidr', '10.89.0.0/24'),
                 ('boot', 'vm1', '--flavor', 'tiny', '--image', 'guest', '--network',
                  'net1', '--network', 'net2'),
                 ('boot', 'vm2', '--flavor', 'tiny', '--image', 'guest', '--network',
                  'net1', '--no-wait')):
        code, _, err = run(*args)
        assert code == 0, err


def _full_path_list(run, monkeypatch, *args):  # noqa: F811
    from provisioner.cmd import quick_list
    with monkeypatch.context() as patch:
        patch.setattr(quick_list, 'list_instances', lambda args: None)
        return run('list', *args)


@pytest.mark.parametrize('args', [[], ['--all-projects']])
def test_the_quick_list_prints_what_the_full_path_prints(
        run, tmp_path, monkeypatch, quick_answers, args):  # noqa: F811
    _boot_two(run, tmp_path)
    full = _full_path_list(run, monkeypatch, *args)  # also caches the token
    quick = run('list', *args)
    assert quick_answers == [0]
    assert quick == full
    assert full[0] == 0 and 'vm1' in full[1] and 'vm2' in full[1]
    assert '10.88.0.2, 10.89.0.2' in full[1]


def test_the_quick_list_leaves_what_it_does_not_serve_to_the_full_path(
        run, tmp_path, monkeypatch, quick_answers):  # noqa: F811
    code, out, err = run('list')  # no cached token yet: the full path logs in
    assert (code, quick_answers) == (0, [None]), err
    assert run('list')[0] == 0 and quick_answers[-1] == 0
    assert run('list', '--format', 'json')[1] == '[]\n'
    assert quick_answers[-1] is None
    monkeypatch.setenv('OS_PASSWORD', 'wrong')  # the cached token is not reused
    code, _, err = run('list')
    assert (code, quick_answers[-1]) == (5, None)
    assert 'Authentication failed' in err
    monkeypatch.setenv('OS_PASSWORD', 'pw')
    # A distributed deployment's configuration (a transport_url): its REST API
    # answers, never this database, and the quick path is not even tried.
    monkeypatch.setenv('OS_DEFAULT__TRANSPORT_URL', 'fake://')
    tried = len(quick_answers)
    code, _, err = run('list')
    assert (code, len(quick_answers)) == (2, tried)
    assert 'through provisioner-api' in err and 'OS_AUTH_URL' in err


def test_the_quick_list_refuses_as_the_full_path_does(run, monkeypatch,  # noqa: F811
                                                      quick_answers):
    assert run('user', 'create', 'looker', '--password', 'looker-pw')[0] == 0
    assert run('role', 'add', '--user', 'looker', '--project', 'admin',
                   '--role', 'reader')[0] == 0
    monkeypatch.setenv('OS_USERNAME', 'looker')
    monkeypatch.setenv('OS_PASSWORD', 'looker-pw')
    assert run('list')[0] == 0  # caches the reader's token
    assert run('list')[0] == 0 and quick_answers[-1] == 0
    code, _, err = run('list', '--all-projects')
    assert (code, quick_answers[-1]) == (6, None)
    assert 'instance:list:all_projects' in err


def test_a_policy_file_is_obeyed_by_the_quick_list(run, quick_answers):  # noqa: F811
    assert run('list')[0] == 0
    policy_file = run.config.parent / 'policy.yaml'  # found next to the config
    policy_file.write_text('"instance:list": "!"\n')
    code, _, err = run('list')
    assert (code, quick_answers[-1]) == (6, None)
    assert 'does not allow instance:list' in err


def test_the_default_roles_of_the_quick_list_are_the_policy_defaults(conf):
    import itertools
    from provisioner.cmd import quick_list
    from provisioner import policy
    from provisioner import schemas
    for count in range(len(schemas.ROLES) + 1):
        for roles in itertools.combinations(schemas.ROLES, count):
            caller = quick_list.Caller('u', 'user', 'p', 'project', roles)
            for action, allowed in quick_list.DEFAULT_ALLOWED_ROLES.items():
                assert bool(allowed & set(roles)) == policy.check(caller, action), \
                    (action, roles)


def test_the_all_in_one_list_imports_no_database_library_nor_engine(
        run, tmp_path):  # noqa: F811
    assert run('list')[0] == 0  # caches the token the next process finds
    environ = {k: v for k, v in os.environ.items() if not k.startswith('OS_')}
    environ.update(OS_USERNAME='admin', OS_PASSWORD='pw', OS_PROJECT_NAME='admin',
                   XDG_CACHE_HOME=str(tmp_path / 'cache'))
    result = cli_probe.probe(['--config-file', str(run.config), 'list'], environ)
    assert result['code'] == 0, result['output']
    assert 'ID  NAME' in result['output']
    assert cli_probe.heavy(result['modules'], HEAVY + ('oslo_policy', 'alembic')) == []


def test_the_quick_list_refuses_a_revoked_token(admin_context):
    """quick_list's caller check is identity.service.validate's, revocations too."""
    from provisioner.cmd import quick_list
    from provisioner.identity import service as identity
    token = identity.authenticate('admin', 'admin-secret', 'admin')
    with quick_list._read_only(quick_list._database_path()) as conn:
        assert quick_list._caller(conn, token).user_id == admin_context.user_id
    identity.revoke(token)
    with quick_list._read_only(quick_list._database_path()) as conn:
        assert quick_list._caller(conn, token) is None
