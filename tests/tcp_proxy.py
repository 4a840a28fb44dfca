"""A TCP proxy whose connections a test can reset, as a broker or a network that drops
its clients does: an RST, not a FIN, so the client's next write fails (EPIPE)."""

import selectors
import socket
import struct
import threading

_ABORT = struct.pack('ii', 1, 0)  # SO_LINGER on, 0 s: close() sends an RST


class ResettingProxy:
    """Forwards 127.0.0.1:``port`` to ``target``; ``reset()`` aborts every client's
    connection. One thread moves all the bytes, so no other thread is inside a
    socket call when a reset closes it."""

    def __init__(self, target):
        self._target = target
        self._server = socket.create_server(('127.0.0.1', 0))
        self.port = self._server.getsockname()[1]
        self.accepted = 0
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._server, selectors.EVENT_READ)
        self._peers = {}  # each socket of a pair -> the other
        self._clients = set()
        self._reset = threading.Event()
        self._reset_done = threading.Event()
        self._stop = threading.Event()
        self._resets = 0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self._stop.set()
        self._thread.join(10)
        for sock in list(self._peers):
            sock.close()
        self._server.close()

    def reset(self, timeout=10):
        """Reset every connection open now; how many there were."""
        self._reset_done.clear()
        self._reset.set()
        if not self._reset_done.wait(timeout):
            raise AssertionError('the proxy did not reset its connections')
        return self._resets

    def _run(self):
        while not self._stop.is_set():
            for key, _ in self._selector.select(timeout=0.05):
                if key.fileobj is self._server:
                    self._accept()
                elif key.fileobj in self._peers:
                    self._forward(key.fileobj)
            if self._reset.is_set():
                self._resets = len(self._clients)
                for client in list(self._clients):
                    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _ABORT)
                    self._drop(client)
                self._reset.clear()
                self._reset_done.set()

    def _accept(self):
        client, _ = self._server.accept()
        try:
            upstream = socket.create_connection(self._target, timeout=5)
        except OSError:
            client.close()
            return
        self.accepted += 1
        self._clients.add(client)
        self._peers.update({client: upstream, upstream: client})
        for sock in (client, upstream):
            self._selector.register(sock, selectors.EVENT_READ)

    def _forward(self, source):
        try:
            data = source.recv(65536)
            if data:
                self._peers[source].sendall(data)  # loopback: never blocks for long
                return
        except OSError:
            pass
        self._drop(source)

    def _drop(self, sock):
        for end in (sock, self._peers.get(sock)):
            if end is None or end not in self._peers:
                continue
            self._selector.unregister(end)
            del self._peers[end]
            self._clients.discard(end)
            end.close()
