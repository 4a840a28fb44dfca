"""provisioner-api in distributed mode, over this directory's deployment (dcloud).

The API records each request and posts its flow to the jobboard; two engines run the
flows and two workers the guests. The client machine holds no database, broker or
jobboard settings: the provisioner CLI (OS_AUTH_URL) and the `openstack` client
reach the cloud through the REST API only.
"""

import json
import os
import subprocess
import sys
import time
import types

import pytest

from tests import deployment
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
