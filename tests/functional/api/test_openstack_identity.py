"""The real `openstack` client's identity commands against an all-in-one
provisioner-api: domains, groups, roles and their assignments, regions, services and
endpoints, what an operator of a small cloud types (no guest is booted)."""

import pytest


@pytest.fixture
def cleanup(openstack):
    """Commands to run at the end, last first, whatever happened."""
    commands = []
    yield commands
    for args in reversed(commands):
        openstack.run(*args, check=False)


def test_domain_group_and_role_assignments(openstack, cleanup):
    domain = openstack.json('domain', 'create', '--description', 'ops team', 'cli-d')
    cleanup.append(('domain', 'delete', 'cli-d'))
    cleanup.append(('domain', 'set', '--disable', 'cli-d'))
    assert (domain['name'], domain['enabled'], domain['description']) == \
        ('cli-d', True, 'ops team')
    assert 'cli-d' in [d['Name'] for d in openstack.json('domain', 'list')]
    project = openstack.json('project', 'create', '--domain', 'cli-d', 'cli-p')
    assert project['domain_id'] == domain['id']
    user = openstack.json('user', 'create', '--domain', 'cli-d', '--password',
                          'cli-user-secret', '--email', 'u@cli.test', 'cli-u')
    assert user['domain_id'] == domain['id']
    group = openstack.json('group', 'create', '--domain', 'cli-d', 'cli-g')
    openstack.run('group', 'add', 'user', '--group-domain', 'cli-d', '--user-domain',
                  'cli-d', 'cli-g', 'cli-u')
    contains = openstack.run('group', 'contains', 'user', '--group-domain', 'cli-d',
                             '--user-domain', 'cli-d', 'cli-g', 'cli-u').stdout
    assert contains.strip() == 'cli-u in group cli-g', contains
    role = openstack.json('role', 'create', 'cli-operator')
    cleanup.append(('role', 'delete', 'cli-operator'))
    openstack.run('role', 'add', '--group', group['id'], '--project', project['id'],
                  'cli-operator')
    openstack.run('role', 'add', '--user', user['id'], '--domain', 'cli-d', 'member')
    listed = openstack.json('role', 'assignment', 'list', '--names', '--project',
                            project['id'])
    assert [(a['Role'], a['Group']) for a in listed] == [('cli-operator', 'cli-g@cli-d')]
    effective = openstack.json('role', 'assignment', 'list', '--effective', '--user',
                               user['id'])
    assert sorted(a['Role'] for a in effective) == sorted([role['id'], 'member'])
    openstack.run('role', 'remove', '--group', group['id'], '--project', project['id'],
                  'cli-operator')
    assert openstack.json('role', 'assignment', 'list', '--project', project['id']) == []
    # A domain is deleted only once disabled; its projects, users and groups go too.
    refused = openstack.run('domain', 'delete', 'cli-d', check=False)
    assert refused.returncode != 0
    openstack.run('domain', 'set', '--disable', 'cli-d')
    openstack.run('domain', 'delete', 'cli-d')
    assert openstack.run('user', 'show', user['id'], check=False).returncode != 0
    assert openstack.run('group', 'show', group['id'], check=False).returncode != 0


def test_region_service_and_endpoint_in_the_catalog(openstack, cleanup):
    region = openstack.json('region', 'create', '--description', 'second site',
                            'cli-region')
    cleanup.append(('region', 'delete', 'cli-region'))
    assert region['region'] == 'cli-region'
    service = openstack.json('service', 'create', '--name', 'designate', 'dns')
    cleanup.append(('service', 'delete', service['id']))
    endpoint = openstack.json('endpoint', 'create', '--region', 'cli-region', service['id'],
                              'public', 'http://dns.cli.test:9001/')
    assert (endpoint['region'], endpoint['interface']) == ('cli-region', 'public')
    listed = openstack.json('endpoint', 'list', '--service', 'dns')
    assert [e['URL'] for e in listed] == ['http://dns.cli.test:9001/']
    catalog = {c['Type']: c for c in openstack.json('catalog', 'list')}
    assert {'identity', 'compute', 'image', 'network', 'dns'} <= set(catalog)
    assert 'http://dns.cli.test:9001/' in str(catalog['dns']['Endpoints'])
    assert 'compute' in [s['Type'] for s in openstack.json('service', 'list')]
    openstack.run('endpoint', 'delete', endpoint['id'])
    openstack.run('service', 'delete', service['id'])
    assert 'dns' not in [c['Type'] for c in openstack.json('catalog', 'list')]
