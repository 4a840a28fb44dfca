"""Relays: the hosts reach services on the root namespace's loopback through them.

A relay is a process in the root namespace that accepts TCP connections on the
management address (the root's leg on the underlay) and opens one to 127.0.0.1 on
the same port for each, copying bytes both ways: a userspace proxy between this
machine's own processes, so the kernel forwards and rewrites nothing.
"""

import contextlib
import errno
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from namespace_hosts import net

MARK = '_relay'
TARGET_HOST = '127.0.0.1'


def start(tag, address, port, tool, log_path):
    """Listen on address:port (errors are the caller's), then serve in a process."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((address, port))
        listener.listen(128)
        with open(log_path, 'ab') as log:
            proc = subprocess.Popen(
                [sys.executable, tool, MARK, '--name', tag, '--port', str(port),
                 '--fd', str(listener.fileno())],
                pass_fds=[listener.fileno()], stdin=subprocess.DEVNULL, stdout=log,
                stderr=log, start_new_session=True)
    except OSError as exc:
        raise net.CommandError('cannot relay %s:%d to %s:%d: %s'
                               % (address, port, TARGET_HOST, port, exc))
    finally:
        listener.close()
    return proc.pid


def find(tag, port=None):
    """Pids of the relays of ``tag`` (on ``port``), found by their command line."""
    found = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/cmdline' % entry, 'rb') as cmdline:
                argv = cmdline.read().decode(errors='replace').split('\0')
        except OSError:
            continue
        # [python, tools/hosts, _relay, --name, TAG, --port, PORT, ...]
        if argv[2:3] == [MARK] and _option(argv, '--name') == tag and (
                port is None or _option(argv, '--port') == str(port)):
            found.append(int(entry))
    return found


def _option(argv, name):
    index = argv.index(name) if name in argv else -1
    return argv[index + 1] if 0 <= index < len(argv) - 1 else None


def stop(tag, port=None):
    pids = find(tag, port)
    net.kill_and_wait(pids)
    return pids


def serve(fd, port):
    """The relay process: listening on ``fd``, relaying to 127.0.0.1:``port``."""
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    listener = socket.socket(fileno=fd)
    print('relay: %s -> %s:%d' % (listener.getsockname(), TARGET_HOST, port), flush=True)
    accept(listener, port)


def accept(listener, port):
    """Accept until the listener is shut down; a pair of copying threads per client."""
    while True:
        try:
            client, _ = listener.accept()
        except OSError as exc:
            if exc.errno == errno.EINVAL:  # shut down
                return
            time.sleep(0.1)  # out of descriptors, a client gone before accept...
            continue
        threading.Thread(target=_connect, args=(client, port), daemon=True).start()


def _connect(client, port):
    try:
        upstream = socket.create_connection((TARGET_HOST, port), timeout=10)
    except OSError:
        client.close()  # the client sees the refusal as a closed connection
        return
    upstream.settimeout(None)
    back = threading.Thread(target=_copy, args=(upstream, client), daemon=True)
    back.start()
    _copy(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _copy(source, sink):
    """Bytes from source to sink until source ends; then end sink's direction."""
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        # A reset on one side: end both directions so the other copy stops too.
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        return
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)
