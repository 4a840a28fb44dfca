"""One hypervisor host: its private libvirt directories, its init, its libvirtd.

A host's init is the first process of its own pid namespace (``unshare --pid``),
inside its network namespace and a private mount and uts namespace. It bind-mounts the
host's own directories over libvirt's, sets the hostname, runs libvirtd and reaps
orphans. Killing it kills everything in the pid namespace at once: libvirtd, QEMU,
whatever was exec'd there.
"""

import glob
import os
import shutil
import socket
import subprocess
import sys
import time

from namespace_hosts import net

# The host's directory -> the libvirt directory it replaces inside the host.
BIND_DIRS = (('run', '/run/libvirt'), ('lib', '/var/lib/libvirt'),
             ('etc', '/etc/libvirt'), ('log', '/var/log/libvirt'),
             ('cache', '/var/cache/libvirt'))
# Files of the host's directory mounted over /etc inside: its peers' names, no DNS.
BIND_FILES = (('hosts', '/etc/hosts'), ('resolv.conf', '/etc/resolv.conf'))
SOCKET = 'libvirt-sock'
# libvirtd probes each QEMU binary for its capabilities unless its cache has them:
# 5-8 s of a host's start on a busy machine, 1-2 s without. A host's cache is seeded
# from the last one a host of any run probed (libvirt checks an entry still fits the
# binaries, libvirt and kernel, and probes again if not), else from the root daemon's.
ROOT_CAPABILITIES = '/var/cache/libvirt/qemu/capabilities'
CAPABILITIES_CACHE = '/var/cache/provisioner-hosts/qemu-capabilities'
PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
READY_TIMEOUT = 90


def socket_path(host_dir):
    return os.path.join(host_dir, 'run', SOCKET)


def libvirt_uri(host_dir):
    return 'qemu+unix:///system?socket=%s' % socket_path(host_dir)


def prepare(host_dir, hostname, address, host_uuid, tcp, peers):
    """The host's directories and libvirt configuration (kept by a restart)."""
    for sub, _ in BIND_DIRS:
        os.makedirs(os.path.join(host_dir, sub), mode=0o755, exist_ok=True)
    etc = os.path.join(host_dir, 'etc')
    # Only the daemons' settings and the network filters: a copy of qemu/, storage/
    # or secrets/ would autostart the root daemon's networks and pools in the host.
    for conf in glob.glob('/etc/libvirt/*.conf'):
        shutil.copy(conf, etc)
    if os.path.isdir('/etc/libvirt/nwfilter'):
        shutil.copytree('/etc/libvirt/nwfilter', os.path.join(etc, 'nwfilter'),
                        dirs_exist_ok=True)
    cache = _capabilities(host_dir)
    for seed in (CAPABILITIES_CACHE, ROOT_CAPABILITIES):
        if os.path.isdir(seed) and not os.path.isdir(cache):
            shutil.copytree(seed, cache)
    daemon = {'host_uuid': '"%s"' % host_uuid, 'listen_tls': '0',
              'listen_tcp': '1' if tcp else '0'}
    if tcp:
        daemon.update(listen_addr='"%s"' % address, auth_tcp='"none"')
    _set(os.path.join(etc, 'libvirtd.conf'), daemon)
    _set(os.path.join(etc, 'qemu.conf'), {
        'stdio_handler': '"file"',          # no virtlogd inside
        'cgroup_controllers': '[ ]',
        'namespaces': '[ ]',
        'user': '"root"', 'group': '"root"',
        # Two daemons sharing kernel, initrd and disk files must not chown them.
        'dynamic_ownership': '0', 'remember_owner': '0',
        'security_driver': '"none"',
        'migration_address': '"%s"' % address, 'migration_host': '"%s"' % address})
    with open(os.path.join(host_dir, 'hosts'), 'w') as hosts:
        hosts.write('127.0.0.1 localhost\n::1 localhost\n')
        hosts.writelines('%s %s\n' % (ip, name) for name, ip in peers)
    with open(os.path.join(host_dir, 'resolv.conf'), 'w') as resolv:
        resolv.write('# no DNS inside a namespace host (tools/hosts)\n')


def clear_runtime(host_dir):
    """What a reboot clears: the host's /run/libvirt (pid files, the status of the
    domains that ran, whose pids mean nothing in a new pid namespace). Defined
    domains, networks and pools stay; transient ones are gone."""
    run = os.path.join(host_dir, 'run')
    shutil.rmtree(run, ignore_errors=True)
    os.makedirs(run, mode=0o755, exist_ok=True)


def _capabilities(host_dir):
    return os.path.join(host_dir, 'cache', 'qemu', 'capabilities')


def keep_capabilities(host_dir):
    """Keep the capabilities a ready host's libvirtd has (re)probed, for the next."""
    for path in glob.glob(os.path.join(_capabilities(host_dir), '*.xml')):
        os.makedirs(CAPABILITIES_CACHE, mode=0o700, exist_ok=True)
        kept = os.path.join(CAPABILITIES_CACHE, os.path.basename(path))
        shutil.copy(path, kept + '.new')
        os.replace(kept + '.new', kept)  # another run may read it meanwhile


def _set(path, settings):
    """Rewrite a libvirt conf file with ``settings`` replacing their old lines."""
    lines = []
    if os.path.exists(path):
        with open(path) as conf:
            lines = [line for line in conf.read().splitlines()
                     if line.split('=', 1)[0].strip() not in settings]
    lines.append('# set by tools/hosts')
    lines += ['%s = %s' % item for item in sorted(settings.items())]
    with open(path, 'w') as conf:
        conf.write('\n'.join(lines) + '\n')


def start(netns, host_dir, hostname, tcp, tool):
    """Start the host's init in its namespaces; it outlives this process."""
    argv = ['ip', 'netns', 'exec', netns,
            # --kill-child: unshare's death kills the init too.
            'unshare', '--mount', '--uts', '--pid', '--fork', '--kill-child',
            '--mount-proc', '--propagation', 'private',
            sys.executable, tool, '_init', '--host-dir', host_dir,
            '--hostname', hostname] + (['--tcp'] if tcp else [])
    with open(os.path.join(host_dir, 'init.log'), 'ab') as log:
        subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                         start_new_session=True, env={'PATH': PATH, 'LANG': 'C.UTF-8'})


def find_init(netns):
    """The root-namespace pid of the host's init: the process of its network
    namespace that is pid 1 of a pid namespace of its own."""
    for pid in net.netns_pids(netns):
        try:
            with open('/proc/%d/status' % pid) as status:
                for line in status:
                    if line.startswith('NSpid:'):
                        ids = line.split()[1:]
                        if len(ids) > 1 and ids[-1] == '1':
                            return pid
        except FileNotFoundError:
            continue
    return None


def answers(host_dir, timeout=10):
    result = net.run(['virsh', '-q', '-c', libvirt_uri(host_dir), 'version'],
                     check=False, timeout=timeout)
    return result.returncode == 0


def wait_ready(hosts, timeout=READY_TIMEOUT):
    """Wait until every host's libvirtd answers; ``hosts``: (netns, host_dir)."""
    waiting = list(hosts)
    started = time.monotonic()
    deadline = started + timeout
    while waiting:
        for netns, host_dir in list(waiting):
            if os.path.exists(socket_path(host_dir)) and answers(host_dir):
                waiting.remove((netns, host_dir))
            # An init is found within milliseconds of its start, unless it died.
            elif time.monotonic() > started + 5 and find_init(netns) is None:
                raise net.CommandError('host %s died starting:\n%s' % (netns,
                                                                      _logs(host_dir)))
        if waiting and time.monotonic() > deadline:
            raise net.CommandError('libvirtd of %s did not answer within %d s:\n%s' % (
                waiting[0][0], timeout, _logs(waiting[0][1])))
        if waiting:
            time.sleep(0.1)


def _logs(host_dir):
    text = ''
    for path in (os.path.join(host_dir, 'init.log'),
                 os.path.join(host_dir, 'log', 'libvirtd.log')):
        if os.path.exists(path):
            with open(path, errors='replace') as log:
                text += '--- %s (end)\n%s\n' % (path, log.read()[-3000:])
    return text


def init_main(host_dir, hostname, tcp):
    """Pid 1 of the host: mounts, hostname, libvirtd; then reap until killed."""
    for sub, target in BIND_DIRS:
        os.makedirs(target, exist_ok=True)
        net.run(['mount', '--bind', os.path.join(host_dir, sub), target])
    for name, target in BIND_FILES:
        if os.path.exists(target):
            net.run(['mount', '--bind', os.path.join(host_dir, name), target])
    socket.sethostname(hostname)
    with open(os.path.join(host_dir, 'log', 'libvirtd.log'), 'ab') as log:
        libvirtd = subprocess.Popen(
            ['libvirtd', '--pid-file', '/run/libvirt/libvirtd.pid']
            + (['--listen'] if tcp else []),
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    print('init: %s up, libvirtd pid %d' % (hostname, libvirtd.pid), flush=True)
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:  # nothing to reap now; orphans may come later
            time.sleep(1)
            continue
        if pid == libvirtd.pid:
            print('init: libvirtd exited (%s)' % status, flush=True)
