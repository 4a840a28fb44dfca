"""Image service throughput: upload and download through the API against a plain copy.

provisioner-api's WSGI application runs on cheroot in this process, on loopback
(all-in-one: SQLite, the image store under the bench's state path). The same
random bytes are copied with a plain file copy (read, write, fsync: what the store
and the cache also do), uploaded with ``PUT /image/v2/images/{id}/file``,
downloaded with ``GET .../file`` into a file, and fetched by a host the way a
worker does (provisioner.image.fetcher: service-user token, download, sha256,
rename into the cache). Then the cost of a cache hit: a boot of an image the host
already holds. Files are in the page cache (warm): this measures the API's own
cost per byte (hashing md5/sha256/sha512 on upload, chunked streaming), not a disk.
"""

import http.client
import json
import os
import statistics
import threading
import time

from cheroot import wsgi as cheroot_wsgi

from provisioner.api import app
from provisioner.engine import deployments
from provisioner.identity import service as identity
from provisioner.image import cache as image_cache
from provisioner.image import fetcher
from tests.bench import common

SIZE = 256 * 1024 * 1024
RUNS = 3
HIT_RUNS = 200
CHUNK = 1024 * 1024
SERVICE_PASSWORD = 'bench-service-secret'


def _random_file(path, size):
    with open(path, 'wb') as f:
        for _ in range(size // CHUNK):
            f.write(os.urandom(CHUNK))


def _copy(source, target):
    with open(source, 'rb') as src, open(target, 'wb') as out:
        for chunk in iter(lambda: src.read(CHUNK), b''):
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())


def _timed(func, *args):
    start = time.perf_counter()
    func(*args)
    return time.perf_counter() - start


class _Client:
    def __init__(self, port, token=None):
        self.port, self.token = port, token

    def request(self, method, path, body=None, headers=None):
        conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=120,
                                          blocksize=CHUNK)
        headers = dict(headers or {})
        if self.token:
            headers['X-Auth-Token'] = self.token
        if isinstance(body, dict):
            body = json.dumps(body)
            headers['Content-Type'] = 'application/json'
        conn.request(method, path, body=body, headers=headers)
        return conn, conn.getresponse()


def _token(client, user, password, project):
    auth = {'auth': {'identity': {'methods': ['password'], 'password': {
        'user': {'name': user, 'password': password, 'domain': {'name': 'Default'}}}},
        'scope': {'project': {'name': project, 'domain': {'name': 'Default'}}}}}
    conn, response = client.request('POST', '/identity/v3/auth/tokens', auth)
    response.read()
    conn.close()
    return response.getheader('X-Subject-Token')


def _upload(client, source, name):
    conn, response = client.request('POST', '/image/v2/images', {
        'name': name, 'disk_format': 'raw', 'container_format': 'bare'})
    image_id = json.loads(response.read())['id']
    conn.close()
    with open(source, 'rb') as body:
        start = time.perf_counter()
        conn, response = client.request('PUT', '/image/v2/images/%s/file' % image_id,
                                        body, {'Content-Type': 'application/octet-stream',
                                               'Content-Length': str(SIZE)})
        response.read()
        elapsed = time.perf_counter() - start
    conn.close()
    assert response.status == 204, response.status
    return image_id, elapsed


def _download(client, image_id, target):
    conn, response = client.request('GET', '/image/v2/images/%s/file' % image_id)
    with open(target, 'wb') as out:
        for chunk in iter(lambda: response.read(CHUNK), b''):
            out.write(chunk)
        out.flush()
        os.fsync(out.fileno())
    conn.close()


def _rate(size, seconds):
    return size / seconds / 2 ** 20


def run():
    with common.deployment('test:///default') as (root, _compute):
        source, copied = root / 'source.img', root / 'copied.img'
        _random_file(source, SIZE)
        identity.bootstrap('provisioner-service', SERVICE_PASSWORD, 'service',
                           role='service')
        server = cheroot_wsgi.Server(('127.0.0.1', 0),
                                     app.build_app(deployments.all_in_one()),
                                     numthreads=4)
        server.prepare()
        thread = threading.Thread(target=server.serve, daemon=True)
        thread.start()
        try:
            port = server.bind_addr[1]
            client = _Client(port)
            client.token = _token(client, 'admin', 'bench', 'admin')
            common.CONF.set_override('auth_url', 'http://127.0.0.1:%d/identity' % port,
                                     'image_service')
            common.CONF.set_override('password', SERVICE_PASSWORD, 'image_service')
            copy, upload, download, fetch = [], [], [], []
            for run_index in range(RUNS):
                copy.append(_timed(_copy, source, copied))
                os.unlink(copied)
                image_id, elapsed = _upload(client, source, 'bench-%d' % run_index)
                upload.append(elapsed)
                download.append(_timed(_download, client, image_id, copied))
                os.unlink(copied)
                cache = image_cache.ImageCache(str(root / ('cache-%d' % run_index)))
                wanted = fetcher.ImageFile(image_id, 'disk',
                                           image_cache.file_sha256(str(source)))
                fetch.append(_timed(fetcher.fetch, cache, wanted))
            hits = []
            for _ in range(HIT_RUNS):
                start = time.perf_counter()
                fetcher.fetch(cache, wanted)
                hits.append((time.perf_counter() - start) * 1000)
        finally:
            server.stop()
    plain = statistics.median(copy)
    print('image of %d MiB, warm page cache, median of %d runs:' % (SIZE >> 20, RUNS))
    print('  plain file copy (read, write, fsync)     %7.0f MiB/s'
          % _rate(SIZE, plain))
    for label, samples in (('upload (PUT .../file: md5+sha256+sha512)', upload),
                           ('download (GET .../file into a file)', download),
                           ('host fetch (GET + sha256 into the cache)', fetch)):
        seconds = statistics.median(samples)
        print('  %-41s %7.0f MiB/s = %.2f x the plain copy'
              % (label, _rate(SIZE, seconds), plain / seconds))
    print('  cache hit (a boot of a cached image)     median %.0f us, p99 %.0f us '
          '(n=%d)' % (statistics.median(hits) * 1000,
                      sorted(hits)[int(0.99 * (len(hits) - 1))] * 1000, len(hits)),
          flush=True)
    return copy, upload, download, fetch, hits
