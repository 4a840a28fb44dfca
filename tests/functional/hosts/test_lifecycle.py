"""tools/hosts down leaves nothing of a run behind: no namespace, link, relay, libvirtd,
QEMU, mount, route or state file; also after a crash of up, without its state file."""

import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from tests.functional.hosts import guests
from tests import hosts as nshosts


@pytest.fixture(autouse=True)
def available():
    try:
        nshosts.check_available()
    except nshosts.Unavailable as exc:
        pytest.skip(str(exc))


def _processes_naming(words, text=''):
    """Pids whose command line holds every one of ``words`` and ``text`` (a run's
    inits, relays)."""
    found = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            argv = pathlib.Path('/proc/%s/cmdline' % entry).read_bytes().decode(
                errors='replace').split('\0')
        except OSError:
            continue
        if all(word in argv for word in words) and text in ' '.join(argv):
            found.append(int(entry))
    return found


def _left_behind(tag, state_dir, cidr=None):
    """What of run ``tag`` this machine still has, named."""
    found = ['namespace %s' % ns for ns in subprocess.run(
        ['ip', 'netns', 'list'], capture_output=True, text=True).stdout.split()
        if ns.startswith(tag + '-')]
    links = subprocess.run(['ip', '-o', 'link'], capture_output=True, text=True).stdout
    found += ['link %s-mgmt' % tag] if ' %s-mgmt@' % tag in links else []
    found += ['process %d' % pid for pid in _processes_naming(['--name', tag])]
    found += ['process %d' % pid for pid in _processes_naming(['_init'], state_dir)]
    mounts = pathlib.Path('/proc/mounts').read_text()
    found += ['mount %s' % line for line in mounts.splitlines()
              if state_dir in line or '/run/netns/%s-' % tag in line]
    if cidr:
        routes = subprocess.run(['ip', 'route'], capture_output=True, text=True).stdout
        found += ['route %s' % cidr] if cidr in routes else []
    if os.path.exists(state_dir):
        found.append('state directory %s' % state_dir)
    return found


def test_down_leaves_nothing(guest_image, tmp_path):
    started = time.monotonic()
    hosts = nshosts.Hosts.up(3)
    up_seconds = time.monotonic() - started
    state_dir, cidr = hosts.state['state_dir'], hosts.cidr
    try:
        ceph = hosts.attach('ceph')
        name, _ = guests.start_guest(hosts[2], guest_image, tmp_path)
        assert guests.qemu_pid(hosts[2], name) is not None
        daemons = [hosts[1].popen(['sleep', '1000']), ceph.popen(['sleep', '1000'])]
        running = {}
        for member, command in ((hosts[0], 'libvirtd'), (hosts[1], 'sleep'),
                                (hosts[2], 'qemu-system-x86'), (ceph, 'sleep')):
            running.update(member.wait_for_process(command))
        pids = list(running) + [entry['pid']
                                for entry in hosts.state['management']['relays']]
        assert sorted(running.values()).count('libvirtd') == 3, running
        assert sorted(running.values()).count('sleep') == 2, running
        assert _left_behind(hosts.tag, state_dir, cidr) != []
    finally:
        started = time.monotonic()
        removed = hosts.down()
        down_seconds = time.monotonic() - started
    print('namespace hosts: up of 3 hosts %.1f s, down %.1f s (%s)'
          % (up_seconds, down_seconds, '; '.join(removed['removed'])))
    assert [daemon.wait(30) for daemon in daemons] == [-signal.SIGKILL] * 2
    assert [pid for pid in pids if nshosts.alive(pid)] == []
    assert _left_behind(hosts.tag, state_dir, cidr) == []
    again = nshosts.tool('down', '--name', hosts.tag)
    assert 'nothing was there' in again.stdout


def test_down_after_a_crash_of_up_without_its_state_file():
    tag = nshosts.new_tag()
    up = subprocess.Popen([sys.executable, str(nshosts.TOOL), 'up', '2', '--name', tag,
                           '--relay', '5672'],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state_dir = '/var/lib/provisioner-hosts/%s' % tag
    # Crash it once its first host is being made, before it is done.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and up.poll() is None and not any(
            ns.startswith(tag + '-h') for ns in subprocess.run(
                ['ip', 'netns', 'list'], capture_output=True, text=True).stdout.split()):
        time.sleep(0.02)
    up.kill()
    up.wait()
    assert _left_behind(tag, state_dir) != []
    state_file = pathlib.Path(state_dir) / 'hosts.json'
    if state_file.exists():
        state_file.unlink()
    nshosts.tool('down', '--name', tag)
    assert _left_behind(tag, state_dir) == []
