"""Hypervisor hosts on this machine for tests: tools/hosts, driven as a user drives it.

    with namespace_hosts(2, relay=(5672,)) as hosts:
        a, b = hosts
        libvirt.open(b.libvirt_uri)                      # B's own libvirtd
        a.popen(['provisioner-worker', ...], stdout=log)  # a daemon inside A
        b.partition(); b.heal(); b.kill(); b.start()
        ceph = hosts.attach('ceph')                       # a plain namespace

Every operation runs the tool's command line and reads its state file, so the tests
prove the tool a user runs, and the hosts outlive no test run: each run has a TAG of
its own (two pytest-xdist workers never collide) and ``down`` removes everything.
"""

import contextlib
import json
import os
import pathlib
import secrets
import shutil
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
TOOL = REPO / 'tools' / 'hosts'
RABBIT_PORT = 5672


class Unavailable(Exception):
    """This machine cannot make namespace hosts (not root, or a component missing)."""


def tool(*args, check=True, timeout=300):
    """Run tools/hosts ARGS; its CompletedProcess (text)."""
    result = subprocess.run([sys.executable, str(TOOL)] + [str(a) for a in args],
                            capture_output=True, text=True, timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError('tools/hosts %s failed (%d):\n%s%s' % (
            ' '.join(map(str, args)), result.returncode, result.stdout, result.stderr))
    return result


def check_available():
    if os.geteuid() != 0:
        raise Unavailable('namespace hosts need root')
    for command in ('ip', 'unshare', 'mount', 'libvirtd', 'virsh'):
        if shutil.which(command) is None:
            raise Unavailable('%s is not installed (tools/setup-host.sh)' % command)


def alive(pid):
    """True while ``pid`` runs (a zombie has ended)."""
    try:
        stat = pathlib.Path('/proc/%d/stat' % pid).read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(')', 1)[1].split()[0] != 'Z'


def new_tag():
    return 't%s' % secrets.token_hex(3)


@contextlib.contextmanager
def namespace_hosts(count, relay=(RABBIT_PORT,), tcp=False, tag=None):
    """``count`` hosts on an underlay of their own, removed at the end (``Hosts``)."""
    hosts = Hosts.up(count, relay=relay, tcp=tcp, tag=tag)
    try:
        yield hosts
    finally:
        hosts.down()


class Member:
    """A namespace on the underlay: a host, or an attached namespace."""

    def __init__(self, run, record):
        self.run = run
        self.name = record['name']          # TAG-h1, TAG-NAME
        self.address = record['address']    # on the underlay
        self.record = record

    def command(self, argv):
        """The argv that runs ``argv`` inside (signals and exit status pass through)."""
        return [sys.executable, str(TOOL), 'exec', self.name, '--'] + [str(a) for a in argv]

    def exec(self, argv, check=True, timeout=120, **kwargs):
        """subprocess.run of ``argv`` inside; text output captured unless told."""
        kwargs.setdefault('capture_output', 'stdout' not in kwargs)
        result = subprocess.run(self.command(argv), text=True, timeout=timeout, **kwargs)
        if check and result.returncode != 0:
            raise AssertionError('%s in %s failed (%d):\n%s%s' % (
                ' '.join(map(str, argv)), self.name, result.returncode,
                result.stdout or '', result.stderr or ''))
        return result

    def popen(self, argv, **kwargs):
        """subprocess.Popen of ``argv`` inside: a daemon to wait for, signal, stop."""
        return subprocess.Popen(self.command(argv), **kwargs)

    def partition(self):
        """Cut its underlay link, both ways; what runs inside keeps running."""
        self.run.tool('partition', self.name)

    def heal(self):
        self.run.tool('heal', self.name)

    def pids(self):
        """Processes in its network namespace (root-namespace pids)."""
        result = subprocess.run(['ip', 'netns', 'pids', self.name], capture_output=True,
                                text=True)
        return [int(pid) for pid in result.stdout.split()]

    def processes(self):
        """{pid: command name} of the processes in its network namespace."""
        found = {}
        for pid in self.pids():
            try:
                found[pid] = pathlib.Path('/proc/%d/comm' % pid).read_text().strip()
            except FileNotFoundError:
                pass
        return found

    def wait_for_process(self, command, timeout=30):
        """processes() once one named ``command`` runs there (an exec'd daemon)."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.processes()
            if command in found.values():
                return found
            if time.monotonic() > deadline:
                raise AssertionError('no %s in %s: %s' % (command, self.name, found))
            time.sleep(0.1)


class Host(Member):
    """A hypervisor host: its own libvirtd, hostname and host UUID."""

    def __init__(self, run, record):
        super().__init__(run, record)
        self.hostname = record['hostname']
        self.host_uuid = record['host_uuid']
        self.libvirt_uri = record['libvirt_uri']          # from the root namespace
        self.libvirt_tcp_uri = record['libvirt_tcp_uri']  # up(tcp=True) only
        self.dir = pathlib.Path(record['dir'])

    def kill(self):
        """The whole host at once: libvirtd, guests, everything exec'd there."""
        self.run.tool('kill', self.name)

    def start(self):
        """A killed host again: same name, address, host UUID, libvirt state."""
        self.run.tool('start', self.name)


class Hosts:
    """One run of tools/hosts: its hosts (indexable, iterable) and the underlay."""

    def __init__(self, tag, state):
        self.tag = tag
        self.reload(state)

    @classmethod
    def up(cls, count, relay=(RABBIT_PORT,), tcp=False, tag=None):
        check_available()
        tag = tag or new_tag()
        args = ['up', count, '--name', tag, '--json']
        for port in relay:
            args += ['--relay', port]
        result = tool(*(args + (['--tcp'] if tcp else [])))
        return cls(tag, json.loads(result.stdout))

    def reload(self, state=None):
        if state is None:
            state = json.loads(pathlib.Path(self.state['state_file']).read_text())
        self.state = state
        self.cidr = state['underlay']['cidr']
        self.management_ip = state['management']['address']  # the relays listen here
        self.hosts = [Host(self, record) for record in state['hosts']]
        self.attached = {record['member']: Member(self, record)
                         for record in state['attached']}

    def __iter__(self):
        return iter(self.hosts)

    def __getitem__(self, index):
        return self.hosts[index]

    def __len__(self):
        return len(self.hosts)

    def tool(self, *args, **kwargs):
        result = tool(*(list(args) + ['--name', self.tag]), **kwargs)
        self.reload()
        return result

    def relay(self, port):
        """Relay management_ip:port to 127.0.0.1:port; that address."""
        self.tool('relay', port)
        return '%s:%d' % (self.management_ip, port)

    def attach(self, name):
        """A plain namespace TAG-NAME on the underlay (a Member)."""
        self.tool('attach', name)
        return self.attached[name]

    def detach(self, name):
        self.tool('detach', name)

    def down(self):
        """Remove everything of the run; what was removed."""
        return json.loads(tool('down', '--name', self.tag, '--json').stdout)
