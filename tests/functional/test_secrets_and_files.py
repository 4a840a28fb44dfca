"""After a real boot with a password, a token and user data: no secret anywhere, and
every private file private."""

import json
import os
import sqlite3
import stat


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_no_secret_in_logs_or_tables_and_guest_files_are_private(cloud, booted, tmp_path):
    secret_data = 'user-data-Secret-4242'
    user_data = tmp_path / 'user-data'
    user_data.write_text('#!/bin/sh\necho %s\n' % secret_data)
    booted.append('vm-secret')
    cloud.boot('vm-secret', '--user-data', user_data, '--property', 'role=web', '--debug')
    instance = cloud.show('vm-secret')
    assert instance['vm_state'] == 'active'
    assert cloud.wait_for_console(instance)['uuid'] == instance['id']

    cached = list((cloud.root / 'token-cache').iterdir())
    tokens = [json.loads(path.read_text())['token'] for path in cached]
    # A cached token works on its own, and a command run with it leaves no trace.
    assert cloud.cli('list', env={'OS_TOKEN': tokens[0]}).returncode == 0
    secrets = [cloud.env['OS_PASSWORD'], secret_data] + tokens

    logs = [p for p in (cloud.state_path / 'logs').iterdir() if p.is_file()]
    assert logs
    for log in logs:
        text = log.read_text(errors='replace')
        for secret in secrets:
            assert secret not in text, log
    with sqlite3.connect(cloud.state_path / 'provisioner.sqlite') as db:
        tables = [t for (t,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        assert 'atomdetails' in tables and 'flowdetails' in tables
        for table in tables:
            cursor = db.execute('SELECT * FROM "%s"' % table)
            columns = [c[0] for c in cursor.description]
            for row in cursor:
                for column, value in zip(columns, row):
                    if (table, column) == ('instances', 'user_data'):
                        continue  # where user data is kept, as nova does
                    text = value.decode(errors='replace') if isinstance(
                        value, bytes) else str(value)
                    for secret in secrets:
                        assert secret not in text, (table, column)

    instance_dir = os.path.dirname(instance['console_log'])
    assert _mode(instance_dir) == 0o750
    assert _mode(os.path.join(instance_dir, 'disk.config')) == 0o640
    assert _mode(instance['console_log']) & 0o007 == 0
    for disk_dir in ('disks', 'volumes', 'images'):
        path = cloud.state_path / disk_dir
        if path.exists():
            assert _mode(path) == 0o750, path
            for child in path.iterdir():
                assert _mode(child) & 0o007 == 0 or child.name.startswith('.'), child
    assert _mode(cloud.state_path / 'provisioner.sqlite') == 0o600
    assert _mode(cloud.state_path / 'fernet-keys') == 0o700
    for key in (cloud.state_path / 'fernet-keys').iterdir():
        assert _mode(key) == 0o600
    assert _mode(cloud.root / 'token-cache') == 0o700
    assert all(_mode(path) == 0o600 for path in cached)
