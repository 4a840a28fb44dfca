"""The placement commands: host, quota, server-group, boot placement flags."""

import json

from tests.unit.test_cli import _instance_count
from tests.unit.test_cli import catalog  # noqa: F401 (fixture)
from tests.unit.test_cli import run  # noqa: F401 (fixture)


def _error(result):
    """The CLI's one-line error (earlier commands' log handlers may print before it)."""
    return result[2].splitlines()[-1]


def test_host_list_disable_enable_and_set(run):  # noqa: F811
    code, out, _ = run('host', 'list', '--format', 'json')
    [host] = json.loads(out)
    assert (host['name'], host['alive'], host['enabled']) == ('unit-host', True, True)
    assert host['vcpus_capacity'] == host['vcpus'] * 4.0
    code, out, _ = run('host', 'disable', 'unit-host', '--reason', 'disk swap',
                       '--format', 'json')
    assert code == 0 and json.loads(out)['disabled_reason'] == 'disk swap'
    assert run('host', 'list')[1].splitlines()[1].split()[3] == 'False'
    assert json.loads(run('host', 'enable', 'unit-host', '--format', 'json')[1])['enabled']
    code, out, _ = run('host', 'set', 'unit-host', '--cpu-allocation-ratio', '2',
                       '--availability-zone', 'az1', '--format', 'json')
    shown = json.loads(out)
    assert (shown['cpu_allocation_ratio'], shown['availability_zone']) == (2.0, 'az1')
    result = run('host', 'set', 'unit-host', '--ram-allocation-ratio', '0')
    assert result[0] == 2
    assert _error(result).startswith('Error: Invalid request: ram_allocation_ratio '
                                     'must be above 0')
    assert _error(run('host', 'disable', 'nope')) == 'Error: Host nope not found.'


def test_quota_show_set_and_an_over_quota_boot(run, catalog):  # noqa: F811
    code, out, _ = run('quota', 'set', '--instances', 0, '--format', 'json')
    assert code == 0
    assert {q['resource']: q['limit'] for q in json.loads(out)}['instances'] == 0
    result = run('boot', 'vm1', '--flavor', 'tiny', '--image', 'guest',
                 '--network', 'net1')
    assert result[0] == 7
    assert _error(result) == ('Error: Quota exceeded for instances in project admin: '
                              'the request needs 1, 0 of 0 are in use.')
    assert _instance_count() == 0
    assert run('quota', 'set')[0] == 2
    assert 'INSTANCES' not in run('quota', 'show')[1]
    assert _error(run('quota', 'show', '--project', 'nope')) == \
        'Error: Project nope not found.'


def test_server_group_boot_and_delete(run, catalog):  # noqa: F811
    code, out, _ = run('server-group', 'create', 'web', '--policy', 'anti-affinity')
    assert code == 0
    # Names repeat, as Nova's; a repeated name is then no way to name one.
    code, out, _ = run('server-group', 'create', 'web', '--policy', 'affinity',
                       '--format', 'json')
    assert code == 0
    assert _error(run('server-group', 'show', 'web')) == \
        'Error: 2 server groups are named web: give its id.'
    assert run('server-group', 'delete', json.loads(out)['id'])[0] == 0
    code, out, err = run('boot', 'vm1', '--flavor', 'tiny', '--image', 'guest',
                         '--network', 'net1', '--server-group', 'web')
    assert code == 0, err
    assert json.loads(run('server-group', 'show', 'web', '--format', 'json')[1]
                      )['members'] == ['vm1']
    assert 'still has members: vm1' in _error(run('server-group', 'delete', 'web'))
    result = run('boot', 'vm2', '--flavor', 'tiny', '--image', 'guest',
                 '--network', 'net1', '--server-group', 'nope')
    assert (result[0], _error(result)) == (3, 'Error: Server group nope not found.')
    assert _instance_count() == 1
    assert run('delete', 'vm1')[0] == 0
    assert run('server-group', 'delete', 'web')[0] == 0
    assert json.loads(run('server-group', 'list', '--format', 'json')[1]) == []
