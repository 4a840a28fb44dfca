"""One real boot driven from the dashboard: launched from the form with a volume,
watched live as a graph and a timeline (which fit the window, first step first),
its console followed, then stopped, started and deleted (the deleted instance's
flows stay readable); hostile console output and another project's view of it."""

import time

from selenium.webdriver.support.ui import Select

XSS_CONSOLE = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">'


def launch(dashboard, name, volumes=''):
    """Fill and send the launch form; the new server's id (from the page's URL)."""
    dashboard.go('#/instances')
    dashboard.wait_for('#instances-table')
    dashboard.find('#launch-open').click()
    dashboard.wait_for('#launch-form')
    dashboard.find('#launch-name').send_keys(name)
    Select(dashboard.find('#launch-flavor')).select_by_index(1)
    Select(dashboard.find('#launch-image')).select_by_index(1)
    if volumes:
        dashboard.find('#launch-volumes').send_keys(volumes)
    assert dashboard.find('#launch-networks input[type=checkbox]').is_selected()
    dashboard.screenshot('launch-form')
    dashboard.find('#launch-submit').click()
    dashboard.until(lambda: '#/instances/' in dashboard.driver.current_url,
                    what='the instance page')
    return dashboard.driver.current_url.rsplit('/', 1)[-1]


def watch_flow(dashboard, timeout=150):
    """Node states and timeline rows, sampled until the flow is over: (samples of
    the set of done nodes, samples of the number of timeline rows, last states)."""
    done_sets, row_counts = [], []
    deadline = time.monotonic() + timeout
    states = {}
    while time.monotonic() < deadline:
        states, rows, live = dashboard.flow_snapshot()
        done = frozenset(n for n, s in states.items() if s == 'done')
        if not done_sets or done != done_sets[-1]:
            done_sets.append(done)
        if not row_counts or len(rows) != row_counts[-1]:
            row_counts.append(len(rows))
        if states and live == 'false' and not any(
                s in ('running', 'reverting') for s in states.values()):
            break  # the flow is over (a failed one leaves the steps after it pending)
        time.sleep(0.25)
    return done_sets, row_counts, states


def other_project_user(http, name):
    """A member of a new project of its own: (user, password, project)."""
    password = 'other-secret'
    project = http.request('POST', '/identity/v3/projects', body={'project': {
        'name': name, 'domain_id': 'default'}})
    assert project.status_code == 201, project.text
    project_id = project.json()['project']['id']
    user = http.request('POST', '/identity/v3/users', body={'user': {
        'name': name, 'password': password, 'domain_id': 'default',
        'default_project_id': project_id}})
    assert user.status_code == 201, user.text
    roles = http.request('GET', '/identity/v3/roles').json()['roles']
    member = [r for r in roles if r['name'] in ('member', '_member_')][0]
    granted = http.request('PUT', '/identity/v3/projects/%s/users/%s/roles/%s'
                           % (project_id, user.json()['user']['id'], member['id']))
    assert granted.status_code in (200, 204), granted.text
    return name, password, name


def _api_flow_states(http, server_id):
    """What the REST API says of the boot's flow now (said when the page disagrees)."""
    actions = http.compute('GET', '/servers/%s/os-instance-actions'
                           % server_id).json()['instanceActions']
    flows = {}
    for action in actions:
        flow = http.compute('GET', '/servers/%s/os-instance-actions/%s/flow'
                            % (server_id, action['request_id'])).json()['flow']
        flows[action['action']] = (flow['state'], {a['name']: a['state']
                                                   for a in flow['atoms']})
    return flows


def assert_graph_fits(dashboard):
    """The flow graph fits its area and the page fits the window: nothing to scroll
    sideways, and the first step is drawn first (top left)."""
    width, area, scrolled, page, window, nodes = dashboard.js(
        'const area = document.querySelector("#graph-area");'
        'return [+document.querySelector("#flow-graph").getAttribute("width"),'
        ' area.clientWidth, area.scrollWidth > area.clientWidth || area.scrollLeft > 0,'
        ' document.documentElement.scrollWidth, window.innerWidth,'
        ' [...document.querySelectorAll("#flow-graph g.node")].map(n => [n.dataset.atom,'
        ' +n.dataset.band, n.getBoundingClientRect().left])];')
    assert window == 1400 and page <= window, (page, window)
    assert width <= area and not scrolled, (width, area, scrolled)
    first = min(nodes, key=lambda n: (n[1], n[2]))
    assert first[0] == 'instance-lifecycle-guard', nodes
    assert max(n[1] for n in nodes) >= 1, 'a boot is wider than one band at 1400 px'


def test_boot_watched_live_then_stop_start_delete(dashboard):
    cloud = dashboard.cloud
    dashboard.login()
    dashboard.wait_for('#instances-table')
    dashboard.watch_alerts()
    server_id = launch(dashboard, 'dash-vm', volumes='1')
    dashboard.wait_for('#flow-graph', timeout=30)
    dashboard.screenshot('instance-booting')
    # A boot under way: nothing to resume or roll back.
    assert not dashboard.find('#action-resume').is_displayed()
    assert not dashboard.find('#action-rollback').is_displayed()

    done_sets, row_counts, states = watch_flow(dashboard)
    print('done nodes over time:', [len(d) for d in done_sets], 'timeline rows:',
          row_counts)
    assert states and set(states.values()) == {'done'}, (
        states, _api_flow_states(dashboard.cloud.http, server_id))
    growing = [d for d in done_sets if d]
    assert len(growing) >= 2 and all(a < b for a, b in zip(growing, growing[1:])), \
        done_sets
    assert len(row_counts) >= 2 and row_counts == sorted(row_counts), row_counts
    assert {'define-domain', 'start-domain'} <= set(states)
    kinds = dict(dashboard.timeline_rows())
    assert kinds.get('define-domain') == 'done', kinds

    # The guest's console, followed: its IP line appears.
    line = dashboard.until(lambda: [x for x in dashboard.text('#console').splitlines()
                                    if x.startswith('PROVISIONER-GUEST: ip=')],
                           timeout=120, what='the guest IP line')[0]
    shown = dashboard.cloud.http.compute('GET', '/servers/%s' % server_id).json()
    assert line.split('=', 1)[1] == shown['server']['addresses']['net1'][0]['addr']
    assert 'ACTIVE' in dashboard.text('#instance-status')
    assert shown['server']['os-extended-volumes:volumes_attached']
    dashboard.wait_for_text('#instance-details', line.split('=', 1)[1])
    assert not dashboard.find('#action-resume').is_displayed()
    assert_graph_fits(dashboard)
    dashboard.screenshot('instance')  # the README's picture

    # What the guest prints is text, never markup: a line of HTML in its console.
    record = cloud.record(server_id)
    with open(record['console_log'], 'a') as console:
        console.write('\n' + XSS_CONSOLE + '\n')
    dashboard.wait_for_text('#console', XSS_CONSOLE, timeout=30)
    assert not dashboard.find_all('#console script, #console img')
    assert not dashboard.xss_fired()

    # Another project's user asks for it by URL: not found.
    user, password, project = other_project_user(cloud.http, 'dash-other')
    dashboard.logout()
    dashboard.login(user, password, project)
    dashboard.wait_for('#instances-table')
    assert 'dash-vm' not in dashboard.text('#instances-table')
    dashboard.go('#/instances/' + server_id)
    dashboard.wait_for_text('#instance-not-found', 'not found')
    dashboard.screenshot('instance-other-project')
    dashboard.logout()
    dashboard.login()

    # Stop and start, each asked first in the page's own modal.
    dashboard.go('#/instances/' + server_id)
    dashboard.until(lambda: dashboard.find('#action-stop').is_enabled(),
                    what='the stop button enabled')
    dashboard.find('#action-stop').click()
    dashboard.confirm()
    dashboard.wait_for_text('#instance-status', 'SHUTOFF', timeout=90)
    dashboard.until(lambda: dashboard.find('#action-start').is_enabled(),
                    what='the start button enabled')
    dashboard.find('#action-start').click()
    dashboard.wait_for_text('#instance-status', 'ACTIVE', timeout=90)
    dashboard.until(lambda: not dashboard.text('#instance-task'), timeout=60,
                    what='no task state')
    actions = dashboard.text('#action-select')
    assert 'stop' in actions and 'start' in actions and 'create' in actions, actions

    # Delete: asked, then the page says it is gone and keeps its flow to the end;
    # nothing of it remains.
    dashboard.find('#action-delete').click()
    dashboard.confirm()
    dashboard.wait_for_text('#instance-gone', 'was deleted', timeout=90)
    dashboard.until(lambda: set(dashboard.node_states().values()) == {'done'}
                    and 'mark-deleted' in dashboard.node_states(),
                    what='the delete flow done')
    assert cloud.leftovers(record) == []
    assert not dashboard.xss_fired()
