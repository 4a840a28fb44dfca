"""The real `openstack` client against an all-in-one provisioner-api, real QEMU guests.

One server is booted the way a user would (flavor, image, network, key pair, user
data, a new blank volume, --wait) and then watched and managed by the commands a user
runs next; the tests of this module share it, in file order, and the last one deletes
it.
"""

import time

import pytest

from tests.functional.api import conftest as api
from tests import netutil

VM = 'api-vm1'
USER_DATA = 'hello from openstack server create'
RUNNING, SHUTDOWN = 1, 4  # OS-EXT-STS:power_state


def only_ip(addresses, network='net1'):
    """The one IPv4 address of a server on network (from `-f json` output)."""
    assert list(addresses) == [network], addresses
    [ip] = addresses[network]
    return ip


@pytest.fixture(scope='module')
def server(api_cloud, openstack, keypair, tmp_path_factory):
    user_data = tmp_path_factory.mktemp('user-data') / 'user-data'
    user_data.write_text('%s\nsecond line\n' % USER_DATA)
    started = time.monotonic()
    created = openstack.json(
        'server', 'create', '--flavor', 'tiny', '--image', 'guest', '--network', 'net1',
        '--key-name', keypair[0], '--user-data', user_data, '--tag', 'web',
        '--description', 'the api test server',
        '--block-device', 'source_type=blank,destination_type=volume,volume_size=1,'
                          'delete_on_termination=true',
        '--wait', VM)
    created['seconds'] = time.monotonic() - started
    yield created
    if api_cloud.http.find_server(VM) is not None:  # the delete test did not run
        openstack.run('server', 'delete', '--wait', created['id'], check=False)


def test_token_issue(api_cloud, openstack):
    token = openstack.json('token', 'issue')
    assert set(token) >= {'id', 'expires', 'project_id', 'user_id'}
    assert token['project_id'] == api_cloud.http.project_id
    time.strptime(token['expires'], '%Y-%m-%dT%H:%M:%S%z')
    # The token works on the API it was issued for.
    response = api_cloud.http.compute('GET', '/servers', token=token['id'])
    assert response.status_code == 200, response.text


def test_flavor_create_and_list(openstack):
    created = openstack.json('flavor', 'create', '--vcpus', 1, '--ram', 64, '--disk', 1,
                             'api-small')
    assert (created['name'], created['vcpus'], created['ram'], created['disk']) == \
        ('api-small', 1, 64, 1)
    assert created['id']
    flavors = {f['Name']: f for f in openstack.json('flavor', 'list')}
    assert {'tiny', 'api-small'} <= set(flavors)
    assert (flavors['tiny']['VCPUs'], flavors['tiny']['RAM'], flavors['tiny']['Disk']) \
        == (1, 128, 1)
    assert flavors['api-small']['ID'] == created['id']


def test_keypair_create_and_list(openstack, keypair):
    name, _public_key = keypair
    listed = openstack.json('keypair', 'list')
    assert name in [k['Name'] for k in listed]
    shown = openstack.json('keypair', 'show', name)
    assert shown['name'] == name and shown['fingerprint']


def test_server_create_wait_guest_sees_its_ip_user_data_and_key(openstack, server,
                                                                keypair):
    assert server['status'] == 'ACTIVE', server
    ip = only_ip(server['addresses'])
    print('server create --wait took %.1f s' % server['seconds'])

    guest = openstack.wait_for_console(server['id'])
    assert guest['ip'] == ip
    assert guest['uuid'] == server['id']
    assert guest['user-data'] == USER_DATA
    assert guest['public-key'] == keypair[1]
    # the root disk, the blank volume, the config drive
    assert len(guest['disks'].split()) == 3, guest['disks']


def test_server_list_and_show(openstack, server, keypair):
    ip = only_ip(server['addresses'])
    rows = [s for s in openstack.json('server', 'list') if s['Name'] == VM]
    assert len(rows) == 1, rows
    assert (rows[0]['ID'], rows[0]['Status']) == (server['id'], 'ACTIVE')
    assert rows[0]['Networks'] == {'net1': [ip]}
    assert rows[0]['Flavor'] == 'tiny'

    shown = openstack.json('server', 'show', VM)
    assert shown['id'] == server['id'] and shown['status'] == 'ACTIVE'
    assert shown['addresses'] == {'net1': [ip]}
    assert shown['key_name'] == keypair[0]
    assert shown['OS-EXT-STS:vm_state'] == 'active'
    assert shown['OS-EXT-STS:task_state'] is None
    assert shown['OS-EXT-STS:power_state'] == RUNNING
    assert len(shown['volumes_attached']) == 1, shown['volumes_attached']
    assert shown['flavor'] and shown['image']
    # The client negotiates the newest microversion (2.90): 2.52's tags at create,
    # 2.19's description, 2.47's embedded flavor, 2.9's locked.
    assert shown['tags'] == ['web'], shown
    assert shown['description'] == 'the api test server'
    assert 'tiny' in str(shown['flavor']) and 'vcpus' in str(shown['flavor'])
    assert shown['locked'] is False


def test_server_set_and_unset_property(openstack, server):
    openstack.run('server', 'set', '--property', 'role=web', '--property', 'tier=1', VM)
    properties = openstack.json('server', 'show', VM)['properties']
    assert (properties['role'], properties['tier']) == ('web', '1'), properties
    openstack.run('server', 'unset', '--property', 'role', VM)
    properties = openstack.json('server', 'show', VM)['properties']
    assert 'role' not in properties and properties['tier'] == '1', properties


def test_server_event_list_and_show_every_step(openstack, server):
    events = openstack.json('server', 'event', 'list', VM)
    creates = [e for e in events if e['Action'] == 'create']
    assert len(creates) == 1, events
    assert creates[0]['Request ID'].startswith('req-')
    assert creates[0]['Server ID'] == server['id']

    action = openstack.json('server', 'event', 'show', VM, creates[0]['Request ID'])
    assert action['action'] == 'create'
    assert action['request_id'] == creates[0]['Request ID']
    steps = [e['event'] for e in action['events']]
    missing = [step for step in api.BOOT_STEPS if step not in steps]
    assert missing == [], 'steps %s missing from %s' % (missing, steps)
    assert steps[-1] == 'mark-active', steps
    failed = [e for e in action['events'] if e['result'] != 'Success']
    assert failed == []
    assert all(e['start_time'] and e['finish_time'] for e in action['events'])


def test_stop_start_and_reboot(openstack, server):
    # The guest is up (listening for the ACPI power button) before each action, as
    # a user would wait: a soft action on a guest still booting ends only at the
    # [compute] shutdown_timeout.
    ip = only_ip(server['addresses'])
    openstack.wait_for_console(VM, boots=1)
    openstack.run('server', 'stop', VM)
    stopped = openstack.wait_for_status(VM, 'SHUTOFF')
    assert stopped['OS-EXT-STS:power_state'] == SHUTDOWN
    assert stopped['OS-EXT-STS:vm_state'] == 'stopped'

    openstack.run('server', 'start', VM)
    started = openstack.wait_for_status(VM, 'ACTIVE')
    assert started['OS-EXT-STS:power_state'] == RUNNING
    assert openstack.wait_for_console(VM, boots=2)['ip'] == ip

    for boots, kind in ((3, '--soft'), (4, '--hard')):
        began = time.monotonic()
        openstack.run('server', 'reboot', kind, '--wait', VM)
        print('server reboot %s --wait took %.1f s' % (kind, time.monotonic() - began))
        shown = openstack.json('server', 'show', VM)
        assert (shown['status'], shown['OS-EXT-STS:power_state']) == ('ACTIVE', RUNNING), \
            (kind, shown)
        # The guest booted once more, and came back with its address.
        assert openstack.wait_for_console(VM, boots=boots)['ip'] == ip

    actions = [e['Action'] for e in openstack.json('server', 'event', 'list', VM)]
    assert sorted(actions) == ['create', 'reboot', 'reboot', 'start', 'stop'], actions


def test_anti_affinity_group_second_member_finds_no_host(api_cloud, openstack):
    group = openstack.json('server', 'group', 'create', '--policy', 'anti-affinity',
                           'api-anti')
    assert group['name'] == 'api-anti'
    assert group.get('policy', group.get('policies')) in ('anti-affinity',
                                                          ['anti-affinity'])
    boot = ('server', 'create', '--flavor', 'tiny', '--image', 'guest', '--network',
            'net1')
    first = openstack.json(*boot, '--hint', 'group=%s' % group['id'], '--wait',
                           'api-anti-1')
    try:
        assert first['status'] == 'ACTIVE'
        # One host only: a second member has nowhere to go.
        second = openstack.run(*boot, '--server-group', group['id'], '--wait',
                               'api-anti-2', check=False)
        assert second.returncode != 0, second.stdout
        refused = api_cloud.http.find_server('api-anti-2')
        print('second anti-affinity member: %s' % (
            'refused at once' if refused is None else 'ERROR after scheduling'))
        if refused is None:  # refused at once, as a 400
            assert 'no valid host' in second.stderr.lower(), second.stderr
        else:  # accepted, then scheduled into ERROR, as Nova does
            shown = openstack.json('server', 'show', refused['id'])
            assert shown['status'] == 'ERROR'
            assert 'no valid host' in shown['fault']['message'].lower(), shown['fault']
            api_cloud.delete_and_check(refused['id'])
        members = openstack.json('server', 'group', 'show', 'api-anti')['members']
        assert first['id'] in members and len(members) == 1, members
    finally:
        api_cloud.delete_and_check(first['id'])


def test_quota_show(openstack):
    quotas = {q['Resource']: q['Limit'] for q in openstack.json('quota', 'show')}
    for resource in ('instances', 'cores', 'ram'):
        assert isinstance(quotas.get(resource), int), quotas


def test_availability_zone_list(openstack):
    zones = openstack.json('availability', 'zone', 'list')
    available = [z for z in zones if z['Zone Status'] == 'available']
    assert available, zones


def test_flavor_create_with_a_description(openstack):
    """At the negotiated microversion (>= 2.55) a flavor has a description."""
    created = openstack.json('flavor', 'create', '--vcpus', 1, '--ram', 64, '--disk', 1,
                             '--description', 'for the API tests', 'api-described')
    assert created['description'] == 'for the API tests'
    assert openstack.json('flavor', 'show', created['id'])['description'] == \
        'for the API tests'
    openstack.run('flavor', 'delete', created['id'])


def test_server_group_soft_anti_affinity_and_a_repeated_name(openstack):
    groups = [openstack.json('server', 'group', 'create', '--policy',
                             'soft-anti-affinity', 'api-soft') for _ in range(2)]
    try:
        assert [g['policy'] for g in groups] == ['soft-anti-affinity'] * 2
        assert groups[0]['id'] != groups[1]['id']  # names repeat, as in Nova
        listed = [g for g in openstack.json('server', 'group', 'list')
                  if g['Name'] == 'api-soft']
        assert len(listed) == 2, listed
    finally:
        for group in groups:
            openstack.run('server', 'group', 'delete', group['id'])


def test_hypervisor_list_and_show(openstack):
    [hypervisor] = openstack.json('hypervisor', 'list')
    assert hypervisor['State'] == 'up' and hypervisor['Hypervisor Type'] == 'QEMU'
    shown = openstack.json('hypervisor', 'show', hypervisor['ID'])
    assert shown['hypervisor_hostname'] == hypervisor['Hypervisor Hostname']
    assert shown['id'] == hypervisor['ID'] and shown['state'] == 'up'
    assert 'days' in shown['uptime']  # 2.88's detail (the client keeps 'N days, h:mm')


def test_compute_service_list_and_set(openstack):
    [service] = openstack.json('compute', 'service', 'list')
    assert (service['Binary'], service['Status'], service['State']) == (
        'nova-compute', 'enabled', 'up')
    host = service['Host']
    try:
        openstack.run('compute', 'service', 'set', '--disable', '--disable-reason',
                      'api test', host, 'nova-compute')
        [service] = openstack.json('compute', 'service', 'list', '--long')
        assert (service['Status'], service['Disabled Reason']) == ('disabled',
                                                                   'api test')
        openstack.run('compute', 'service', 'set', '--down', host, 'nova-compute')
        [service] = openstack.json('compute', 'service', 'list', '--long')
        assert (service['State'], service['Forced Down']) == ('down', True)
    finally:
        openstack.run('compute', 'service', 'set', '--enable', '--up', host,
                      'nova-compute')
    [service] = openstack.json('compute', 'service', 'list')
    assert (service['Status'], service['State']) == ('enabled', 'up')


def test_server_delete_wait_leaves_nothing_behind(api_cloud, openstack, server):
    api_cloud.delete_and_check(server['id'])
    missing = openstack.run('server', 'show', server['id'], check=False)
    assert missing.returncode != 0 and 'No Server found' in missing.stderr, \
        missing.stderr
    assert VM not in [s['Name'] for s in openstack.json('server', 'list')]


def test_image_tags_set_unset_and_filter(openstack, tmp_path):
    data = tmp_path / 'tagged.raw'
    data.write_bytes(b'\0' * 65536)
    created = openstack.json('image', 'create', '--file', data, '--disk-format', 'raw',
                             '--tag', 'web', '--tag', 'v1', 'api-tagged')
    try:
        assert sorted(created['tags']) == ['v1', 'web']
        openstack.run('image', 'set', '--tag', 'db', 'api-tagged')
        openstack.run('image', 'unset', '--tag', 'web', 'api-tagged')
        assert sorted(openstack.json('image', 'show', 'api-tagged')['tags']) == \
            ['db', 'v1']
        listed = openstack.json('image', 'list', '--tag', 'db', '--tag', 'v1')
        assert [i['Name'] for i in listed] == ['api-tagged']
        assert openstack.json('image', 'list', '--tag', 'web') == []
    finally:
        openstack.run('image', 'delete', created['id'])


def test_network_subnet_and_port_descriptions(openstack):
    """What Terraform's and Ansible's description arguments send: kept verbatim,
    read back, changed; one over Neutron's 255 characters is refused."""
    net = openstack.json('network', 'create', '--description', 'net <b> & "q"',
                         'api-described')
    subnet = port = None
    try:
        subnet = openstack.json('subnet', 'create', '--network', 'api-described',
                                '--subnet-range', netutil.free_cidr(248),
                                '--description', 'its subnet', 'api-described-subnet')
        port = openstack.json('port', 'create', '--network', 'api-described',
                              '--description', 'its port', 'api-described-port')
        assert (net['description'], subnet['description'], port['description']) == \
            ('net <b> & "q"', 'its subnet', 'its port')
        openstack.run('network', 'set', '--description', 'changed', net['id'])
        openstack.run('port', 'set', '--description', '', port['id'])
        assert openstack.json('network', 'show', net['id'])['description'] == 'changed'
        assert openstack.json('subnet', 'show', subnet['id'])['description'] == \
            'its subnet'
        shown = openstack.json('port', 'show', port['id'])
        assert (shown['name'], shown['description']) == ('api-described-port', '')
        refused = openstack.run('network', 'set', '--description', 'x' * 256, net['id'],
                                check=False)
        assert refused.returncode != 0 and 'the limit is 255' in refused.stderr, \
            refused.stderr
        assert openstack.json('network', 'show', net['id'])['description'] == 'changed'
    finally:
        if port is not None:
            openstack.run('port', 'delete', port['id'], check=False)
        if subnet is not None:
            openstack.run('subnet', 'delete', subnet['id'], check=False)
        openstack.run('network', 'delete', net['id'])


def test_subnet_carved_from_a_subnet_pool(openstack):
    """`subnet pool create` and `subnet create --subnet-pool --prefix-length`: the
    subnet gets the pool's lowest free range of that length; a used pool stays."""
    prefix = netutil.free_cidr(247)
    pool = openstack.json('subnet', 'pool', 'create', '--pool-prefix', prefix,
                          '--default-prefix-length', '26', 'api-pool')
    net = openstack.json('network', 'create', 'api-pooled')
    subnet = None
    try:
        subnet = openstack.json('subnet', 'create', '--network', 'api-pooled',
                                '--subnet-pool', 'api-pool', '--prefix-length', '28',
                                'api-pooled-subnet')
        assert subnet['cidr'] == prefix.replace('.0/24', '.0/28'), subnet
        assert subnet['subnetpool_id'] == pool['id']
        refused = openstack.run('subnet', 'pool', 'delete', pool['id'], check=False)
        assert refused.returncode != 0, refused.stdout
        assert openstack.json('subnet', 'pool', 'show', 'api-pool')['prefixes'] in (
            [prefix], prefix)
    finally:
        if subnet is not None:
            openstack.run('subnet', 'delete', subnet['id'], check=False)
        openstack.run('network', 'delete', net['id'], check=False)
        openstack.run('subnet', 'pool', 'delete', pool['id'], check=False)
    assert openstack.run('subnet', 'pool', 'show', pool['id'],
                         check=False).returncode != 0


def test_application_credential_drives_the_cloud_until_deleted(api_cloud, openstack,
                                                               tmp_path):
    """What a CI job or Terraform uses instead of a password: `application credential
    create`, then a clouds.yaml with auth_type v3applicationcredential."""
    made = openstack.json('application', 'credential', 'create', 'api-ci')
    clouds = tmp_path / 'clouds.yaml'
    clouds.write_text(
        'clouds:\n  appcred:\n    auth_type: v3applicationcredential\n    auth:\n'
        '      auth_url: %s/identity\n      application_credential_id: %s\n'
        '      application_credential_secret: %s\n    region_name: RegionOne\n'
        '    identity_api_version: 3\n' % (api_cloud.url, made['ID'], made['Secret']))
    app = api.OpenStackCLI(clouds, cloud='appcred')
    try:
        token = app.json('token', 'issue')
        assert token['project_id'] == made['Project ID']
        assert 'tiny' in [f['Name'] for f in app.json('flavor', 'list')]
        refused = app.run('application', 'credential', 'create', 'api-more', check=False)
        assert refused.returncode != 0, refused.stdout
        shown = openstack.json('application', 'credential', 'show', 'api-ci')
        assert shown['ID'] == made['ID'] and not shown.get('Secret')
    finally:
        openstack.run('application', 'credential', 'delete', made['ID'], check=False)
    assert app.run('token', 'issue', check=False).returncode != 0
