"""The metadata proxy of a network (Neutron's haproxy in the DHCP namespace and its
metadata agent, in one): http://169.254.169.254/ inside the network's DHCP
namespace, forwarded to provisioner-api's metadata endpoint ([metadata] api_url).

A proxy is a listening socket made inside the namespace and served by a thread of
this process (the worker's): a short-lived thread enters the namespace (setns),
binds, and leaves; the socket stays in the namespace it was made in, and the
requests it accepts are forwarded from the worker's own namespace, where
provisioner-api is reachable. No process of its own: a restarted worker serves
again once it re-ensures its networks.

The guest is known by where its request comes from: the network the proxy serves
and the source address of the connection. Whatever identity headers the guest sends
are dropped; the proxy names the network and the address, signed with the shared
secret ([metadata] proxy_shared_secret, provisioner.metadata_signing), and the API
finds the port holding that address on that network. The secret and what is
forwarded are never logged.
"""

import ctypes
import http.server
import logging
import os
import posixpath
import socket
import threading
import urllib.error
import urllib.parse
import urllib.request

from provisioner import conf as provisioner_conf
from provisioner import metadata_signing as signing
from provisioner import redact

LOG = logging.getLogger(__name__)

ADDRESS = '169.254.169.254'
PORT = 80
_CLONE_NEWNET = 0x40000000
_IP_FREEBIND = 15  # bind before the namespace has the address (Linux)
# Request headers of the guest worth passing on; every other one is dropped.
_PASSED_ON = ('Accept', 'User-Agent')
_MAX_CONNECTION_SECONDS = 30
MAX_CONNECTIONS = 64  # at once, per network

_proxies = {}  # network id -> _Proxy
_lock = threading.Lock()


def _conf():
    return provisioner_conf.CONF  # read at each call: tests swap the options


def netns_path(netns):
    """A namespace's file: a name under /run/netns (ip netns's), or a path."""
    return netns if netns.startswith('/') else os.path.join('/run/netns', netns)


def _setns(fd):
    if hasattr(os, 'setns'):  # Python 3.12
        os.setns(fd, _CLONE_NEWNET)
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, _CLONE_NEWNET) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def listening_socket(netns, address=ADDRESS, port=PORT):
    """A TCP socket listening on address:port inside the namespace ``netns``.

    Made by a thread of its own, which enters the namespace and leaves it again
    (a thread's namespace is its own; the thread ends anyway), so no other thread
    of this process ever runs in the namespace.
    """
    outcome = {}

    def make():
        own = os.open('/proc/thread-self/ns/net', os.O_RDONLY)
        try:
            target = os.open(netns_path(netns), os.O_RDONLY)
            try:
                _setns(target)
            finally:
                os.close(target)
            try:
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                try:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    sock.setsockopt(socket.SOL_IP, _IP_FREEBIND, 1)
                    sock.bind((address, port))
                    sock.listen(64)
                except BaseException:
                    sock.close()
                    raise
                outcome['socket'] = sock
            finally:
                _setns(own)
        except BaseException as exc:  # handed to the caller's thread
            outcome['error'] = exc
        finally:
            os.close(own)

    thread = threading.Thread(target=make, name='metadata-proxy-bind', daemon=True)
    thread.start()
    thread.join()
    if 'error' in outcome:
        raise outcome['error']
    return outcome['socket']


def metadata_path(target):
    """The path of a request target, decoded and normalised, quoted again: what is
    forwarded stays under the API's metadata endpoint (no '..' out of it); the
    query is dropped (the metadata service reads none)."""
    path = urllib.parse.unquote(target.partition('?')[0].partition('#')[0])
    clean = posixpath.normpath('/' + path.lstrip('/'))
    if path.endswith('/') and clean != '/':
        clean += '/'
    return urllib.parse.quote(clean)


class _Handler(http.server.BaseHTTPRequestHandler):
    """One guest's request: forwarded, signed for the address it came from."""

    server_version = 'provisioner-metadata-proxy'
    timeout = _MAX_CONNECTION_SECONDS

    def do_GET(self):
        self._forward(send_body=True)

    def do_HEAD(self):
        self._forward(send_body=False)

    def _forward(self, send_body):
        proxy = self.server.proxy
        if not self.path.startswith('/'):
            self._answer(400, b'Bad request target.\n', 'text/plain', send_body)
            return
        address = self.client_address[0]
        headers = {name: self.headers[name] for name in _PASSED_ON
                   if self.headers.get(name) is not None}
        headers.update({
            signing.NETWORK_ID: proxy.network_id,
            signing.FORWARDED_FOR: address,
            signing.PROXY_SIGNATURE: signing.sign(
                proxy.secret, signing.source_message(proxy.network_id, address))})
        path = metadata_path(self.path)
        request = urllib.request.Request(proxy.api_url + path, headers=headers)
        try:
            with proxy.opener.open(request, timeout=proxy.timeout) as answer:
                status, body = answer.status, answer.read()
                content_type = answer.headers.get('Content-Type', 'text/plain')
        except urllib.error.HTTPError as answer:
            status, body = answer.code, answer.read()
            content_type = answer.headers.get('Content-Type', 'text/plain')
        except (OSError, ValueError) as exc:
            LOG.warning('Metadata proxy of network %s: provisioner-api did not answer '
                        '(%s)', proxy.network_id, exc)
            status, body, content_type = 504, b'The metadata service did not ' \
                b'answer.\n', 'text/plain'
        LOG.debug('Metadata proxy of network %s: %s %s from %s: %d', proxy.network_id,
                  self.command, path, address, status)
        self._answer(status, body, content_type, send_body)

    def _answer(self, status, body, content_type, send_body):
        self.send_response(status)
        self.send_header('Content-Type', content_type)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass  # _forward logs each request, without the guest's headers


class _Server(http.server.ThreadingHTTPServer):
    """A thread per connection, at most MAX_CONNECTIONS at once (haproxy's maxconn
    in Neutron's proxy): a guest opening connections without end is turned away
    rather than making the worker spawn threads without end."""

    daemon_threads = True

    def __init__(self, sock, proxy):
        super().__init__(sock.getsockname(), _Handler, bind_and_activate=False)
        self.socket.close()
        self.socket = sock
        self.proxy = proxy
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            LOG.warning('Metadata proxy of network %s: %d connections open, refusing '
                        'one from %s', self.proxy.network_id, MAX_CONNECTIONS,
                        client_address[0])
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


class _Proxy:
    def __init__(self, netns, network_id, api_url, secret, timeout, address, port):
        self.netns, self.network_id = netns, network_id
        self.api_url, self.secret, self.timeout = api_url.rstrip('/'), secret, timeout
        self.namespace = os.stat(netns_path(netns)).st_ino
        # Straight to the API: no HTTP proxy of the environment in between.
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        self.server = _Server(listening_socket(netns, address, port), self)
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       name='metadata-proxy-%s' % network_id,
                                       daemon=True)
        self.thread.start()

    def serves(self, netns, api_url, secret):
        """Whether it still serves the namespace named netns (the same one: a
        namespace deleted and made again under its name is another) as asked."""
        try:
            same = os.stat(netns_path(netns)).st_ino == self.namespace
        except OSError:
            return False
        return (same and netns == self.netns and self.thread.is_alive()
                and api_url.rstrip('/') == self.api_url and secret == self.secret)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def ensure(netns, network_id, api_url=None, secret=None, address=ADDRESS, port=PORT):
    """Serve the network's metadata at address:port inside ``netns`` (a name under
    /run/netns, or a path), forwarding to ``api_url`` (default [metadata] api_url)
    signed with ``secret`` (default [metadata] proxy_shared_secret). Idempotent;
    a proxy of the network serving elsewhere (or a namespace made again) is
    replaced. Returns whether a proxy serves: without an API URL or a secret there
    is no metadata service, and none is started."""
    metadata = _conf().metadata
    api_url = api_url or metadata.api_url
    secret = secret or metadata.proxy_shared_secret
    if not api_url or not secret:
        LOG.debug('No metadata proxy for network %s: [metadata] api_url or '
                  'proxy_shared_secret unset', network_id)
        return False
    redact.register(secret)  # masked should anything ever print it
    with _lock:
        proxy = _proxies.get(network_id)
        if proxy is not None and proxy.serves(netns, api_url, secret):
            return True
        if proxy is not None:
            _proxies.pop(network_id).stop()
        _proxies[network_id] = _Proxy(netns, network_id, api_url, secret,
                                      metadata.proxy_timeout, address, port)
    LOG.info('Metadata proxy of network %s serving %s:%d in namespace %s', network_id,
             address, port, netns)
    return True


def remove(netns, network_id):
    """Stop the network's metadata proxy, if it runs (``netns`` is not needed: a
    network has one proxy here). Idempotent.

    Call it before the namespace is deleted: the listening socket holds the
    namespace, which (with its interfaces) outlives ``ip netns del`` until then.
    """
    with _lock:
        proxy = _proxies.pop(network_id, None)
    if proxy is not None:
        proxy.stop()
        LOG.info('Metadata proxy of network %s stopped (namespace %s)', network_id,
                 proxy.netns)


def serving():
    """{network id: {'netns', 'address': (ip, port)}} of the proxies this process
    runs."""
    with _lock:
        return {network_id: {'netns': p.netns,
                             'address': p.server.socket.getsockname()[:2]}
                for network_id, p in _proxies.items()}
