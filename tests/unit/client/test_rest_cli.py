"""The CLI with OS_AUTH_URL: every command through provisioner-api, no database.

provisioner-api (the real WSGI application, all-in-one: SQLite in tmp, flows in
this process's threads, ``test:///`` libvirt) serves on a loopback port from a
cheroot thread; the commands run through ``cli.main`` in the test's own thread,
where any database access fails the test. The server shares this process's
CONF, so these commands keep the loaded configuration; a subprocess with a
configuration that has no [database] checks the real separation.
"""

import json
import os
import subprocess
import sys
import threading

import pytest

from provisioner.catalog import api as catalog_api
from provisioner.client import follow
from provisioner.cmd import cli
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.identity import service as identity
from provisioner import virt

PASSWORD = 'admin-secret'


class _Recorder:
    """WSGI middleware noting each request's method and path."""

    def __init__(self, app):
        self.app = app
        self.requests = []

    def __call__(self, environ, start_response):
        self.requests.append((environ['REQUEST_METHOD'], environ['PATH_INFO']))
        return self.app(environ, start_response)


@pytest.fixture
def api(conf, tmp_path, monkeypatch):
    """provisioner-api all-in-one on a free loopback port; yields its base URL."""
    from cheroot import wsgi as cheroot_wsgi

    from provisioner.api import app
    from provisioner.engine import dispatch
    from tests.unit import fixtures

    node = tmp_path / 'node.xml'
    node.write_text('<node/>')
    conf.set_override('connection_uri', 'test://%s' % node, group='libvirt')
    conf.set_override('virt_type', 'qemu', group='libvirt')
    identity.bootstrap('admin', PASSWORD, 'admin')
    local_dispatcher = dispatch.LocalDispatcher()
    recorder = _Recorder(app.build_app(fixtures.deployment(local_dispatcher)))
    server = cheroot_wsgi.Server(('127.0.0.1', 0), recorder, numthreads=4)
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    monkeypatch.setattr(follow, 'POLL_INTERVAL', 0.05)
    try:
        yield {'url': 'http://127.0.0.1:%d' % server.bind_addr[1], 'recorder': recorder}
    finally:
        server.stop()
        thread.join(10)
        local_dispatcher.stop()


@pytest.fixture
def catalog(api, tmp_path):
    """An image and a network, made in-process (the API's own state)."""
    context = identity.validate(identity.authenticate('admin', PASSWORD, 'admin'))
    catalog = catalog_api.CatalogAPI(context, virt.get_driver())
    kernel = tmp_path / 'vmlinuz'
    kernel.write_bytes(b'kernel')
    catalog.create_image('guest', kernel=str(kernel))
    catalog.create_network('net1', '10.88.0.0/24')
    return catalog


@pytest.fixture
def run(api, capsys, monkeypatch):
    """Run one CLI command against the API; fail on any database access from it."""
    cli_thread = []  # the thread running a command, while it runs
    touched = []
    real_get_engine = db_api.get_engine

    def guarded_get_engine():
        if threading.get_ident() in cli_thread:
            touched.append('database')
            raise AssertionError('the CLI touched the database')
        return real_get_engine()

    monkeypatch.setattr(db_api, 'get_engine', guarded_get_engine)
    # The server reads this process's CONF: the command must not reload it.
    monkeypatch.setattr(cli, '_load_config', lambda args: None)
    monkeypatch.setenv('OS_AUTH_URL', api['url'] + '/identity')
    monkeypatch.setenv('OS_USERNAME', 'admin')
    monkeypatch.setenv('OS_PASSWORD', PASSWORD)
    monkeypatch.setenv('OS_PROJECT_NAME', 'admin')

    def invoke(*args):
        cli_thread.append(threading.get_ident())
        try:
            code = cli.main([str(a) for a in args])
        finally:
            cli_thread.clear()
        out, err = capsys.readouterr()
        assert not touched, err
        return code, out, err

    return invoke


def _json(result):
    code, out, err = result
    assert code == 0, err
    return json.loads(out)


BOOT = ('boot', 'vm1', '--flavor', 'tiny', '--image', 'guest', '--network', 'net1')


@pytest.fixture
def flavor(run):
    assert run('flavor', 'create', 'tiny', '--vcpus', 1, '--ram', 128, '--disk', 1)[0] == 0


def test_boot_waits_printing_each_step_then_list_show_console_delete(run, catalog,
                                                                      flavor, tmp_path):
    user_data = tmp_path / 'user-data'
    user_data.write_bytes(b'#!/bin/sh\necho hello\n')
    code, out, err = run(*BOOT, '--volume-size', 1, '--property', 'role=web',
                         '--user-data', user_data, '--availability-zone', 'nova')
    assert code == 0, err
    assert 'Booting vm1' in out and 'define-domain' in out and ' ok ' in out
    assert 'IP address: 10.88.0.2 (network net1' in out

    rows = _json(run('list', '--format', 'json'))
    assert [(r['name'], r['vm_state']) for r in rows] == [('vm1', 'active')]
    code, out, _ = run('list')
    assert 'vm1' in out and '10.88.0.2' in out
    assert [r['name'] for r in _json(run('list', '--all-projects', '--format',
                                         'json'))] == ['vm1']

    shown = _json(run('show', 'vm1', '--format', 'json'))
    assert shown['addresses'] == [{'network': 'net1', 'ip': '10.88.0.2',
                                   'mac': shown['addresses'][0]['mac']}]
    assert len(shown['volumes']) == 1 and shown['metadata'] == {'role': 'web'}
    assert shown['availability_zone'] == 'nova'
    with db_api.transaction() as session:
        assert session.get(models.Instance, shown['id']).user_data \
            == user_data.read_bytes()
    assert any(e['name'].startswith('define-domain') for e in shown['events'])

    with open(shown['console_log'], 'a') as log:
        log.write('login: hello from the guest\n')
    code, out, _ = run('console', 'vm1')
    assert code == 0 and 'hello from the guest' in out
    assert run('console', 'vm1', '--path')[1].strip() == shown['console_log']

    code, out, err = run('delete', 'vm1')
    assert code == 0, err
    assert 'Instance vm1 (%s) deleted.' % shown['id'] in out
    assert _json(run('list', '--format', 'json')) == []
    code, _, err = run('show', 'vm1')
    assert code == 3 and err == 'Error: Instance vm1 not found.\n'


def test_boot_no_wait_returns_at_once_and_show_follows_it(run, catalog, flavor):
    code, out, err = run(*BOOT, '--no-wait')
    assert code == 0, err
    assert 'started in provisioner-api' in out
    instance_id = out.split('(')[1].split(')')[0]
    for _ in range(200):
        shown = _json(run('show', instance_id, '--format', 'json'))
        if shown['vm_state'] != 'building':
            break
    assert shown['vm_state'] == 'active'


def test_resume_and_rollback_of_a_finished_boot_are_conflicts(run, catalog, flavor):
    assert run(*BOOT)[0] == 0
    instance_id = _json(run('show', 'vm1', '--format', 'json'))['id']
    for action, past in (('resume', 'resumed'), ('rollback', 'rolled back')):
        code, out, err = run(action, 'vm1')
        assert (code, out) == (4, ''), err
        # The action goes to the server by id (as Nova's actions do).
        assert err == ('Error: Instance %s is active: only an interrupted boot can '
                       'be %s.\n' % (instance_id, past))


def test_boot_with_what_does_not_exist_says_so_like_all_in_one(run, catalog, flavor):
    for flag, kind in (('--flavor', 'Flavor'), ('--image', 'Image'),
                       ('--network', 'Network')):
        args = list(BOOT)
        args[args.index(flag) + 1] = 'nope'
        code, _, err = run(*args)
        assert (code, err) == (3, 'Error: %s nope not found.\n' % kind)
    assert _json(run('list', '--format', 'json')) == []


def test_flavor_image_network_commands(run, catalog, flavor):
    flavors = _json(run('flavor', 'list', '--format', 'json'))
    assert [(f['name'], f['vcpus'], f['ram_mib'], f['disk_gib']) for f in flavors] \
        == [('tiny', 1, 128, 1)]
    assert _json(run('flavor', 'show', 'tiny', '--format', 'json'))['id'] \
        == flavors[0]['id']
    code, out, _ = run('flavor', 'list')
    assert out.split()[:2] == ['NAME', 'VCPUS'] and 'tiny' in out

    images = _json(run('image', 'list', '--format', 'json'))
    assert [i['name'] for i in images] == ['guest']
    assert _json(run('image', 'show', images[0]['id'], '--format', 'json'))['name'] \
        == 'guest'
    networks = _json(run('network', 'list', '--format', 'json'))
    assert [(n['name'], n['cidr']) for n in networks] == [('net1', '10.88.0.0/24')]
    assert _json(run('network', 'show', 'net1', '--format', 'json'))['gateway'] \
        == '10.88.0.1'

    code, out, err = run('flavor', 'delete', 'tiny')
    assert (code, out, err) == (0, 'Flavor tiny deleted.\n', '')
    assert _json(run('flavor', 'list', '--format', 'json')) == []
    code, _, err = run('flavor', 'show', 'tiny')
    assert (code, err) == (3, 'Error: Flavor tiny not found.\n')


def test_network_create_and_delete_through_the_network_api(run, tmp_path):
    code, out, err = run('network', 'create', 'n', '--cidr', '10.9.0.0/24',
                         '--dhcp-start', '10.9.0.100', '--format', 'json')
    assert code == 0, err
    made = json.loads(out)
    assert (made['name'], made['cidr'], made['gateway'], made['dhcp_start'],
            made['dhcp_end']) == ('n', '10.9.0.0/24', '10.9.0.1', '10.9.0.100',
                                  '10.9.0.254')
    code, out, err = run('network', 'create', 'bad', '--cidr', '127.0.0.0/24')
    assert code == 2 and 'loopback' in err and err.count('\n') == 1
    assert [n['name'] for n in _json(run('network', 'list', '--format', 'json'))] \
        == ['n']  # the refused one left nothing, not even its network
    # Another network may use an overlapping range (its own bridge and DHCP).
    code, out, err = run('network', 'create', 'lap', '--cidr', '10.9.0.128/25')
    assert code == 0, err
    assert run('network', 'delete', 'lap')[0] == 0
    assert run('network', 'delete', 'n')[0] == 0
    assert _json(run('network', 'list', '--format', 'json')) == []


def test_host_list_enable_disable(run):
    hosts = _json(run('host', 'list', '--format', 'json'))
    assert [h['name'] for h in hosts] == ['unit-host']
    host = _json(run('host', 'disable', 'unit-host', '--reason', 'maintenance',
                     '--format', 'json'))
    assert (host['enabled'], host['disabled_reason']) == (False, 'maintenance')
    assert _json(run('host', 'show', 'unit-host', '--format', 'json'))['enabled'] \
        is False
    assert _json(run('host', 'enable', 'unit-host', '--format', 'json'))['enabled'] \
        is True
    host = _json(run('host', 'set', 'unit-host', '--availability-zone', 'az1',
                     '--cpu-allocation-ratio', 4, '--format', 'json'))
    assert (host['availability_zone'], host['cpu_allocation_ratio']) == ('az1', 4.0)


def test_quota_show_and_set(run):
    rows = _json(run('quota', 'show', '--format', 'json'))
    assert {r['resource'] for r in rows} == {'instances', 'vcpus', 'ram_mib',
                                             'volumes_gib'}
    rows = _json(run('quota', 'set', '--instances', 5, '--ram', 2048,
                     '--format', 'json'))
    limits = {r['resource']: r['limit'] for r in rows}
    assert (limits['instances'], limits['ram_mib']) == (5, 2048)
    rows = _json(run('quota', 'show', '--project', 'admin', '--format', 'json'))
    assert {r['resource']: r['limit'] for r in rows} == limits
    code, _, err = run('quota', 'show', '--project', 'nope')
    assert (code, err) == (3, 'Error: Project nope not found.\n')


def test_server_groups(run, catalog, flavor):
    group = _json(run('server-group', 'create', 'web', '--policy', 'anti-affinity',
                      '--format', 'json'))
    assert (group['name'], group['policy'], group['members']) == ('web',
                                                                   'anti-affinity', [])
    assert group['project_id'] == identity.validate(
        identity.authenticate('admin', PASSWORD, 'admin')).project_id
    assert run(*BOOT, '--server-group', 'web')[0] == 0
    groups = _json(run('server-group', 'list', '--format', 'json'))
    assert [(g['name'], g['members']) for g in groups] == [('web', ['vm1'])]
    shown = _json(run('server-group', 'show', 'web', '--format', 'json'))
    assert (shown['id'], shown['members']) == (group['id'], ['vm1'])
    code, _, err = run('server-group', 'delete', 'web')
    assert code == 4 and 'still has members' in err
    assert run('delete', 'vm1')[0] == 0
    assert run('server-group', 'delete', 'web')[:2] == (0, 'Server group web deleted.\n')
    assert _json(run('server-group', 'list', '--format', 'json')) == []
    code, _, err = run('server-group', 'show', 'web')
    assert (code, err) == (3, 'Error: Server group web not found.\n')


def test_projects_users_and_roles(run, monkeypatch):
    project = _json(run('project', 'create', 'team', '--format', 'json'))
    assert project['name'] == 'team'
    user = _json(run('user', 'create', 'alice', '--password', 'alice-secret',
                     '--format', 'json'))
    assert (user['name'], user['enabled']) == ('alice', True)
    code, out, err = run('role', 'add', '--user', 'alice', '--project', 'team',
                         '--role', 'member')
    assert (code, out) == (0, 'User alice has role member in project team.\n'), err
    code, _, err = run('role', 'add', '--user', 'bob', '--project', 'team',
                       '--role', 'member')
    assert (code, err) == (3, 'Error: User bob not found.\n')
    code, _, err = run('project', 'create', 'team')
    assert code == 4 and err.count('\n') == 1

    monkeypatch.setenv('OS_USERNAME', 'alice')
    monkeypatch.setenv('OS_PASSWORD', 'alice-secret')
    monkeypatch.setenv('OS_PROJECT_NAME', 'team')
    assert _json(run('list', '--format', 'json')) == []
    code, _, err = run('user', 'create', 'mallory', '--password', 'mallory-secret')
    assert code == 6 and err.startswith('Error: ') and err.count('\n') == 1

    monkeypatch.setenv('OS_USERNAME', 'admin')
    monkeypatch.setenv('OS_PASSWORD', PASSWORD)
    monkeypatch.setenv('OS_PROJECT_NAME', 'admin')
    assert run('user', 'set-password', 'alice', '--password', 'alice-new-secret')[0] == 0
    assert run('user', 'disable', 'alice')[0] == 0


def test_the_token_is_cached_and_a_wrong_password_never_reuses_it(
        run, api, monkeypatch, private_token_cache):
    assert run('list')[0] == 0
    assert run('flavor', 'list')[0] == 0
    logins = [r for r in api['recorder'].requests
              if r == ('POST', '/identity/v3/auth/tokens')]
    assert len(logins) == 1
    (entry,) = os.listdir(private_token_cache)
    assert os.stat(private_token_cache / entry).st_mode & 0o777 == 0o600
    assert PASSWORD not in (private_token_cache / entry).read_text()

    monkeypatch.setenv('OS_PASSWORD', 'not-the-password')
    code, out, err = run('list')
    assert (code, out) == (5, '')
    assert err.startswith('Error: ') and err.count('\n') == 1
    assert 'not-the-password' not in err


def test_a_token_instead_of_a_password(run, monkeypatch):
    token = identity.authenticate('admin', PASSWORD, 'admin')
    for name in ('OS_USERNAME', 'OS_PASSWORD', 'OS_PROJECT_NAME'):
        monkeypatch.delenv(name)
    code, out, err = run('--os-token', token, 'quota', 'show', '--format', 'json')
    assert code == 0, err
    assert len(json.loads(out)) == 4
    code, out, err = run('--os-token', 'forged', 'list')
    assert (code, out) == (5, '') and err.count('\n') == 1


def test_an_api_that_does_not_answer_is_one_clear_line(run, monkeypatch):
    monkeypatch.setenv('OS_AUTH_URL', 'http://127.0.0.1:9/identity')
    code, out, err = run('list')
    assert (code, out) == (1, '')
    assert err == ('Error: No provisioner-api answered at '
                   'http://127.0.0.1:9/identity/v3/auth/tokens: connection refused. '
                   'Is it running, and is OS_AUTH_URL (--os-auth-url) right?\n')


def test_missing_credentials_are_named(run, monkeypatch):
    monkeypatch.delenv('OS_PASSWORD')
    code, _, err = run('list')
    assert code == 5 and '--os-password / OS_PASSWORD' in err


def test_a_client_with_no_database_in_its_configuration(api, catalog, tmp_path):
    """A separate process whose configuration has no [database]: all goes over REST."""
    client_state = tmp_path / 'client-state'
    config = tmp_path / 'client.conf'
    config.write_text('[DEFAULT]\nstate_path = %s\n' % client_state)
    env = dict(os.environ, OS_AUTH_URL=api['url'] + '/identity/v3',
               OS_USERNAME='admin', OS_PASSWORD=PASSWORD, OS_PROJECT_NAME='admin',
               XDG_CACHE_HOME=str(tmp_path / 'client-cache'))

    def run(*args):
        done = subprocess.run(
            [sys.executable, '-m', 'provisioner.cmd.cli', '--config-file', str(config)]
            + [str(a) for a in args], env=env, capture_output=True, text=True,
            timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert 'tiny' in run('flavor', 'create', 'tiny', '--vcpus', 1, '--ram', 128)
    assert 'IP address: 10.88.0.2' in run(*BOOT)
    assert json.loads(run('show', 'vm1', '--format', 'json'))['vm_state'] == 'active'
    assert 'deleted' in run('delete', 'vm1')
    assert not client_state.exists()  # no database, no log: nothing of its own


def test_help_does_not_import_the_http_client():
    done = subprocess.run(
        [sys.executable, '-c', 'import sys; from provisioner.cmd import cli; '
                               'cli.build_parser(); '
                               'print("provisioner.client.http" in sys.modules)'],
        capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == 'False', done.stderr
