"""The CLI's token cache: one authentication for many commands, never a wrong reuse."""

import json
import os
import stat

from provisioner.identity import service as identity
from tests.unit import test_cli

run = test_cli.run  # the CLI fixture, shared


def _count_authentications(monkeypatch):
    calls = []
    original = identity.authenticate

    def counting(*args):
        calls.append(args[0])
        return original(*args)

    monkeypatch.setattr(identity, 'authenticate', counting)
    return calls


def test_second_command_reuses_the_token_from_an_owner_only_file(
        run, monkeypatch, private_token_cache):  # noqa: F811
    calls = _count_authentications(monkeypatch)
    assert run('list')[0] == 0
    assert run('flavor', 'list')[0] == 0
    assert calls == ['admin']
    [entry] = os.listdir(private_token_cache)
    assert stat.S_IMODE(os.stat(private_token_cache).st_mode) == 0o700
    path = private_token_cache / entry
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_wrong_password_never_reuses_a_cached_token(run, monkeypatch):  # noqa: F811
    assert run('list')[0] == 0
    monkeypatch.setenv('OS_PASSWORD', 'not-the-password')
    code, _, err = run('list')
    assert code == 5 and 'wrong user name, password or project' in err


def test_other_user_or_project_gets_its_own_token(run, monkeypatch, private_token_cache):  # noqa: F811,E501
    assert run('project', 'create', 'p2')[0] == 0
    assert run('role', 'add', '--user', 'admin', '--project', 'p2',
               '--role', 'reader')[0] == 0
    monkeypatch.setenv('OS_PROJECT_NAME', 'p2')
    calls = _count_authentications(monkeypatch)
    assert run('list')[0] == 0
    assert calls == ['admin'] and len(os.listdir(private_token_cache)) == 2


def test_expiring_or_revoked_token_is_replaced(run, monkeypatch, private_token_cache):  # noqa: F811
    assert run('list')[0] == 0
    [entry] = os.listdir(private_token_cache)
    path = private_token_cache / entry
    cached = json.loads(path.read_text())
    path.write_text(json.dumps(dict(cached, expires_at=cached['expires_at'] - 3590)))
    calls = _count_authentications(monkeypatch)
    assert run('list')[0] == 0 and calls == ['admin']
    # A password change revokes the cached token; the new password gets a new one.
    assert run('user', 'set-password', 'admin', '--password', 'new-password-1')[0] == 0
    monkeypatch.setenv('OS_PASSWORD', 'new-password-1')
    assert run('list')[0] == 0 and calls == ['admin', 'admin']
