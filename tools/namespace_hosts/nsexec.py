"""Run a command inside a host: its network, uts, mount and pid namespaces.

This process stays outside, as the command's stand-in: it forwards the signals it
gets (SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2) to the command and ends as
the command ended (the same exit status, or killed by the same signal), so a caller's
``Popen`` of ``tools/hosts exec`` can wait for, signal and stop a daemon inside a host
as if it were its own child. If this process is SIGKILLed, the kernel kills the
command too (PR_SET_PDEATHSIG). util-linux's nsenter forwards no signal, hence this.
"""

import ctypes
import os
import signal
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT,
             signal.SIGUSR1, signal.SIGUSR2)
# Joined in this order; the pid namespace applies to the children of the caller only.
NAMESPACES = (('net', CLONE_NEWNET), ('uts', CLONE_NEWUTS), ('mnt', CLONE_NEWNS))

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result):
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def _setns(fd, kind):
    if hasattr(os, 'setns'):  # Python 3.12
        os.setns(fd, kind)
    else:
        _check(_libc.setns(fd, kind))


def run(init_pid, argv):
    """Run ``argv`` in the namespaces of ``init_pid``; never returns."""
    fds = {kind: os.open('/proc/%d/ns/%s' % (init_pid, kind), os.O_RDONLY)
           for kind in ('net', 'uts', 'mnt', 'pid')}
    cwd = os.getcwd()
    _setns(fds['pid'], CLONE_NEWPID)  # our child is born in the host's pid namespace
    child = None
    pending = []

    def forward(signum, frame):
        if child is None:
            pending.append(signum)
        elif child > 0:  # never in the child itself (0), before it resets its handlers
            os.kill(child, signum)

    for signum in FORWARDED:
        signal.signal(signum, forward)
    child = os.fork()
    if child == 0:
        _exec_inside(fds, cwd, argv)
    for signum in pending:
        os.kill(child, signum)
    _, status = os.waitpid(child, 0)
    _end_like(status)


def _exec_inside(fds, cwd, argv):
    try:
        _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0))
        # Born in a pid namespace below our parent's, we see it as pid 0; once it is
        # gone we are the init's, pid 1.
        if os.getppid() != 0:
            os._exit(137)
        for kind, flag in NAMESPACES:
            _setns(fds[kind], flag)
        for fd in fds.values():
            os.close(fd)
        try:
            os.chdir(cwd)  # the same tree: only libvirt's directories differ inside
        except OSError:
            os.chdir('/')
        for signum in FORWARDED + (signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(signum, signal.SIG_DFL)
        os.execvp(argv[0], argv)
    except OSError as exc:
        print('tools/hosts exec: %s: %s' % (argv[0], exc), file=sys.stderr, flush=True)
        os._exit(127)


def _end_like(status):
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        if signum not in (signal.SIGKILL, signal.SIGSTOP):  # those cannot be caught
            signal.signal(signum, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
        os.kill(os.getpid(), signum)
        os._exit(128 + signum)  # a signal whose default is not to end a process
    os._exit(os.WEXITSTATUS(status))
