"""The flow extension: an instance action's flow, its links and live states."""

from provisioner.compute import instances
from provisioner.db import api as db_api
from provisioner.engine import runner

from tests.unit.api import test_servers
from tests.unit.api.test_servers import boot, call
from tests.unit import fixtures

# The servers tests' fixtures: a cloud on test:/// whose flows run in the request.
cloud = test_servers.cloud
application = test_servers.application


def actions_of(application, cloud, server_id):
    # 2.21: a deleted server's actions are shown too.
    response = call(application, 'GET', '/compute/v2.1/servers/%s/os-instance-actions'
                    % server_id, token=cloud['token'],
                    headers={'OpenStack-API-Version': 'compute 2.51'})
    assert response.status_int == 200, response.text
    return {a['action']: a['request_id'] for a in response.json['instanceActions']}


def flow_of(application, cloud, server_id, request_id, token=None, status=200):
    response = call(application, 'GET',
                    '/compute/v2.1/servers/%s/os-instance-actions/%s/flow'
                    % (server_id, request_id), token=token or cloud['token'])
    assert response.status_int == status, response.text
    return response.json.get('flow')


def atoms_by_name(flow):
    return {atom['name']: atom for atom in flow['atoms']}


def links(flow):
    return {(link['from'], link['to']) for link in flow['links']}


def test_a_boot_flow_has_every_atom_done_and_the_boot_links(application, cloud):
    server_id = boot(application, cloud)
    request_id = actions_of(application, cloud, server_id)['create']
    flow = flow_of(application, cloud, server_id, request_id)
    assert flow['name'] == 'boot-instance'
    assert flow['action'] == 'create'
    assert flow['request_id'] == request_id
    assert flow['state'] == 'SUCCESS'
    atoms = atoms_by_name(flow)
    assert list(atoms)[:4] == ['instance-lifecycle-guard', 'hold-quota', 'select-hosts',
                               'reschedule']
    assert {a['state'] for a in flow['atoms']} == {'done'}
    assert atoms['reschedule']['kind'] == 'retry'
    assert atoms['fetch-image']['kind'] == 'task'
    assert atoms['fetch-image']['group'] == 'prepare-resources'
    assert atoms['claim-resources']['group'] == 'reschedule-flow'
    assert atoms['mark-active']['group'] is None
    for name in ('fetch-image', 'mark-active'):
        assert atoms[name]['started_at'].endswith('Z')
        assert atoms[name]['finished_at'] >= atoms[name]['started_at']
        assert atoms[name]['host']
        assert atoms[name]['attempt'] == 1
    assert {('select-hosts', 'reschedule'), ('reschedule', 'claim-resources'),
            ('claim-resources', 'fetch-image'), ('claim-resources', 'allocate-ports'),
            ('fetch-image', 'create-root-disk'), ('allocate-ports', 'reserve-dhcp'),
            ('allocate-ports', 'create-volumes'), ('create-root-disk', 'define-domain'),
            ('create-volumes', 'define-domain'),
            ('wait-for-boot', 'mark-active')} <= links(flow)
    # Links join atoms only: no flow start/end nodes.
    names = set(atoms)
    assert all(a in names and b in names for a, b in links(flow))
    groups = {g['name']: g for g in flow['groups']}
    assert groups['reschedule-flow'] == {'name': 'reschedule-flow', 'kind': 'linear',
                                         'retry': 'reschedule', 'parent': None}
    assert groups['prepare-resources']['kind'] == 'graph'
    assert groups['prepare-resources']['parent'] == 'reschedule-flow'
    assert flow['attempts'] == [{'attempt': 1, 'host': flow['attempts'][0]['host'],
                                 'failed': False, 'error': None}]
    assert flow['attempts'][0]['host']
    executed = [s['atom'] for s in flow['steps'] if s['phase'] == 'execute']
    assert 'fetch-image' in executed and 'mark-active' == executed[-1]
    assert all(s['result'] == 'Success' and s['request_id'] == request_id
               for s in flow['steps'])


def test_a_failed_boot_shows_the_failed_atom_and_its_reverts(application, cloud, conf):
    conf.set_override('fail_after_step', ['create-root-disk'], 'fault_injection')
    server_id = boot(application, cloud)
    request_id = actions_of(application, cloud, server_id)['create']
    flow = flow_of(application, cloud, server_id, request_id)
    atoms = atoms_by_name(flow)
    assert flow['state'] == 'REVERTED'
    assert atoms['create-root-disk']['state'] == 'reverted'
    assert 'create-root-disk' in atoms['create-root-disk']['error']
    assert atoms['fetch-image']['error'] is None
    assert atoms['fetch-image']['state'] == 'reverted'
    assert atoms['instance-lifecycle-guard']['state'] == 'reverted'
    assert atoms['mark-active']['state'] == 'pending'
    assert atoms['define-domain']['state'] == 'pending'
    failed = [s for s in flow['steps'] if s['result'] == 'Error']
    assert failed[0]['atom'] == 'create-root-disk'
    assert 'create-root-disk' in failed[0]['error']
    reverts = {s['atom'] for s in flow['steps'] if s['phase'] == 'revert'}
    assert {'fetch-image', 'claim-resources', 'instance-lifecycle-guard'} <= reverts
    assert flow['attempts'][0]['failed'] is True
    assert 'create-root-disk' in flow['attempts'][0]['error']


def test_a_rescheduled_boot_shows_each_attempt(application, cloud, conf):
    # A host fault is rescheduled; with one host, the second attempt finds none.
    conf.set_override('fail_after_step', ['define-domain@*'], 'fault_injection')
    server_id = boot(application, cloud)
    flow = flow_of(application, cloud, server_id,
                   actions_of(application, cloud, server_id)['create'])
    assert flow['state'] == 'REVERTED'
    first, second = flow['attempts']
    assert first['attempt'] == 1 and first['failed'] and first['host']
    assert first['error'].startswith('define-domain: Injected fault')
    assert second['attempt'] == 2 and second['failed']
    assert second['error'].startswith('claim-resources: No valid host')
    steps = [(s['atom'], s['phase'], s['result'], s['attempt']) for s in flow['steps']]
    assert ('define-domain', 'execute', 'Error', 1) in steps
    assert ('define-domain', 'revert', 'Success', 1) in steps
    assert ('reschedule', 'execute', 'Success', 2) in steps
    assert ('claim-resources', 'execute', 'Error', 2) in steps
    atoms = atoms_by_name(flow)
    assert atoms['claim-resources']['state'] == 'reverted'
    assert atoms['claim-resources']['attempt'] == 2
    assert atoms['claim-resources']['error'].startswith('No valid host')
    assert atoms['define-domain']['state'] == 'pending'  # never reached in attempt 2


def test_a_stop_actions_flow(application, cloud):
    server_id = boot(application, cloud)
    response = call(application, 'POST', '/compute/v2.1/servers/%s/action' % server_id,
                    {'os-stop': None}, cloud['token'])
    assert response.status_int == 202, response.text
    request_id = actions_of(application, cloud, server_id)['stop']
    flow = flow_of(application, cloud, server_id, request_id)
    assert flow['name'] == 'stop-instance'
    assert flow['action'] == 'stop'
    assert flow['state'] == 'SUCCESS'
    assert [a['name'] for a in flow['atoms']] == ['power-action-guard',
                                                  'power-off-domain',
                                                  'record-power-state']
    assert {a['state'] for a in flow['atoms']} == {'done'}
    assert links(flow) == {('power-action-guard', 'power-off-domain'),
                           ('power-off-domain', 'record-power-state')}
    assert flow['groups'] == [] and flow['attempts'] == []


def test_the_delete_flow_from_its_events(application, cloud):
    server_id = boot(application, cloud)
    create_id = actions_of(application, cloud, server_id)['create']
    response = call(application, 'DELETE', '/compute/v2.1/servers/%s' % server_id,
                    token=cloud['token'])
    assert response.status_int == 204, response.text
    request_id = actions_of(application, cloud, server_id)['delete']
    flow = flow_of(application, cloud, server_id, request_id)
    assert flow['name'] == 'delete-instance'
    assert flow['state'] == 'SUCCESS'
    assert flow['atoms'][0]['name'] == 'destroy-domain'
    assert {a['state'] for a in flow['atoms']} == {'done'}
    assert ('destroy-domain', 'delete-config-drive') in links(flow)
    # The deleted instance's boot flow detail is gone: its states come from events.
    boot_flow = flow_of(application, cloud, server_id, create_id)
    assert {a['state'] for a in boot_flow['atoms']} == {'done'}
    assert boot_flow['state'] == 'SUCCESS'


class WatchingDispatcher(fixtures.InlineDispatcher):
    """Runs the boot inline and reads its flow when a step starts, as a poller would."""

    def __init__(self, read_flow, step):
        self.read_flow, self.step, self.seen = read_flow, step, None

    def boot(self, instance_id, rollback=False):
        def progress(event):
            if event.name == self.step and not event.finished:
                self.seen = self.read_flow(instance_id)

        with db_api.transaction() as session:
            flow_uuid = instances.get_row(session, instance_id).flow_uuid
        runner.run_boot(instance_id, flow_uuid, progress=progress)


def test_a_flow_read_while_it_runs(application, cloud):
    def read_flow(server_id):
        return flow_of(application, cloud, server_id,
                       actions_of(application, cloud, server_id)['create'])

    watcher = WatchingDispatcher(read_flow, 'define-domain')
    fixtures.with_dispatcher(application, watcher)
    boot(application, cloud)
    flow = watcher.seen
    assert flow['state'] == 'RUNNING'
    atoms = atoms_by_name(flow)
    assert atoms['define-domain']['state'] == 'running'
    assert atoms['define-domain']['started_at'].endswith('Z')
    assert atoms['define-domain']['finished_at'] is None
    assert atoms['create-root-disk']['state'] == 'done'
    assert atoms['start-domain']['state'] == 'pending'
    assert atoms['mark-active']['state'] == 'pending'
    running = [s for s in flow['steps'] if s['result'] is None]
    assert [s['atom'] for s in running] == ['define-domain']
    assert running[0]['started_at'] >= atoms['create-root-disk']['finished_at']


def test_another_projects_server_and_another_servers_action_are_404(
        application, cloud, make_token):
    server_id = boot(application, cloud)
    other_id = boot(application, cloud, name='vm2')
    request_id = actions_of(application, cloud, server_id)['create']
    body = call(application, 'GET', '/compute/v2.1/servers/%s/os-instance-actions/%s/flow'
                % (other_id, request_id), token=cloud['token'])
    assert body.status_int == 404
    assert 'itemNotFound' in body.json
    stranger = make_token('stranger', 'member', 'elsewhere')
    flow_of(application, cloud, server_id, request_id, token=stranger, status=404)
