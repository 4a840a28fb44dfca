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
from tests import cli_probe

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
    from provisioner.compute import quotas
    from provisioner.compute import server_groups
    assert cli.SERVER_GROUP_POLICIES == server_groups.POLICIES
    assert scheduling.QUOTA_RESOURCES == quotas.RESOURCES
    args = cli.build_parser().parse_args(['quota', 'set'])
    for resource in quotas.RESOURCES:
        assert getattr(args, resource) is None
