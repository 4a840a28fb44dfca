"""The CLI contract: exit codes, one-line errors, JSON output, nothing made on bad input."""

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from provisioner.cmd import cli
from provisioner.db import api as db_api
from provisioner.db import models
from tests.deployment import REPO


@pytest.fixture
def run(tmp_path, conf, monkeypatch, capsys):
    node = tmp_path / 'node.xml'
    node.write_text('<node/>')
    config = tmp_path / 'provisioner.conf'
    config.write_text('[DEFAULT]\nstate_path = %s\nhost = cli-host\n[libvirt]\n'
                      'connection_uri = test://%s\nvirt_type = qemu\n'
                      % (conf.state_path, node))
    monkeypatch.setenv('OS_USERNAME', 'admin')
    monkeypatch.setenv('OS_PASSWORD', 'pw')
    monkeypatch.setenv('OS_PROJECT_NAME', 'admin')

    def invoke(*args):
        code = cli.main(['--config-file', str(config)] + [str(a) for a in args])
        out, err = capsys.readouterr()
        return code, out, err

    invoke.config = config
    assert invoke('bootstrap', '--username', 'admin', '--password', 'pw',
                  '--project', 'admin')[0] == 0
    return invoke


@pytest.fixture
def catalog(run, tmp_path):
    kernel = tmp_path / 'vmlinuz'
    kernel.write_bytes(b'kernel')
    assert run('flavor', 'create', 'tiny', '--vcpus', 1, '--ram', 128, '--disk', 1)[0] == 0
    assert run('image', 'create', 'guest', '--kernel', kernel)[0] == 0
    assert run('network', 'create', 'net1', '--cidr', '10.88.0.0/24')[0] == 0
    return {'kernel': kernel}


def _instance_count():
    with db_api.transaction() as session:
        return session.query(models.Instance).count()


def test_help_teaches_the_commands(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(['--help'])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for word in ('boot', 'resume', 'rollback', 'OS_USERNAME', 'quick start'):
        assert word in out


def test_boot_prints_the_steps_the_ip_and_the_console_log(run, catalog):
    code, out, err = run('boot', 'vm1', '--flavor', 'tiny', '--image', 'guest',
                         '--network', 'net1', '--volume-size', 1)
    assert code == 0, err
    assert 'define-domain' in out and 'ok' in out
    assert 'IP address: 10.88.0.2 (network net1' in out
    assert 'console.log' in out
    code, out, _ = run('show', 'vm1', '--format', 'json')
    shown = json.loads(out)
    for key in ('id', 'name', 'vm_state', 'task_state', 'power_state', 'host',
                'addresses', 'volumes', 'fault'):
        assert key in shown
    assert shown['addresses'] == [{'network': 'net1', 'ip': '10.88.0.2',
                                   'mac': shown['addresses'][0]['mac']}]
    code, out, _ = run('list', '--format', 'json')
    assert [i['name'] for i in json.loads(out)] == ['vm1']


@pytest.mark.parametrize('args,code,message', [
    (['--flavor', 'nope'], 3, 'Error: Flavor nope not found.'),
    (['--image', 'nope'], 3, 'Error: Image nope not found.'),
    (['--network', 'nope'], 3, 'Error: Network nope not found.'),
    (['--name', ''], 2, 'instance name must not be empty'),
    (['--name', 'x' * 64], 2, 'the limit is 63'),
    (['--name', ' vm1'], 2, 'must not start or end with white space'),
    (['--volume-size', '-1'], 2, 'at least 1'),
])
def test_bad_boot_requests_fail_cleanly_and_create_nothing(run, catalog, args, code,
                                                           message):
    request = {'--name': 'vm1', '--flavor': 'tiny', '--image': 'guest',
               '--network': 'net1'}
    request.update(dict(zip(args[::2], args[1::2])))
    argv = ['boot', request.pop('--name')]
    for flag, value in request.items():
        argv += [flag, value]
    result, out, err = run(*argv)
    assert result == code
    assert message in err and len(err.strip().splitlines()) == 1
    assert _instance_count() == 0


def test_oversized_user_data_is_refused(run, catalog, tmp_path):
    big = tmp_path / 'big'
    big.write_bytes(b'x' * (64 * 1024 + 1))
    code, _, err = run('boot', 'vm1', '--flavor', 'tiny', '--image', 'guest',
                       '--network', 'net1', '--user-data', big)
    assert code == 2 and 'the limit is 65536' in err
    assert _instance_count() == 0


def test_image_changed_after_registration_fails_in_fetch_and_rolls_back(run, catalog):
    catalog['kernel'].write_bytes(b'tampered kernel')
    code, out, err = run('boot', 'vm1', '--flavor', 'tiny', '--image', 'guest',
                         '--network', 'net1', '--volume-size', 1)
    assert code == 1
    assert 'failed and was rolled back' in err and 'fetch-image' in err
    shown = json.loads(run('show', 'vm1', '--format', 'json')[1])
    assert shown['vm_state'] == 'error' and 'sha256' in shown['fault']
    assert shown['addresses'] == [] and shown['volumes'] == []


def test_a_failed_cleanup_reaches_the_fault_and_the_log_not_a_traceback(
        run, catalog, monkeypatch, conf):
    from provisioner import exception
    from provisioner.virt import driver

    def pool_gone(self, vol_id):
        raise exception.HypervisorError(reason='deleting volume %s failed: pool gone'
                                               % vol_id)

    monkeypatch.setattr(driver.LibvirtDriver, 'delete_volume', pool_gone)
    monkeypatch.setenv('OS_FAULT_INJECTION__FAIL_AFTER_STEP', 'create-volumes')
    code, out, err = run('boot', 'vm1', '--flavor', 'tiny', '--image', 'guest',
                         '--network', 'net1', '--volume-size', 1)
    assert code == 1 and 'Traceback' not in err and 'Traceback' not in out
    assert err.strip().startswith('Error: Boot of vm1 failed and was rolled back: '
                                  'create-volumes: Injected fault at step '
                                  'create-volumes; cleanup failed: create-volumes: '
                                  'delete volume ')
    assert len(err.strip().splitlines()) == 1 and 'failed: pool gone' in err
    assert 'create-volumes (revert)' in out and 'pool gone' in out
    shown = json.loads(run('show', 'vm1', '--format', 'json')[1])
    assert 'cleanup failed: create-volumes: delete volume' in shown['fault']
    with open(os.path.join(conf.state_path, 'logs', 'provisioner.log')) as log:
        text = log.read()
    assert 'Cleanup failed: delete volume' in text and 'Traceback' in text


@pytest.mark.parametrize('env,code,message', [
    ({'OS_PASSWORD': 'wrong'}, 5, 'wrong user name, password or project'),
    ({'OS_USERNAME': None}, 5, 'missing credentials: --os-username / OS_USERNAME'),
])
def test_authentication_errors(run, monkeypatch, env, code, message):
    for key, value in env.items():
        if value is None:
            monkeypatch.delenv(key)
        else:
            monkeypatch.setenv(key, value)
    result, _, err = run('list')
    assert result == code and message in err


def test_unreachable_libvirtd_is_a_clear_error_and_creates_nothing(run, catalog, conf,
                                                                  tmp_path):
    config = tmp_path / 'down.conf'
    config.write_text('[DEFAULT]\nstate_path = %s\n[libvirt]\nconnection_uri = '
                      'qemu+unix:///system?socket=%s\n'
                      % (conf.state_path, tmp_path / 'no-such-socket'))
    code = cli.main(['--config-file', str(config), 'boot', 'vm1', '--flavor', 'tiny',
                     '--image', 'guest', '--network', 'net1'])
    assert code != 0
    assert _instance_count() == 0


def test_missing_config_file_is_a_clear_error(capsys, tmp_path):
    code = cli.main(['--config-file', str(tmp_path / 'missing.conf'), 'list'])
    assert code == 2
    assert 'missing.conf' in capsys.readouterr().err


def test_state_files_are_private(run, conf):
    mode = os.stat(os.path.join(conf.state_path, 'provisioner.sqlite')).st_mode & 0o777
    assert mode == 0o600


def test_no_secret_reaches_the_logs_or_the_flow_store(run, catalog, conf, tmp_path,
                                                      monkeypatch):
    from provisioner.identity import service as identity
    password, user_data = 'pw-Secret-4711', 'user-data-Secret-0815'
    assert run('bootstrap', '--username', 'admin', '--password', password,
               '--project', 'admin')[0] == 0
    monkeypatch.setenv('OS_PASSWORD', password)
    tokens = []
    original = identity.authenticate
    monkeypatch.setattr(identity, 'authenticate',
                        lambda *a: tokens.append(original(*a)) or tokens[-1])
    data = tmp_path / 'user-data'
    data.write_text(user_data)
    code, _, err = run('boot', 'vm1', '--flavor', 'tiny', '--image', 'guest',
                       '--network', 'net1', '--user-data', data, '--debug')
    assert code == 0, err
    assert tokens
    secrets = [password, user_data] + tokens
    log = open(os.path.join(conf.state_path, 'logs', 'provisioner.log')).read()
    assert 'define-domain' in log  # the log does describe the boot
    with db_api.get_engine().connect() as conn:
        import sqlalchemy as sa
        for table in sa.inspect(conn).get_table_names():
            rows = conn.execute(sa.text('SELECT * FROM %s' % table)).mappings().all()
            for row in rows:
                for column, value in row.items():
                    if (table, column) == ('instances', 'user_data'):
                        continue  # where user data lives, as in nova
                    text = value.decode(errors='replace') if isinstance(
                        value, bytes) else str(value)
                    for secret in secrets:
                        assert secret not in text, (table, column)
    for secret in secrets:
        assert secret not in log and secret not in err


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(['--version'])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith('provisioner ')


def _cli_process(*args, code='', **kwargs):
    script = ('import sys\nfrom provisioner.cmd import cli\n'
              'try:\n    status = cli.main(%r)\nexcept SystemExit as exc:\n'
              '    status = exc.code\n%s\nsys.exit(status)\n' % (list(args), code))
    kwargs.setdefault('stdout', subprocess.PIPE)
    return subprocess.run([sys.executable, '-c', script], stderr=subprocess.PIPE,
                          text=True, timeout=60, cwd=REPO, **kwargs)


def test_output_piped_into_a_reader_that_left_ends_quietly(run, catalog):
    """`provisioner flavor list | head -1`: no traceback, and the shell's 141."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone before the first line is written
    try:
        result = _cli_process('--config-file', str(run.config), 'flavor', 'list',
                              stdout=write_end)
    finally:
        os.close(write_end)
    assert (result.returncode, result.stderr) == (128 + signal.SIGPIPE, '')


def test_a_socket_reset_by_its_peer_is_an_error_to_handle_not_a_silent_death():
    """A broker that drops the CLI's connection: oslo.messaging's reconnect writes to
    the dead socket, and must get an error it can retry after, not SIGPIPE."""
    reset_and_write = textwrap.dedent('''
        import socket, struct
        server = socket.create_server(('127.0.0.1', 0))
        client = socket.create_connection(server.getsockname())
        peer, _ = server.accept()
        peer.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
        peer.close()  # a reset, as a broker that dropped the connection
        errors = []
        for _ in range(3):
            try:
                client.sendall(b'frame')
            except OSError as exc:
                errors.append(type(exc).__name__)
        print(' '.join(errors))
    ''')
    result = _cli_process('--version', code=reset_and_write)
    assert result.returncode == 0, result
    assert 'BrokenPipeError' in result.stdout.split('\n')[1]


def test_bootstrap_makes_the_service_user_hosts_fetch_images_as(run):
    from provisioner.identity import service as identity
    code, out, _ = run('bootstrap', '--username', 'admin', '--password', 'pw',
                       '--project', 'admin', '--service-user', 'svc',
                       '--service-password', 'svc-password')
    assert code == 0 and 'Service user svc' in out
    context = identity.validate(identity.authenticate('svc', 'svc-password',
                                                      'service'))
    assert context.roles == ('service',)
    code, _, err = run('bootstrap', '--username', 'admin', '--password', 'pw',
                       '--project', 'admin', '--service-user', 'svc')
    assert code == 2 and 'go together' in err
    code, _, err = run('bootstrap', '--username', 'admin', '--password', 'pw')
    assert code == 2 and '--project' in err
    code, out, _ = run('bootstrap', '--service-user', 'svc2', '--service-password',
                       'svc2-password')
    assert code == 0 and 'Admin user' not in out and 'Service user svc2' in out
