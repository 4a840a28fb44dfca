"""Nova's os-simple-tenant-usage: hours and sizes of a project's servers in a period."""

import datetime

from tests.unit.api.compute import microversion
from tests.unit.api.test_servers import application  # noqa: F401 - fixture
from tests.unit.api.test_servers import boot
from tests.unit.api.test_servers import call
from tests.unit.api.test_servers import cloud  # noqa: F401 - fixture

USAGE = '/compute/v2.1/os-simple-tenant-usage'


def _period(hours_before=1):
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    return 'start=%s&end=%s' % ((now - datetime.timedelta(hours=hours_before))
                                .isoformat(), (now + datetime.timedelta(hours=1))
                                .strftime('%Y-%m-%dT%H:%M:%S'))


def test_a_running_server_counts_its_hours_and_sizes(application, cloud):  # noqa: F811
    server_id = boot(application, cloud)
    listed = call(application, 'GET', USAGE + '?detailed=1&' + _period(),
                  token=cloud['token']).json['tenant_usages']
    [project] = listed
    [server] = project['server_usages']
    assert (server['instance_id'], server['vcpus'], server['memory_mb'],
            server['local_gb'], server['flavor'], server['state']) == (
        server_id, 1, 128, 1, 'tiny', 'active')
    assert 0 < server['hours'] < 0.1 and server['ended_at'] is None
    assert abs(project['total_memory_mb_usage'] - 128 * server['hours']) < 1e-6
    shown = call(application, 'GET', '%s/%s?%s' % (USAGE, project['tenant_id'],
                                                   _period()), token=cloud['token'])
    # the period ends now (the end asked is in the future): a little later each time
    assert 0 < shown.json['tenant_usage']['total_hours'] - project['total_hours'] < 0.01
    assert len(shown.json['tenant_usage']['server_usages']) == 1  # always, as Nova
    empty = call(application, 'GET', USAGE + '/', token=cloud['token'])
    assert empty.json == {'tenant_usage': {}}
    none = call(application, 'GET', USAGE + '/other-project', token=cloud['token'])
    assert none.json == {'tenant_usage': {}}


def test_bad_periods_and_paging(application, cloud):  # noqa: F811
    first, second = boot(application, cloud), boot(application, cloud, name='vm2')
    for query in ('start=yesterday', 'start=2030-01-01T00:00:00&end=2029-01-01T00:00:00'):
        assert call(application, 'GET', USAGE + '?' + query,
                    token=cloud['token']).status_int == 400
    page = call(application, 'GET', USAGE + '?detailed=1&limit=1&' + _period(),
                token=cloud['token'], headers=microversion('2.40')).json
    assert [s['instance_id'] for s in page['tenant_usages'][0]['server_usages']] == [
        first]
    assert 'marker=' + first in page['tenant_usages_links'][0]['href']
    rest = call(application, 'GET', USAGE + '?detailed=1&marker=%s&%s' % (
        first, _period()), token=cloud['token'], headers=microversion('2.40')).json
    assert [s['instance_id'] for s in rest['tenant_usages'][0]['server_usages']] == [
        second]
    assert call(application, 'GET', USAGE + '?marker=nope', token=cloud['token'],
                headers=microversion('2.40')).status_int == 400
