"""Nova's os-migrateLive through the WSGI app: what is refused and changes nothing,
and what a migration that fails on the hypervisor leaves (the server where it ran,
the destination's claim given back, the migration in error). Flows run inline on
libvirt's test:/// driver, whose domains cannot migrate: the real move is
tests/functional/distributed/test_live_migration.py's.
"""

import pytest
import sqlalchemy as sa

from provisioner.catalog import hosts
from provisioner.compute import instances
from provisioner.compute import migrations
from provisioner.db import api as db_api
from provisioner.db import models
from provisioner.virt import live_migration

from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture
from tests.unit import fixtures

V = '/compute/v2.1'
OTHER = 'host-b'


def _boot_with_another_host(application, cloud):  # noqa: F811
    """A server booted on this host, then a second host (not chosen by the boot)."""
    server_id = boot(application, cloud)
    hosts.report_capacity(OTHER, {'vcpus': 8, 'memory_mib': 8192, 'disk_gib': 100,
                                  'hypervisor_type': 'QEMU', 'arch': 'x86_64',
                                  'underlay_ip': '192.0.2.2'})
    return server_id


def _migrate(application, server_id, token, body, version='2.30'):  # noqa: F811
    return call(application, 'POST', V + '/servers/%s/action' % server_id,
                {'os-migrateLive': body}, token,
                headers={'OpenStack-API-Version': 'compute %s' % version})


def _server(application, server_id, token):  # noqa: F811
    return call(application, 'GET', V + '/servers/' + server_id,
                token=token).json['server']


def _usage():
    with db_api.transaction() as session:
        return dict(session.execute(sa.select(models.Host.name,
                                              models.Host.vcpus_used)).all())


def _migrations(application, token, path='/os-migrations', version='2.80'):  # noqa: F811
    response = call(application, 'GET', V + path, token=token,
                    headers={'OpenStack-API-Version': 'compute %s' % version})
    assert response.status_int == 200, response.text
    return response.json['migrations']


@pytest.mark.parametrize('body, status, says', [
    ({'host': 'SELF', 'block_migration': 'auto'}, 400, 'to current host'),
    ({'host': 'nowhere', 'block_migration': 'auto'}, 400, 'could not be found'),
    ({'host': OTHER, 'block_migration': True}, 400, 'Block migration is not'),
    ({'host': OTHER}, 400, 'block_migration'),
    ({'host': OTHER, 'block_migration': 'auto', 'disk_over_commit': False}, 400, ''),
])
def test_refused_migrations_change_nothing(application, cloud, body, status, says):  # noqa: F811
    server_id = _boot_with_another_host(application, cloud)
    server = _server(application, server_id, cloud['token'])
    source = server['OS-EXT-SRV-ATTR:host']
    if body['host'] == 'SELF':
        body = dict(body, host=source)
    usage = _usage()
    response = _migrate(application, server_id, cloud['token'], body)
    assert response.status_int == status, response.text
    assert says in response.text
    after = _server(application, server_id, cloud['token'])
    assert (after['status'], after['OS-EXT-SRV-ATTR:host']) == ('ACTIVE', source)
    assert _usage() == usage
    assert _migrations(application, cloud['token']) == []


def test_a_disabled_host_is_refused_unless_forced_before_268(
        application, cloud):  # noqa: F811
    server_id = _boot_with_another_host(application, cloud)
    hosts.update(OTHER, enabled=False, disabled_reason='maintenance')
    body = {'host': OTHER, 'block_migration': 'auto'}
    response = _migrate(application, server_id, cloud['token'], body)
    assert response.status_int == 400 and 'unavailable' in response.text
    assert _migrate(application, server_id, cloud['token'], dict(body, force=True),
                    version='2.68').status_int == 400  # no force from 2.68
    assert _migrations(application, cloud['token']) == []


def test_a_server_that_is_not_active_is_a_conflict(application, cloud):  # noqa: F811
    server_id = _boot_with_another_host(application, cloud)
    call(application, 'POST', V + '/servers/%s/action' % server_id, {'os-stop': None},
         cloud['token'])
    response = _migrate(application, server_id, cloud['token'],
                        {'host': OTHER, 'block_migration': 'auto'})
    assert response.status_int == 409, response.text
    assert "Cannot 'os-migrateLive'" in response.text


def test_2_1_needs_disk_over_commit(application, cloud):  # noqa: F811
    server_id = _boot_with_another_host(application, cloud)
    response = _migrate(application, server_id, cloud['token'],
                        {'host': OTHER, 'block_migration': 'auto'}, version='2.1')
    assert response.status_int == 400


def test_a_migration_the_hypervisor_fails_leaves_the_server_where_it_ran(
        application, cloud):  # noqa: F811
    server_id = _boot_with_another_host(application, cloud)
    source = _server(application, server_id, cloud['token'])['OS-EXT-SRV-ATTR:host']
    usage = _usage()
    response = _migrate(application, server_id, cloud['token'],
                        {'host': None, 'block_migration': 'auto'}, version='2.25')
    assert response.status_int == 202, response.text
    server = _server(application, server_id, cloud['token'])
    assert (server['status'], server['OS-EXT-SRV-ATTR:host']) == ('ACTIVE', source)
    assert _usage() == usage  # the destination's claim went back
    [migration] = _migrations(application, cloud['token'])
    assert (migration['status'], migration['source_compute'],
            migration['dest_compute'], migration['migration_type'],
            migration['dest_host']) == ('error', source, OTHER, 'live-migration',
                                        '192.0.2.2')
    assert migration['instance_uuid'] == server_id and 'links' not in migration
    assert _migrations(application, cloud['token'],
                       '/servers/%s/migrations' % server_id, '2.23') == []
    actions = call(application, 'GET', V + '/servers/%s/os-instance-actions'
                   % server_id, token=cloud['token']).json['instanceActions']
    assert actions[0]['action'] == 'live-migration'
    assert actions[0]['message'].startswith('Error')


def test_destination_xml_names_the_destinations_files():
    xml = ("<domain><os><kernel>/a/k</kernel></os><devices>"
           "<disk type='file' device='cdrom'><source file='/a/disk.config'/></disk>"
           "<serial type='file'><source path='/a/console.log' append='on'/></serial>"
           "</devices></domain>")
    moved = live_migration.destination_xml(xml, {'/a/k': '/b/k',
                                                 '/a/disk.config': '/b/disk.config',
                                                 '/a/console.log': '/b/console.log'})
    assert '/a/' not in moved and moved.count('/b/') == 3
    assert "append=\"on\"" in moved
    assert live_migration.local_disks(xml) == []
    assert live_migration.local_disks(
        "<domain><devices><disk type='file' device='disk'><source file='/a/root'/>"
        "</disk></devices></domain>") == ['/a/root']


class _Recording(fixtures.InlineDispatcher):
    """Runs boots; keeps an action's flow for the test to drive step by step."""

    def __init__(self):
        self.actions = []

    def run_action(self, instance_id, action_id):
        self.actions.append(action_id)


@pytest.mark.parametrize('claimed_first', [True, False])
def test_the_claims_follow_the_server_once_and_only_once(
        application, cloud, claimed_first):  # noqa: F811
    server_id = _boot_with_another_host(application, cloud)
    source = _server(application, server_id, cloud['token'])['OS-EXT-SRV-ATTR:host']
    dispatcher = _Recording()
    fixtures.with_dispatcher(application, dispatcher)
    response = _migrate(application, server_id, cloud['token'],
                        {'host': OTHER, 'block_migration': 'auto'})
    assert response.status_int == 202, response.text
    [action_id] = dispatcher.actions
    assert _server(application, server_id, cloud['token'])['status'] == 'MIGRATING'
    assert _usage() == {source: 1, OTHER: 0}
    if claimed_first:  # else: an engine died between the claim and its record
        assert migrations.claim_target(action_id) == OTHER
        assert migrations.claim_target(action_id) == OTHER  # a step run again
        assert _usage() == {source: 1, OTHER: 1}
        assert _migrations(application, cloud['token'], '/servers/%s/migrations'
                           % server_id, '2.23')[0]['status'] == 'preparing'
    for _ in range(2):  # the record run again changes nothing more
        migrations.conclude(action_id, '/elsewhere/console.log')
        assert _usage() == {source: 0, OTHER: 1}
    server = _server(application, server_id, cloud['token'])
    assert (server['status'], server['OS-EXT-SRV-ATTR:host']) == ('ACTIVE', OTHER)
    assert instances.current_request(server_id).vcpus == 1
    with db_api.transaction() as session:
        row = session.get(models.Instance, server_id)
        assert row.request_spec['console_log'] == '/elsewhere/console.log'
    [migration] = _migrations(application, cloud['token'])
    assert migration['status'] == 'completed'
