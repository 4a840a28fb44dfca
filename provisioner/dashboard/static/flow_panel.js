// The flows behind a server's actions: choose an action (the latest by default) and
// see its flow as a graph and a timeline, live while it runs. A deleted server keeps
// this panel: its actions stay readable by its id, so a delete's flow can be read
// to its end after the server is gone.

import * as api from './api.js';
import {el, formatTime, replace} from './dom.js';
import {attemptsList, legend, renderGraph} from './graph.js';
import {renderTimeline} from './timeline.js';

// Flow states after which nothing runs until someone asks (suspended: an interrupted boot).
const FINISHED = new Set(['success', 'failure', 'reverted', 'suspended', 'done', 'failed', 'finished', 'error']);
const LIVE_ATOM = new Set(['running', 'reverting']);

export function flowFinished(flow) {
  if (!flow) return true;
  if (flow.atoms && flow.atoms.some((a) => LIVE_ATOM.has(a.state))) return false;
  return FINISHED.has(String(flow.state || '').toLowerCase());
}

// The flow of one action; null when none is recorded (404) or the API has no flow
// extension (501).
export async function fetchFlow(serverPath, requestId) {
  try {
    return (await api.get(serverPath + '/os-instance-actions/' + api.enc(requestId) + '/flow')).flow;
  } catch (err) {
    if (err.status === 404 || err.status === 501) return null;
    throw err;
  }
}

// onPick(): the user chose another action in the list (refresh now).
export function flowPanel(page, serverPath, onPick) {
  const actionSelect = el('select', {id: 'action-select', 'aria-label': 'Action'});
  const flowState = el('span', {id: 'flow-state', class: 'muted'});
  const graphArea = el('div', {id: 'graph-area', class: 'graph-area'});
  const attemptsArea = el('div', {id: 'attempts-area'});
  const timelineArea = el('div', {id: 'timeline-area'});
  const node = el('section', {class: 'card', id: 'flow-section'}, [
    el('div', {class: 'section-head'}, [
      el('h2', {text: 'Flow'}),
      el('label', {class: 'inline'}, ['Action ', actionSelect]),
      flowState,
    ]),
    legend(),
    graphArea,
    attemptsArea,
    el('h3', {text: 'Timeline'}),
    timelineArea,
  ]);
  const shown = {latest: true, request: null, actions: [], flow: null, events: []};

  const draw = () => {
    const flow = shown.flow;
    if (flow && flow.atoms && flow.atoms.length) {
      renderGraph(graphArea, flow);
      replace(attemptsArea, attemptsList(flow));
      flowState.textContent = 'flow ' + (flow.name || '') + ': ' + (flow.state || '');
      flowState.setAttribute('data-state', String(flow.state || ''));
    } else {
      replace(graphArea, el('p', {class: 'muted', id: 'graph-empty',
        text: shown.request ? 'No flow is recorded for this action.' : 'No action yet.'}));
      replace(attemptsArea, []);
      flowState.textContent = '';
    }
    renderTimeline(timelineArea, shown.events, Date.now());
  };
  // Both views are drawn to the area's width: again when it changes.
  let resizing = null;
  page.listen('resize', () => {
    clearTimeout(resizing);
    resizing = setTimeout(draw, 150);
  });
  actionSelect.addEventListener('change', () => {
    shown.latest = false;
    shown.request = actionSelect.value;
    onPick();
  });

  const drawActions = () => {
    const want = shown.latest ? (shown.actions[0] || {}).request_id : shown.request;
    replace(actionSelect, shown.actions.map((a) => el('option', {
      value: a.request_id, selected: a.request_id === want,
      text: a.action + ' · ' + formatTime(a.start_time) + ' · ' + a.request_id})));
    shown.request = want || null;
  };

  return {
    node,
    // After the user asked for something: show the action it makes, once listed.
    followLatest() { shown.latest = true; },
    get actions() { return shown.actions; },
    get request() { return shown.request; },
    get flow() { return shown.flow; },
    // Read the actions and the chosen one's flow and events; whether it still runs.
    async refresh() {
      shown.actions = (await api.get(serverPath + '/os-instance-actions')).instanceActions || [];
      drawActions();
      let flow = null;
      let events = [];
      if (shown.request) {
        const [action, found] = await Promise.all([
          api.get(serverPath + '/os-instance-actions/' + api.enc(shown.request)),
          fetchFlow(serverPath, shown.request),
        ]);
        events = action.instanceAction.events || [];
        flow = found;
      }
      if (!page.alive) return false;
      shown.flow = flow;
      shown.events = events;
      draw();
      return (flow !== null && !flowFinished(flow)) || events.some((e) => !e.finish_time);
    },
  };
}
