"""The REST API's own cost: token issue, server show, and a list of 1,000 servers.

provisioner-api's WSGI application runs on cheroot in this process, on loopback, as
the daemon serves it (all-in-one: SQLite; start-up's objects frozen out of the
garbage collector, as provisioner-api does once it is ready). Requests go through
http.client on one kept-alive connection, so what is measured is the server's work
plus one loopback round trip. The 1,000 servers are rows written straight into the
database (each with a port on a network and a volume): listing cost does not depend
on how they were booted. The list is read at the microversions clients use: 2.1
(none asked for), and 2.90 (openstacksdk and the CLI ask for their latest; the
flavor embedded, tags, server groups, the hostname).
"""

import contextlib
import gc
import http.client
import json
import statistics
import threading
import time
import uuid

from cheroot import wsgi as cheroot_wsgi
import sqlalchemy as sa

from provisioner.api import app
from provisioner.catalog import flavors
from provisioner.catalog import images
from provisioner.cmd import api as api_cmd
from provisioner.network import shared as networks
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.engine import deployments
from provisioner import virt
from tests.bench import common

SERVERS = 1000
RUNS = 50
LIST_RUNS = 20
LIST_VERSIONS = ('2.1', '2.90')
WARMUP = 3  # first requests pay one-time costs (SQL compilation caches, imports)


def _percentile(samples, fraction):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def _report(label, samples):
    print('%-44s median %.1f ms, p99 %.1f ms (n=%d)'
          % (label, statistics.median(samples), _percentile(samples, 0.99),
             len(samples)), flush=True)


def seed_servers(context, count):
    with db_api.transaction() as session:
        flavor = session.execute(sa.select(models.Flavor)).scalar()
        image = session.execute(sa.select(models.Image)).scalar()
        network = session.execute(sa.select(models.Network)).scalar()
        instance_rows, port_rows, volume_rows = [], [], []
        for index in range(count):
            instance_id = str(uuid.uuid4())
            instance_rows.append(dict(
                id=instance_id, name='bench-%04d' % index, project_id=context.project_id,
                user_id=context.user_id, flavor_id=flavor.id, image_id=image.id,
                request_spec={'network_ids': [network.id], 'volume_sizes': [1]},
                vm_state='active', task_state=None, power_state='running',
                host='bench-host', created_at=models.utcnow(),
                updated_at=models.utcnow()))
            port_rows.append(dict(
                id=str(uuid.uuid4()), instance_id=instance_id, network_id=network.id,
                ip='10.99.%d.%d' % (index // 250, index % 250 + 2),
                mac='fa:16:3e:00:%02x:%02x' % (index // 256, index % 256),
                created_at=models.utcnow()))
            volume_rows.append(dict(
                id=str(uuid.uuid4()), instance_id=instance_id,
                project_id=context.project_id, index=0, size_gib=1, status='in-use',
                created_at=models.utcnow()))
        session.execute(sa.insert(models.Instance), instance_rows)
        session.execute(sa.insert(models.Port), port_rows)
        session.execute(sa.insert(models.Volume), volume_rows)
        return instance_rows[0]['id']


class _Client:
    def __init__(self, port):
        self._conn = http.client.HTTPConnection('127.0.0.1', port, timeout=60)

    def request(self, method, path, body=None, headers=None):
        start = time.perf_counter()
        self._conn.request(method, path, body=json.dumps(body) if body else None,
                           headers=dict({'Content-Type': 'application/json'},
                                        **(headers or {})))
        response = self._conn.getresponse()
        data = response.read()
        elapsed = (time.perf_counter() - start) * 1000
        if response.status >= 400:
            raise RuntimeError('%s %s: %d %s' % (method, path, response.status, data))
        return elapsed, response, data


@contextlib.contextmanager
def serving(count, root=None):
    """A test:/// deployment with ``count`` servers, served on loopback by
    provisioner-api's application: (deployment root, libvirt node file, port, the
    id of one server)."""
    with common.deployment('test:///default', root) as (root, compute):
        node = root / 'node.xml'
        node.write_text('<node/>')
        common.CONF.set_override('connection_uri', 'test://%s' % node, 'libvirt')
        virt.reset_driver()
        kernel = root / 'vmlinuz'
        kernel.write_bytes(b'k' * 4096)
        flavors.create('tiny', 1, 128, 1)
        images.create('guest', kernel=str(kernel))
        networks.create(virt.get_driver(), 'net1', '10.99.0.0/16')
        server_id = seed_servers(compute.context, count)
        server = cheroot_wsgi.Server(('127.0.0.1', 0),
                                     app.build_app(deployments.all_in_one()),
                                     numthreads=4)
        server.prepare()
        threshold = gc.get_threshold()
        api_cmd.freeze_start_up()
        thread = threading.Thread(target=server.serve, daemon=True)
        thread.start()
        try:
            yield root, node, server.bind_addr[1], server_id
        finally:
            server.stop()
            gc.unfreeze()
            gc.set_threshold(*threshold)


def run():
    with serving(SERVERS) as (_root, _node, port, server_id):
        client = _Client(port)
        auth = {'auth': {'identity': {'methods': ['password'], 'password': {
            'user': {'name': 'admin', 'password': 'bench',
                     'domain': {'name': 'Default'}}}},
            'scope': {'project': {'name': 'admin',
                                  'domain': {'name': 'Default'}}}}}
        issue = []
        for _ in range(WARMUP + RUNS):
            elapsed, response, _ = client.request('POST',
                                                  '/identity/v3/auth/tokens', auth)
            issue.append(elapsed)
        token = {'X-Auth-Token': response.getheader('X-Subject-Token')}
        show = [client.request('GET', '/compute/v2.1/servers/%s' % server_id,
                               headers=token)[0] for _ in range(WARMUP + RUNS)]
        listings = {}
        for version in LIST_VERSIONS:
            headers = dict(token, **{'OpenStack-API-Version': 'compute %s' % version})
            listing = []
            for _ in range(WARMUP + LIST_RUNS):
                elapsed, _, data = client.request(
                    'GET', '/compute/v2.1/servers/detail?limit=%d' % SERVERS,
                    headers=headers)
                listing.append(elapsed)
            listings[version] = listing[WARMUP:]
            assert len(json.loads(data)['servers']) == SERVERS
        issue, show = issue[WARMUP:], show[WARMUP:]
    _report('token issue (POST /v3/auth/tokens)', issue)
    _report('server show (GET /servers/{id})', show)
    for version, listing in listings.items():
        _report('server list, %d servers, %s (GET /servers/detail)'
                % (SERVERS, version), listing)
    return issue, show, listings['2.1']
