"""provisioner-api in distributed mode, over this directory's deployment (dcloud).

The API records each request and posts its flow to the jobboard; two engines run the
flows and two workers the guests. The client machine holds no database, broker or
jobboard settings: the provisioner CLI (OS_AUTH_URL) and the `openstack` client
reach the cloud through the REST API only.
"""

import ipaddress
import json
import os
import subprocess
import sys
import time
import types

import pytest

from tests import deployment
from tests import netutil
from tests.functional import conftest as base
from tests.functional.api import conftest as api
# The distributed deployment's fixtures (PostgreSQL, RabbitMQ, Redis, 2 workers).
from tests.functional.distributed import conftest as distributed

API_HOST = 'func-api'
SECOND_ENGINE = 'func-engine-api-b'
WORKERS = {'func-worker-a', 'func-worker-b'}


class RestCLI:
    """The provisioner CLI on a client machine: OS_* settings and nothing else."""

    def __init__(self, client_dir, url):
        self.config_file = client_dir / 'client.conf'
        # A state_path of its own that stays empty: a CLI falling back to a local
        # database would find no flavor, image or network there.
        self.state_path = client_dir / 'state'
        self.config_file.write_text('[DEFAULT]\nstate_path = %s\n[token]\n'
                                    'cache_dir = %s\n'
                                    % (self.state_path, client_dir / 'token-cache'))
        self.env = {key: value for key, value in os.environ.items()
                    if not key.startswith('OS_')}
        self.env.update(OS_AUTH_URL=url + '/identity', OS_USERNAME=api.USER,
                        OS_PASSWORD=api.PASSWORD, OS_PROJECT_NAME=api.PROJECT,
                        PYTHONWARNINGS='ignore')

    def __call__(self, *args, check=True, timeout=300):
        result = subprocess.run(
            [sys.executable, '-m', 'provisioner.cmd.cli', '--config-file',
             str(self.config_file)] + [str(a) for a in args],
            capture_output=True, text=True, timeout=timeout, env=self.env, cwd=base.REPO)
        if check and result.returncode != 0:
            raise AssertionError('provisioner %s failed (%d):\n%s\n%s'
                                 % (' '.join(map(str, args)), result.returncode,
                                    result.stdout, result.stderr))
        return result

    def json(self, *args):
        return json.loads(self(*args, '--format', 'json').stdout)


@pytest.fixture(scope='module')
def dapi(request, tmp_path_factory):
    """A distributed provisioner-api, two engines, and a client machine's settings."""
    cloud = request.getfixturevalue('dcloud')
    started = cloud.ensure_engine()  # the first engine; and a second one
    port = deployment.free_port()
    url = 'http://127.0.0.1:%d' % port
    cloud.start('api', API_HOST, extra_conf=deployment.api_conf(port))
    cloud.wait_for_log(API_HOST, 'provisioner-api (distributed) ready')
    cloud.start('engine', SECOND_ENGINE)
    client_dir = tmp_path_factory.mktemp('client-machine')
    try:
        yield types.SimpleNamespace(
            cloud=cloud, url=url, cli=RestCLI(client_dir, url),
            openstack=api.OpenStackCLI(api.write_clouds_yaml(client_dir / 'clouds.yaml',
                                                             url)))
    finally:
        cloud.retire(SECOND_ENGINE)
        cloud.retire(API_HOST)
        if started:
            cloud.retire(distributed.MAIN_ENGINE)


def _host_of(cloud, server_id):
    [(host,)] = cloud.query('SELECT host FROM instances WHERE id = ?', (server_id,))
    return host


def test_provisioner_cli_without_database_or_broker_settings(dapi):
    cloud = dapi.cloud
    cli = dapi.cli
    assert 'tiny' in [f['name'] for f in cli.json('flavor', 'list')]

    cli('boot', 'dapi-cli', '--flavor', 'tiny', '--image', 'guest', '--network', 'net1')
    shown = cli.json('show', 'dapi-cli')
    try:
        assert shown['name'] == 'dapi-cli'
        assert shown['vm_state'] == 'active', shown
        assert _host_of(cloud, shown['id']) in WORKERS  # recorded in the real cloud
        assert 'dapi-cli' in [i['name'] for i in cli.json('list')]

        deadline = time.monotonic() + base.CONSOLE_TIMEOUT
        while 'PROVISIONER-GUEST: ready' not in cli('console', 'dapi-cli').stdout:
            assert time.monotonic() < deadline, cli('console', 'dapi-cli').stdout
            time.sleep(2)
        guest = api.markers(cli('console', 'dapi-cli').stdout)
        assert guest['uuid'] == shown['id']

        instance = cloud.show(shown['id'])  # what leftovers() needs, from the DB
        assert guest['ip'] == instance['addresses'][0]['ip']
        cli('delete', 'dapi-cli')
        assert cloud.leftovers(instance) == []
        assert 'dapi-cli' not in [i['name'] for i in cli.json('list')]
    finally:
        cli('delete', 'dapi-cli', check=False)
    assert not dapi.cli.state_path.exists() or not any(dapi.cli.state_path.iterdir())


def test_openstack_client_boots_and_deletes_through_the_distributed_api(dapi):
    cloud = dapi.cloud
    openstack = dapi.openstack
    created = openstack.json('server', 'create', '--flavor', 'tiny', '--image', 'guest',
                             '--network', 'net1', '--wait', 'dapi-osc')
    try:
        assert created['status'] == 'ACTIVE'
        assert _host_of(cloud, created['id']) in WORKERS
        guest = openstack.wait_for_console(created['id'])
        assert [guest['ip']] == created['addresses']['net1']
        instance = cloud.show(created['id'])
        openstack.run('server', 'delete', '--wait', created['id'])
        assert cloud.leftovers(instance) == []
    finally:
        openstack.run('server', 'delete', '--wait', created['id'], check=False)


CRASHING_ENGINE = 'func-engine-crash'


def test_volume_attach_detach_and_an_engine_killed_during_an_attach(dapi):
    """`volume create`, `server add volume` (the guest sees the disk), `server
    remove volume`, `volume delete` through the distributed API; then the engine
    running an attach is killed (-9) right after the worker plugged the disk in,
    and a restarted engine finishes it. Nothing stays in the domain's XML."""
    from tests.functional.api import test_volumes as volumes
    cloud, openstack, http = dapi.cloud, dapi.openstack, api.Http(dapi.url)
    server = openstack.json('server', 'create', '--flavor', 'tiny', '--image', 'guest',
                            '--network', 'net1', 'dapi-vol')['id']
    volume = openstack.json('volume', 'create', '--size', '1', 'dapi-vol')['id']
    in_xml = lambda: any('volume-%s' % volume in disk  # noqa: E731
                         for disk in volumes._domain_disks(server, lambda: (
                             cloud.hypervisor(_host_of(cloud, server)))))
    try:
        volumes._wait('the guest to boot', lambda: 'ready' in volumes._markers(
            http, server), timeout=base.CONSOLE_TIMEOUT)
        openstack.run('server', 'add', 'volume', server, volume)
        shown = volumes._wait_for_volume(http, volume, 'in-use')
        device = shown['attachments'][0]['device'].removeprefix('/dev/')
        volumes._wait('the guest to see %s' % device,
                      lambda: device in volumes._disks(http, server))
        assert in_xml()
        openstack.run('server', 'remove', 'volume', server, volume)
        volumes._wait_for_volume(http, volume, 'available')
        volumes._wait('the guest to let %s go' % device,
                      lambda: device not in volumes._disks(http, server))
        assert not in_xml()

        cloud.retire(SECOND_ENGINE)
        cloud.retire(distributed.MAIN_ENGINE)
        cloud.start('engine', CRASHING_ENGINE,
                    extra_conf='[fault_injection]\ncrash_after_step = plug-volume\n')
        openstack.run('server', 'add', 'volume', server, volume)
        assert cloud.wait_exit(CRASHING_ENGINE) == -9
        assert in_xml()  # plugged in by the worker, never recorded
        assert volumes._volume(http, volume)['status'] == 'attaching'
        cloud.start('engine', distributed.MAIN_ENGINE)
        cloud.start('engine', SECOND_ENGINE)
        volumes._wait_for_volume(http, volume, 'in-use')
        openstack.run('server', 'remove', 'volume', server, volume)
        volumes._wait_for_volume(http, volume, 'available')
        assert not in_xml()
        openstack.run('volume', 'delete', volume)
        volumes._wait('volume %s to go' % volume,
                      lambda: volumes._volume(http, volume) is None)
    finally:
        if CRASHING_ENGINE in cloud.processes:
            cloud.retire(CRASHING_ENGINE)
        for engine in (distributed.MAIN_ENGINE, SECOND_ENGINE):
            if engine not in cloud.processes:
                cloud.start('engine', engine)
        openstack.run('server', 'delete', '--wait', server, check=False)
        openstack.run('volume', 'delete', volume, check=False)


def _libvirt_networks_of(cloud, network_id):
    """{name: XML} of the libvirt networks made for the network (on any host)."""
    found = {}
    for conn in cloud.hypervisors():
        try:
            found.update((n.name(), n.XMLDesc(0)) for n in conn.listAllNetworks()
                         if network_id in n.name())
        finally:
            conn.close()
    return found


def test_a_port_made_first_gives_a_boot_exactly_its_address(dapi):
    """network create, subnet create, port create --fixed-ip, server create --nic
    port-id=: the guest leases that IP; the port outlives its server; then nothing of
    the network is left, on any host."""
    openstack = dapi.openstack
    cidr = ipaddress.ip_network(netutil.free_cidr(249))
    wanted = str(cidr[77])
    net = openstack.json('network', 'create', 'dapi-net')
    try:
        subnet = openstack.json('subnet', 'create', '--network', 'dapi-net',
                                '--subnet-range', str(cidr),
                                '--dns-nameserver', '192.0.2.53', 'dapi-subnet')
        assert (subnet['gateway_ip'], subnet['dns_nameservers']) == (str(cidr[1]),
                                                                   ['192.0.2.53'])
        port = openstack.json('port', 'create', '--network', 'dapi-net', '--fixed-ip',
                              'subnet=dapi-subnet,ip-address=%s' % wanted, 'dapi-port')
        refused = openstack.run('port', 'create', '--network', 'dapi-net', '--fixed-ip',
                                'subnet=dapi-subnet,ip-address=%s' % wanted, 'again',
                                check=False)
        assert refused.returncode != 0 and 'already allocated' in refused.stderr
        server = openstack.json('server', 'create', '--flavor', 'tiny', '--image',
                                'guest', '--nic', 'port-id=%s' % port['id'], '--wait',
                                'dapi-port-vm')
        assert server['addresses'] == {'dapi-net': [wanted]}
        assert openstack.wait_for_console(server['id'])['ip'] == wanted
        assert openstack.json('port', 'show', port['id'])['device_id'] == server['id']
        # The host made the subnet's network on first use: its bridge, and its DHCP
        # server's files with the DNS server and the port's entry.
        assert len(_libvirt_networks_of(dapi.cloud, net['id'])) == 1
        [opts] = dapi.cloud.root.glob('**/dhcp/*/%s/opts' % net['id'])
        [hosts] = dapi.cloud.root.glob('**/dhcp/*/%s/hosts' % net['id'])
        assert 'option:dns-server,192.0.2.53' in opts.read_text()
        assert port['mac_address'] in hosts.read_text()
        openstack.run('server', 'delete', '--wait', server['id'])
        kept = openstack.json('port', 'show', port['id'])
        assert kept['device_id'] == '' and kept['fixed_ips'] == [
            {'subnet_id': subnet['id'], 'ip_address': wanted}]
        openstack.run('port', 'delete', port['id'])
        openstack.run('subnet', 'delete', subnet['id'])
        openstack.run('network', 'delete', net['id'])
        assert 'dapi-net' not in openstack.run('network', 'list').stdout
        assert _libvirt_networks_of(dapi.cloud, net['id']) == {}
        assert dapi.cloud.query('SELECT id FROM ports WHERE network_id = ?',
                                (net['id'],)) == []
    finally:
        openstack.run('server', 'delete', '--wait', 'dapi-port-vm', check=False)
        openstack.run('port', 'delete', 'dapi-port', check=False)
        openstack.run('network', 'delete', 'dapi-net', check=False)


def test_a_snapshot_is_uploaded_by_the_servers_host_and_boots(dapi):
    """createImage distributed: the server's host captures its disk and uploads it
    through the image API as the service user; the image boots on any host."""
    cloud, openstack = dapi.cloud, dapi.openstack
    source = openstack.json('server', 'create', '--flavor', 'tiny', '--image', 'guest',
                            '--network', 'net1', '--wait', 'dapi-snap-src')
    snapshot = copy = None
    try:
        openstack.wait_for_console(source['id'])
        snapshot = openstack.json('server', 'image', 'create', '--name', 'dapi-snap',
                                  '--wait', source['id'])
        image = openstack.json('image', 'show', snapshot['id'])
        assert (image['status'], image['disk_format']) == ('active', 'qcow2')
        assert image['properties']['instance_uuid'] == source['id']
        host = _host_of(cloud, source['id'])
        assert 'Uploaded the data of image %s' % snapshot['id'] in \
            cloud.log_path(host).read_text()
        copy = openstack.json('server', 'create', '--flavor', 'tiny', '--image',
                              snapshot['id'], '--network', 'net1', '--wait',
                              'dapi-snap-copy')
        assert openstack.wait_for_console(copy['id'])['uuid'] == copy['id']
    finally:
        for made in (copy, source):
            if made is not None:
                openstack.run('server', 'delete', '--wait', made['id'], check=False)
        if snapshot is not None:
            openstack.run('image', 'delete', snapshot['id'], check=False)
