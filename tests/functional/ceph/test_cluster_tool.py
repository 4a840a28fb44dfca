"""tools/ceph-cluster on 127.0.0.1: up, status, restart, down, and bad input.

(tests/functional/ceph/test_rbd.py runs it in a network namespace.)
"""

import os
import re
import stat
import subprocess
import sys

import pytest

from tests import ceph


def _tool(*args):
    return subprocess.run([sys.executable, str(ceph.TOOL)] + [str(a) for a in args],
                          capture_output=True, text=True, timeout=300)


def _processes_using(conf):
    """pids of the processes whose command line names this conf file."""
    found = []
    for entry in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open('/proc/%s/cmdline' % entry, 'rb') as source:
                if conf.encode() in source.read().split(b'\0'):
                    found.append(int(entry))
        except OSError:
            pass
    return found


def _listening(pids):
    """The TCP addresses these processes listen on (ss, as a user would look)."""
    out = subprocess.run(['ss', '-ltnpH'], capture_output=True, text=True,
                         check=True).stdout
    return sorted(line.split()[3] for line in out.splitlines()
                  if any('pid=%d,' % pid in line for pid in pids))


def test_up_status_restart_down_on_loopback(tmp_path):
    missing = ceph.missing_binaries()
    if missing:
        pytest.skip('Ceph is not installed (no %s): run tools/setup-host.sh'
                    % ', '.join(missing))
    directory = tmp_path / 'cluster'
    with ceph.ceph_cluster(directory, pools=('images', 'volumes'),
                           client='tester') as cluster:
        status = cluster.status()
        assert status.returncode == 0, status.stdout + status.stderr
        assert 'HEALTH_OK' in status.stdout
        assert re.search(r'osd\.0: running, pid \d+', status.stdout)
        daemons = _processes_using(cluster.admin_conf)
        assert len(daemons) == 3
        listening = _listening(daemons)
        assert listening and all(addr.startswith('127.0.0.1:') for addr in listening)

        assert stat.S_IMODE(os.stat(cluster.keyring).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
        client_conf = open(cluster.client_conf).read()
        assert 'key' not in client_conf.replace('keyring', '')
        assert 'client.admin' not in client_conf
        assert cluster.rbd('ls', 'images').stdout == ''
        assert cluster.rbd('ls', 'vms', check=False).returncode != 0   # not made
        assert re.fullmatch(r'[A-Za-z0-9+/]{38}==', cluster.key)
        assert cluster.key not in repr(cluster)

        cluster.restart()
        assert cluster.status().returncode == 0
        assert not set(daemons) & set(_processes_using(cluster.admin_conf))
    assert not directory.exists()
    assert _processes_using(cluster.admin_conf) == []


@pytest.mark.parametrize('args, message', [
    (['--netns', 'x'], '--netns and --address go together'),
    (['--address', '10.0.0.1'], '--netns and --address go together'),
    (['--netns', 'no-such-namespace', '--address', '10.0.0.1'],
     "no network namespace 'no-such-namespace'"),
    (['--netns', 'x', '--address', '10.0.0'], "'10.0.0' is not an IPv4 address"),
    (['--pools', 'images,images'], 'names a pool twice'),
    (['--pools', 'images,,vms'], "'' is not a usable pool or client name"),
    (['--pools', 'a b'], "'a b' is not a usable pool or client name"),
    (['--client', 'admin'], 'needs a name of its own'),
    (['--client', '../x'], "'../x' is not a usable pool or client name"),
])
def test_bad_input_is_refused_and_changes_nothing(tmp_path, args, message):
    directory = tmp_path / 'cluster'
    result = _tool('up', '--dir', directory, *args)
    assert result.returncode == 1
    assert message in result.stderr
    assert not directory.exists()


def test_a_directory_in_use_or_without_a_cluster_is_refused(tmp_path):
    (tmp_path / 'mine').write_text('not the tool\'s')
    result = _tool('up', '--dir', tmp_path)
    assert result.returncode == 1 and 'is not an empty directory' in result.stderr
    assert os.listdir(tmp_path) == ['mine']
    for command in ('down', 'status', 'restart'):
        result = _tool(command, '--dir', tmp_path)
        assert result.returncode == 1 and 'no cluster in' in result.stderr, command
    assert os.listdir(tmp_path) == ['mine']
