"""One server through the dashboard's actions: a boot interrupted by a stopped API
process (Resume and Rollback offered, Resume finishing it), volumes attached and
detached from the server's page and from the volume list (their progress, and the
API's refusal), an action the API refuses, and a delete watched to its last step.

The tests share the server (each boot costs a guest): they run in this order, and
each starts from an ACTIVE server (``active_server`` resumes the boot if the first
test did not). The API the browser talks to pauses after the steps whose progress
the page must show (plug-volume, unplug-volume, destroy-domain), so that progress
lasts long enough to be seen at the page's pace.
"""

import time

import pytest
from selenium.webdriver.support.ui import Select

from tests.functional import conftest as base
from tests.functional.dashboard.conftest import other_api
from tests.functional.dashboard.conftest import restart_api
from tests.functional.dashboard.test_instance import watch_flow

PAUSED_STEPS = 'plug-volume,unplug-volume,destroy-domain'
HOSTILE_VOLUME = '<img src=x onerror=window.__xss=5>data'
SERVER_NAME = 'dash-interrupted'


def _ids(http):
    """The ids of flavor tiny, image guest and network net1."""
    flavors = http.compute('GET', '/flavors').json()['flavors']
    images = http.request('GET', '/image/v2/images').json()['images']
    networks = http.request('GET', '/network/v2.0/networks').json()['networks']
    return ([f['id'] for f in flavors if f['name'] == 'tiny'][0],
            [i['id'] for i in images if i['name'] == 'guest'][0],
            [n['id'] for n in networks if n['name'] == 'net1'][0])


def _server(http, server_id):
    response = http.compute('GET', '/servers/%s' % server_id)
    return response.json()['server'] if response.status_code == 200 else None


def _boot_flow(http, server_id):
    actions = http.compute('GET', '/servers/%s/os-instance-actions'
                           % server_id).json()['instanceActions']
    create = [a for a in actions if a['action'] == 'create'][0]
    return http.compute('GET', '/servers/%s/os-instance-actions/%s/flow'
                        % (server_id, create['request_id'])).json()['flow']


def _console(http, server_id):
    return http.compute('POST', '/servers/%s/action' % server_id,
                        body={'os-getConsoleOutput': {}}).json()['output']


def guest_disks(console):
    """The disks of the guest's latest `disks=` line (one at boot, one at each
    hot-plug or unplug)."""
    lines = [line for line in console.splitlines()
             if line.startswith('PROVISIONER-GUEST: disks=')]
    return lines[-1].split('=', 1)[1].split() if lines else []


def _wait(what, check, timeout=120):
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, 'timed out waiting for ' + what
        time.sleep(0.5)


def _volume(http, volume_id):
    response = http.request('GET', '/volume/v3/%s/volumes/%s'
                            % (http.project_id, volume_id))
    return response.json()['volume'] if response.status_code == 200 else None


def remove_volume(http, server_id, volume_id):
    """Detach (if a failed test left it attached) and delete a test's volume."""
    if (_volume(http, volume_id) or {}).get('status') == 'in-use':
        http.compute('DELETE', '/servers/%s/os-volume_attachments/%s'
                     % (server_id, volume_id))
    _wait('volume %s detached' % volume_id, lambda: (_volume(http, volume_id) or {})
          .get('status') in (None, 'available', 'error'))
    http.request('DELETE', '/volume/v3/%s/volumes/%s' % (http.project_id, volume_id))
    _wait('volume %s deleted' % volume_id, lambda: _volume(http, volume_id) is None)


@pytest.fixture(scope='module')
def paused_cloud(api_cloud):
    restart_api(api_cloud, OS_FAULT_INJECTION__PAUSE_AFTER_STEP=PAUSED_STEPS,
                OS_FAULT_INJECTION__PAUSE_SECONDS='2')
    try:
        yield api_cloud
    finally:
        restart_api(api_cloud)


@pytest.fixture(scope='module')
def interrupted(paused_cloud):
    """A boot that a second provisioner-api started and was stopped under (SIGTERM
    while claim-resources ran): the flow suspended, nobody carrying it on. The
    server's id; it is deleted at the end if a test did not."""
    cloud = paused_cloud
    flavor, image, network = _ids(cloud.http)
    with other_api(cloud, OS_FAULT_INJECTION__PAUSE_AFTER_STEP='claim-resources',
                   OS_FAULT_INJECTION__PAUSE_SECONDS='3') as other:
        created = other.http.compute('POST', '/servers', body={'server': {
            'name': SERVER_NAME, 'flavorRef': flavor, 'imageRef': image,
            'networks': [{'uuid': network}],
            'block_device_mapping_v2': [{'source_type': 'blank',
                                         'destination_type': 'volume', 'volume_size': 1,
                                         'delete_on_termination': True,
                                         'boot_index': -1}]}})
        assert created.status_code == 202, created.text
        server_id = created.json()['server']['id']
        other.wait_for_log('Fault injection: pausing')
        assert other.stop() == 0, other.log()[-5000:]
    record = cloud.record(server_id)
    try:
        flow = _boot_flow(cloud.http, server_id)
        assert flow['state'] == 'SUSPENDED', flow['state']
        yield server_id
    finally:
        if _server(cloud.http, server_id) is not None:
            cloud.openstack.run('server', 'delete', '--wait', server_id)
        assert cloud.leftovers(record) == []


@pytest.fixture
def active_server(api_cloud, interrupted):
    """The server with no task under way, resumed over the API if the first test
    did not resume it: ACTIVE (SHUTOFF once a test stopped it), its guest up (it
    must be, to take or let go of a hot-plugged disk)."""
    http = api_cloud.http
    if _server(http, interrupted)['status'] == 'BUILD':
        http.compute('POST', '/servers/%s/action' % interrupted,
                     body={'provisioner:resume': None})

    def settled():
        shown = _server(http, interrupted)
        return shown['status'] in ('ACTIVE', 'SHUTOFF') and \
            not shown['OS-EXT-STS:task_state']
    _wait('the server settled', settled, timeout=150)
    if _server(http, interrupted)['status'] == 'ACTIVE':
        _wait('the guest up', lambda: 'PROVISIONER-GUEST: ready' in _console(
            http, interrupted), timeout=base.CONSOLE_TIMEOUT)
    return interrupted


def open_server(dashboard, server_id):
    dashboard.login()
    dashboard.wait_for('#instances-table')
    dashboard.watch_alerts()
    dashboard.go('#/instances/' + server_id)
    dashboard.wait_for('#flow-graph')


def test_interrupted_boot_offers_resume_and_rollback_and_resume_finishes_it(
        dashboard, interrupted):
    open_server(dashboard, interrupted)
    dashboard.until(lambda: dashboard.find('#action-resume').is_displayed(),
                    what='Resume offered')
    assert dashboard.find('#action-rollback').is_displayed()
    assert 'BUILD' in dashboard.text('#instance-status')
    assert dashboard.find('#flow-graph').get_attribute('data-flow-state') == 'SUSPENDED'
    states = dashboard.node_states()
    assert states['claim-resources'] == 'done' and states['define-domain'] == 'pending', \
        states
    dashboard.screenshot('instance-interrupted')

    dashboard.find('#action-resume').click()
    dashboard.wait_for_text('#action-message', 'Resume requested')
    dashboard.wait_for_text('#instance-status', 'ACTIVE', timeout=150)
    _, _, states = watch_flow(dashboard)
    assert set(states.values()) == {'done'}, states
    assert 'resume' in dashboard.text('#action-select')
    # Nothing to resume or roll back any more: not offered.
    dashboard.until(lambda: not dashboard.find('#action-resume').is_displayed()
                    and not dashboard.find('#action-rollback').is_displayed(),
                    what='Resume and Rollback no longer offered')
    assert not dashboard.xss_fired()


def create_volume(dashboard, name):
    """Create a 1 GiB volume from the Volumes page; its id once it is available."""
    dashboard.go('#/volumes')
    dashboard.wait_for('#volume-form')
    dashboard.find('#volume-name').send_keys(name)
    dashboard.find('#volume-submit').click()
    volume = dashboard.until(lambda: [v for v in dashboard.cloud.http.request(
        'GET', '/volume/v3/%s/volumes/detail' % dashboard.cloud.http.project_id).json()[
        'volumes'] if v['name'] == name], what='the volume %r' % name)[0]
    dashboard.until(lambda: dashboard.row_status('#volumes-table', volume['id'])
                    == 'available', what='the volume listed')
    return volume['id']


def test_attach_and_detach_from_the_server_page(dashboard, active_server):
    http = dashboard.cloud.http
    open_server(dashboard, active_server)
    made_with_server = [v['id'] for v in _server(http, active_server)[
        'os-extended-volumes:volumes_attached']]
    assert len(made_with_server) == 1
    volume_id = create_volume(dashboard, HOSTILE_VOLUME)
    try:
        attach_and_detach_on_the_server_page(dashboard, active_server, volume_id)
    finally:
        remove_volume(http, active_server, volume_id)

    # The volume the launch made goes with the server: the API refuses, the page
    # says so.
    dashboard.find('button[data-detach="%s"]' % made_with_server[0]).click()
    dashboard.confirm()
    dashboard.until(lambda: 'refused' in dashboard.text('#volume-message'),
                    what='the refusal')
    message = dashboard.text('#volume-message')
    assert message.startswith('Detach refused: ') and 'cannot be detached' in message, \
        message
    dashboard.screenshot('instance-volume-refused')
    assert dashboard.row_status('#server-volumes-table', made_with_server[0]) == 'in-use'
    assert not dashboard.xss_fired()


def _page_guest_disks(dashboard):
    return guest_disks(dashboard.text('#console'))


def attach_and_detach_on_the_server_page(dashboard, server_id, volume_id):
    http = dashboard.cloud.http
    dashboard.go('#/instances/' + server_id)
    dashboard.wait_for('#attach-volume option[value="%s"]' % volume_id)
    Select(dashboard.find('#attach-volume')).select_by_value(volume_id)
    dashboard.find('#attach-volume-submit').click()
    seen = dashboard.statuses_until(
        lambda: dashboard.row_status('#server-volumes-table', volume_id), 'in-use',
        timeout=120, what='the attachment')
    assert 'attaching' in seen, seen
    attached = http.compute('GET', '/servers/%s/os-volume_attachments'
                            % server_id).json()['volumeAttachments']
    assert volume_id in [a['volumeId'] for a in attached]
    # The attach is an instance action: its flow is the one shown.
    dashboard.until(lambda: dashboard.text('#action-select option:checked')
                    .startswith('attach_volume'), what='the attach action shown')
    dashboard.until(lambda: dashboard.node_states().get('plug-volume') == 'done',
                    what='plug-volume done')
    assert HOSTILE_VOLUME in dashboard.text('#server-volumes-table')
    assert not dashboard.find_all('#server-volumes-table img, #attach-volume img')
    # The guest sees the disk: its console, on the page, lists the device shown.
    device = dashboard.text('#server-volumes-table tr[data-id="%s"] td:nth-child(3)'
                            % volume_id).removeprefix('/dev/')
    dashboard.until(lambda: device in _page_guest_disks(dashboard), timeout=60,
                    what='the guest to see %s' % device)
    dashboard.screenshot('instance-volume-attached')

    dashboard.find('button[data-detach="%s"]' % volume_id).click()
    dashboard.confirm()
    seen = dashboard.statuses_until(
        lambda: dashboard.row_status('#server-volumes-table', volume_id), None,
        timeout=120, what='the detachment')
    assert 'detaching' in seen, seen
    assert _volume(http, volume_id)['status'] == 'available'
    dashboard.until(lambda: device not in _page_guest_disks(dashboard), timeout=60,
                    what='the guest to let %s go' % device)


def test_attach_and_detach_from_the_volume_list(dashboard, active_server):
    http = dashboard.cloud.http
    dashboard.login()
    dashboard.wait_for('#instances-table')
    dashboard.go('#/volumes')
    dashboard.wait_for('#volume-form')
    size = dashboard.find('#volume-size')
    size.clear()
    size.send_keys('0')
    dashboard.find('#volume-name').send_keys('dash-list-volume')
    dashboard.find('#volume-submit').click()
    assert 'GiB' in dashboard.text('[data-error-for="size"]')
    size.clear()
    size.send_keys('1')
    dashboard.find('#volume-name').clear()
    volume_id = create_volume(dashboard, 'dash-list-volume')
    try:
        attach_and_detach_in_the_list(dashboard, active_server, volume_id)
    finally:
        if _volume(http, volume_id) is not None:
            remove_volume(http, active_server, volume_id)


def attach_and_detach_in_the_list(dashboard, server_id, volume_id):
    http = dashboard.cloud.http
    select = 'select.attach-server[data-volume="%s"]' % volume_id
    dashboard.wait_for(select + ' option[value="%s"]' % server_id)
    Select(dashboard.find(select)).select_by_value(server_id)
    dashboard.find('button[data-attach="%s"]' % volume_id).click()
    seen = dashboard.statuses_until(
        lambda: dashboard.row_status('#volumes-table', volume_id), 'in-use',
        timeout=120, what='the attachment')
    assert 'attaching' in seen, seen
    dashboard.wait_for_text('#volumes-table tr[data-id="%s"]' % volume_id, SERVER_NAME)
    dashboard.screenshot('volumes-attached')
    device = _volume(http, volume_id)['attachments'][0]['device'].removeprefix('/dev/')
    _wait('the guest to see %s' % device,
          lambda: device in guest_disks(_console(http, server_id)), timeout=60)

    dashboard.find('button[data-detach="%s"]' % volume_id).click()
    dashboard.confirm()
    seen = dashboard.statuses_until(
        lambda: dashboard.row_status('#volumes-table', volume_id), 'available',
        timeout=120, what='the detachment')
    assert 'detaching' in seen, seen

    dashboard.find('button[data-delete="%s"]' % volume_id).click()
    dashboard.confirm()
    dashboard.until(lambda: dashboard.row_status('#volumes-table', volume_id) is None,
                    what='the volume deleted')
    assert _volume(http, volume_id) is None


def test_an_action_the_api_refuses_is_shown(dashboard, active_server):
    """Stop asked in the page while someone else stops the server: the page's
    request comes second and the API's 409 is shown, not swallowed."""
    open_server(dashboard, active_server)
    dashboard.until(lambda: dashboard.find('#action-stop').is_enabled(),
                    what='Stop enabled')
    dashboard.find('#action-stop').click()
    dashboard.until(lambda: 'hidden' not in dashboard.find('#modal').get_attribute('class'),
                    what='the confirmation modal')
    stopped = dashboard.cloud.http.compute('POST', '/servers/%s/action' % active_server,
                                           body={'os-stop': None})
    assert stopped.status_code == 202, stopped.text
    dashboard.confirm()
    dashboard.until(lambda: 'refused' in dashboard.text('#action-message'),
                    what='the refusal')
    message = dashboard.text('#action-message')
    assert message.startswith("Stop refused: Cannot 'stop' instance"), message
    assert 'form-error' in dashboard.find('#action-message').get_attribute('class')
    dashboard.screenshot('instance-action-refused')
    dashboard.wait_for_text('#instance-status', 'SHUTOFF', timeout=90)


def test_a_delete_shows_its_flow_then_stays_readable(dashboard, active_server):
    cloud = dashboard.cloud
    server_id = active_server
    record = cloud.record(server_id)
    open_server(dashboard, server_id)
    dashboard.find('#action-delete').click()
    dashboard.confirm()

    # The delete's steps, sampled while the server is still there and after.
    while_there, states = [], {}
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        selected, states, gone = dashboard.js(
            'const o = document.querySelector("#action-select option:checked");'
            'return [o ? o.textContent : "",'
            ' Object.fromEntries([...document.querySelectorAll("#flow-graph g.node")]'
            '.map(n => [n.dataset.atom, n.dataset.state])),'
            ' document.querySelector("main").dataset.gone];')
        if gone != 'true' and selected.startswith('delete'):
            while_there.append(states)
        if gone == 'true' and states and set(states.values()) == {'done'}:
            break
        time.sleep(0.2)
    assert while_there, 'the delete flow was never shown while the server existed'
    assert any('running' in s.values() for s in while_there), while_there[-1]
    assert 'destroy-domain' in states and set(states.values()) == {'done'}, states
    assert 'was deleted' in dashboard.text('#instance-gone')
    assert 'DELETED' in dashboard.text('#instance-status')
    dashboard.screenshot('instance-deleted')
    assert _server(cloud.http, server_id) is None
    assert cloud.leftovers(record) == []

    # Gone from the list; its actions stay readable by its id.
    dashboard.go('#/instances')
    dashboard.wait_for('#instances-table')
    assert SERVER_NAME not in dashboard.text('#instances-table')
    dashboard.go('#/instances/' + server_id)
    dashboard.wait_for_text('#instance-gone', 'was deleted')
    dashboard.until(lambda: dashboard.node_states().get('mark-deleted') == 'done',
                    what='the delete flow read back')
    actions = dashboard.text('#action-select')
    assert all(name in actions for name in ('delete', 'create', 'resume')), actions
    assert not dashboard.find_all('#action-delete, #console')
