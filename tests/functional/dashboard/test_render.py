"""The graph and timeline modules, fed a flow that a single all-in-one host cannot
produce (a reschedule onto a second host, every state at once, a hostile step
name), rendered in the browser from the served modules, into areas of several
widths (the graph's layers wrap into bands that fit the area)."""

import pytest

HOSTILE = '<img src=x onerror=window.__xss=3>'

FLOW = {
    'name': 'boot-instance', 'action': 'create', 'request_id': 'req-1', 'state': 'RUNNING',
    'atoms': [
        {'name': 'guard', 'kind': 'task', 'group': None, 'state': 'done', 'host': None,
         'attempt': None},
        {'name': 'reschedule', 'kind': 'retry', 'group': 'reschedule-flow',
         'state': 'done', 'host': None, 'attempt': 2},
        {'name': 'claim-resources', 'kind': 'task', 'group': 'reschedule-flow',
         'state': 'done', 'host': 'h2', 'attempt': 2},
        {'name': 'fetch-image', 'kind': 'task', 'group': 'prepare', 'state': 'running',
         'host': 'h2', 'attempt': 2},
        {'name': HOSTILE, 'kind': 'task', 'group': 'prepare', 'state': 'pending',
         'host': None, 'attempt': None},
        {'name': 'define-domain', 'kind': 'task', 'group': 'reschedule-flow',
         'state': 'failed', 'host': 'h2', 'attempt': 2},
        {'name': 'start-domain', 'kind': 'task', 'group': None, 'state': 'reverting',
         'host': None, 'attempt': None},
        {'name': 'mark-active', 'kind': 'task', 'group': None, 'state': 'reverted',
         'host': None, 'attempt': None},
    ],
    'groups': [{'name': 'reschedule-flow', 'kind': 'linear', 'retry': 'reschedule',
                'parent': None},
               {'name': 'prepare', 'kind': 'graph', 'retry': None,
                'parent': 'reschedule-flow'}],
    'links': [{'from': 'guard', 'to': 'reschedule'},
              {'from': 'reschedule', 'to': 'claim-resources'},
              {'from': 'claim-resources', 'to': 'prepare'},
              {'from': 'prepare', 'to': 'define-domain'},
              {'from': 'define-domain', 'to': 'start-domain'},
              {'from': 'start-domain', 'to': 'mark-active'}],
    'attempts': [{'attempt': 1, 'host': 'h1', 'failed': True,
                  'error': 'define-domain: ' + HOSTILE},
                 {'attempt': 2, 'host': 'h2', 'failed': False, 'error': None}],
    'steps': [{'atom': 'claim-resources', 'phase': 'execute'},
              {'atom': 'claim-resources', 'phase': 'revert'},
              {'atom': 'claim-resources', 'phase': 'execute'}],
}

EVENTS = [
    {'event': 'guard', 'start_time': '2026-11-23T15:00:00.000000',
     'finish_time': '2026-11-23T15:00:00.100000', 'result': 'Success'},
    {'event': 'define-domain', 'start_time': '2026-11-23T15:00:01.000000',
     'finish_time': '2026-11-23T15:00:02.000000', 'result': 'Error'},
    {'event': 'define-domain (revert)', 'start_time': '2026-11-23T15:00:02.100000',
     'finish_time': '2026-11-23T15:00:02.300000', 'result': 'Success'},
    {'event': 'start-domain', 'start_time': '2026-11-23T15:00:03.000000',
     'finish_time': '2026-11-23T15:00:03.500000', 'result': 'Interrupted'},
    {'event': HOSTILE, 'start_time': '2026-11-23T15:00:04.000000',
     'finish_time': None, 'result': None},
]

RENDER = '''
const done = arguments[arguments.length - 1];
const [root, flow, events, width] = arguments;
const modules = [import(root + '/graph.js'), import(root + '/timeline.js')];
Promise.all(modules).then(([graph, timeline]) => {
  const area = document.createElement('div');
  area.id = 'render-test';
  document.body.appendChild(area);
  const graphArea = document.createElement('div');
  if (width) graphArea.style.width = width + 'px';  // the test's own CSSOM, not markup
  const timelineArea = document.createElement('div');
  area.append(graphArea, timelineArea, graph.legend(), graph.attemptsList(flow));
  graph.renderGraph(graphArea, flow);
  timeline.renderTimeline(timelineArea, events, Date.parse('2026-11-23T15:00:05Z'));
  const nodes = [...graphArea.querySelectorAll('g.node')].map((n) => ({
    name: n.dataset.atom, state: n.dataset.state, runs: n.dataset.runs || null,
    band: +n.dataset.band,
    x: +/translate\\(([-\\d.]+)/.exec(n.getAttribute('transform'))[1],
    y: +/translate\\([-\\d.]+ ([-\\d.]+)/.exec(n.getAttribute('transform'))[1],
    badge: (n.querySelector('.badge-text') || {}).textContent || null}));
  const svg = graphArea.querySelector('svg');
  done({nodes,
        width: +svg.getAttribute('width'), area: graphArea.clientWidth,
        bands: +svg.dataset.bands,
        edges: graphArea.querySelectorAll('path.edge').length,
        groups: [...graphArea.querySelectorAll('g.group')].map((g) => g.dataset.group),
        rows: [...timelineArea.querySelectorAll('g.bar-row')].map(
          (r) => [r.dataset.event, r.dataset.kind]),
        legend: area.querySelector('#flow-legend').textContent,
        attempts: area.querySelector('#flow-attempts').textContent,
        markup: area.querySelectorAll('img, script').length});
}).catch((err) => done({error: String(err)}));
'''


def render(dashboard, width=None):
    dashboard.js('window.__xss = undefined;')
    try:
        result = dashboard.driver.execute_async_script(
            RENDER, '/dashboard/static', FLOW, EVENTS, width)
    finally:
        dashboard.js('const e = document.getElementById("render-test"); if (e) e.remove();')
    assert 'error' not in result, result
    return {**result, 'page': dashboard}


@pytest.fixture
def rendered(dashboard):
    """The flow drawn at the window's width (1400 px)."""
    return render(dashboard)


# Reading order: the layers left to right, wrapping into bands top to bottom.
ORDER = ['guard', 'reschedule', 'claim-resources', 'fetch-image', 'define-domain',
         'start-domain', 'mark-active']


def test_graph_layout_states_and_attempts(rendered):
    nodes = {n['name']: n for n in rendered['nodes']}
    assert {n: v['state'] for n, v in nodes.items()} == {
        a['name']: a['state'] for a in FLOW['atoms']}
    # Layered left to right along the links, wrapped to the area; the group's atoms
    # share a layer.
    places = [(nodes[n]['band'], nodes[n]['x']) for n in ORDER]
    assert places == sorted(places) and len(set(places)) == len(places), places
    assert nodes['guard']['x'] == min(n['x'] for n in nodes.values())
    assert nodes['guard']['band'] == 0 and rendered['bands'] == 2, places
    assert rendered['width'] <= rendered['area'], rendered
    assert nodes[HOSTILE]['x'] == nodes['fetch-image']['x']
    assert nodes[HOSTILE]['y'] != nodes['fetch-image']['y']
    assert rendered['edges'] == 8  # a link to a group reaches each of its atoms
    assert set(rendered['groups']) == {'reschedule-flow', 'prepare'}
    # The reschedule is visible: a badge on the attempt's steps, and the list.
    assert nodes['fetch-image']['badge'] == 'attempt 2 on host h2'
    assert nodes['claim-resources']['runs'] == '2'
    assert 'attempt 1 on host h1: failed' in rendered['attempts']
    assert 'attempt 2 on host h2: ok' in rendered['attempts']
    for state in ('pending', 'running', 'done', 'failed', 'reverting', 'reverted'):
        assert state in rendered['legend']


def test_timeline_bars_and_nothing_runs(rendered):
    assert rendered['rows'] == [
        ['guard', 'done'], ['define-domain', 'failed'],
        ['define-domain (revert)', 'reverted'], ['start-domain', 'interrupted'],
        [HOSTILE, 'running']]
    assert rendered['markup'] == 0
    assert HOSTILE in rendered['attempts']
    assert not rendered['page'].xss_fired()


@pytest.mark.parametrize('width, bands', [(3000, 1), (700, 3), (200, 7)])
def test_graph_wraps_to_its_area(dashboard, width, bands):
    """Wide enough, one row of layers; narrower, more bands, never wider than the
    area (down to one layer per band); the links and their order are kept."""
    result = render(dashboard, width)
    nodes = {n['name']: n for n in result['nodes']}
    assert result['bands'] == bands, result['bands']
    places = [(nodes[n]['band'], nodes[n]['x']) for n in ORDER]
    assert places == sorted(places), places
    assert result['edges'] == 8
    if width >= 240:  # one step and its margins
        assert result['width'] <= width, result['width']
