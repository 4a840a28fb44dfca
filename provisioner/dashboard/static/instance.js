// One instance: its flow as a graph and a timeline (live while it changes), its
// serial console, addresses, volumes and fault, and the actions on it.

import * as api from './api.js';
import {age, el, formatTime, replace} from './dom.js';
import {attemptsList, legend, renderGraph} from './graph.js';
import {ipsOf} from './instances.js';
import {renderTimeline} from './timeline.js';
import {confirmModal, showBanner, statusBadge} from './ui.js';

const FINISHED = new Set(['success', 'failure', 'reverted', 'done', 'failed', 'finished', 'error']);
const LIVE_ATOM = new Set(['running', 'reverting']);

function flowFinished(flow) {
  if (!flow) return true;
  if (flow.atoms && flow.atoms.some((a) => LIVE_ATOM.has(a.state))) return false;
  return FINISHED.has(String(flow.state || '').toLowerCase());
}

function notFound(page, id, message) {
  page.stop();
  replace(page.main, el('div', {class: 'card', id: 'instance-not-found'}, [
    el('h1', {text: 'Instance not found'}),
    el('p', {text: message || ('There is no instance ' + id + ' in project ' +
                               api.session.current.project.name + '.')}),
    el('p', {}, [el('a', {href: '#/instances', text: 'Back to the instances'})]),
  ]));
}

export async function render(page, id) {
  const serverPath = api.compute('/servers/' + api.enc(id));
  let server;
  try {
    server = (await api.get(serverPath)).server;
  } catch (err) {
    if (err.status === 404) return notFound(page, id);
    throw err;
  }
  if (!page.alive) return;

  const title = el('h1', {id: 'instance-name', text: server.name});
  const status = el('span', {id: 'instance-status'});
  const buttons = el('div', {class: 'actions', id: 'instance-actions'});
  const actionMessage = el('p', {id: 'action-message', class: 'muted small', role: 'status'});
  const details = el('dl', {class: 'details', id: 'instance-details'});
  const fault = el('div', {id: 'instance-fault'});
  const actionSelect = el('select', {id: 'action-select', 'aria-label': 'Action'});
  const flowState = el('span', {id: 'flow-state', class: 'muted'});
  const graphArea = el('div', {id: 'graph-area', class: 'graph-area'});
  const attemptsArea = el('div', {id: 'attempts-area'});
  const timelineArea = el('div', {id: 'timeline-area'});
  const fit = el('button', {type: 'button', id: 'graph-fit', class: 'small-button', text: 'Fit to width'});
  const consolePre = el('pre', {id: 'console', class: 'console', tabindex: '0'});
  const consoleNote = el('span', {id: 'console-note', class: 'muted small'});

  replace(page.main, [
    el('div', {class: 'page-head'}, [
      el('div', {class: 'title-line'}, [title, status]),
      buttons,
    ]),
    actionMessage,
    fault,
    el('section', {class: 'card'}, [details]),
    el('section', {class: 'card'}, [
      el('div', {class: 'section-head'}, [
        el('h2', {text: 'Flow'}),
        el('label', {class: 'inline'}, ['Action ', actionSelect]),
        flowState,
        fit,
      ]),
      legend(),
      graphArea,
      attemptsArea,
      el('h3', {text: 'Timeline'}),
      timelineArea,
    ]),
    el('section', {class: 'card'}, [
      el('div', {class: 'section-head'}, [el('h2', {text: 'Serial console'}), consoleNote]),
      consolePre,
    ]),
  ]);

  // -- actions ------------------------------------------------------------------------
  const act = async (label, body, question) => {
    if (question && !(await confirmModal(label + ' ' + server.name + '?', question, label))) return;
    actionMessage.textContent = label + '…';
    follow.latest = true;
    try {
      await api.post(serverPath + '/action', body);
      actionMessage.textContent = label + ' requested.';
      refresh.now();
    } catch (err) {
      actionMessage.textContent = '';
      if (err.status !== 401) showBanner(label + ': ' + err.message, 'error');
    }
  };
  const remove = async () => {
    if (!(await confirmModal('Delete ' + server.name + '?',
                             'The instance, its volumes and its ports are deleted. This cannot be undone.',
                             'Delete'))) return;
    follow.latest = true;
    try {
      await api.del(serverPath);
      actionMessage.textContent = 'Delete requested.';
      refresh.now();
    } catch (err) {
      if (err.status !== 401) showBanner('Delete: ' + err.message, 'error');
    }
  };
  const button = (id, label, handler, kind) =>
    el('button', {type: 'button', id, class: kind || '', text: label, on: {click: handler}});
  replace(buttons, [
    button('action-stop', 'Stop', () => act('Stop', {'os-stop': null},
      'The guest is shut down (ACPI, then forced); its disks and addresses are kept.')),
    button('action-start', 'Start', () => act('Start', {'os-start': null})),
    button('action-reboot-soft', 'Reboot', () => act('Reboot', {reboot: {type: 'SOFT'}},
      'The guest is asked to restart.')),
    button('action-reboot-hard', 'Hard reboot', () => act('Hard reboot', {reboot: {type: 'HARD'}},
      'The guest is powered off and on again, without asking it: unsaved data is lost.')),
    button('action-resume', 'Resume', () => act('Resume', {'provisioner:resume': null})),
    button('action-rollback', 'Rollback', () => act('Rollback', {'provisioner:rollback': null},
      'Every step the interrupted boot ran is undone: the instance ends in ERROR with nothing left behind.'), 'danger'),
    button('action-delete', 'Delete', remove, 'danger'),
  ]);

  // -- the flow ------------------------------------------------------------------------
  const follow = {latest: true, request: null, actions: []};
  let fitGraph = false;
  let lastFlow = null;
  let lastEvents = [];
  const redraw = () => {
    if (lastFlow && lastFlow.atoms && lastFlow.atoms.length) renderGraph(graphArea, lastFlow, {fit: fitGraph});
    renderTimeline(timelineArea, lastEvents, Date.now());
  };
  fit.addEventListener('click', () => {
    fitGraph = !fitGraph;
    fit.textContent = fitGraph ? 'Actual size' : 'Fit to width';
    redraw();
  });
  let resizing = null;
  page.listen('resize', () => {
    clearTimeout(resizing);
    resizing = setTimeout(redraw, 150);
  });
  actionSelect.addEventListener('change', () => {
    follow.latest = false;
    follow.request = actionSelect.value;
    refresh.now();
  });

  // Names of the flavor and image, and the sizes of the volumes (each read once).
  const names = new Map();
  const lookup = (key, path, read) => {
    if (!names.has(key)) {
      names.set(key, null);
      api.get(path).then((body) => { names.set(key, read(body)); drawServer(); })
        .catch(() => names.delete(key));
    }
    return names.get(key);
  };
  const flavorName = (id) => lookup('flavor:' + id, api.compute('/flavors/' + api.enc(id)),
    (b) => b.flavor.name + ' (' + b.flavor.vcpus + ' vCPU, ' + b.flavor.ram + ' MiB, ' + b.flavor.disk + ' GiB)');
  const imageName = (id) => lookup('image:' + id, '/image/v2/images/' + api.enc(id), (b) => b.name);
  const volumeText = (id) => {
    const known = lookup('volume:' + id, api.volumeApi('/volumes/' + api.enc(id)),
                         (b) => b.volume.size + ' GiB, ' + b.volume.status);
    return id + (known ? ' (' + known + ')' : '');
  };
  const setButtons = () => {
    const status = server.status;
    const busy = Boolean(server['OS-EXT-STS:task_state']);
    buttons.querySelector('#action-stop').disabled = busy || status !== 'ACTIVE';
    buttons.querySelector('#action-start').disabled = busy || status !== 'SHUTOFF';
    buttons.querySelector('#action-reboot-soft').disabled = busy || status !== 'ACTIVE';
    buttons.querySelector('#action-reboot-hard').disabled = busy || !['ACTIVE', 'SHUTOFF'].includes(status);
    // Only an interrupted boot (still BUILD) can be resumed or rolled back.
    buttons.querySelector('#action-resume').disabled = status !== 'BUILD';
    buttons.querySelector('#action-rollback').disabled = status !== 'BUILD';
  };

  const drawServer = () => {
    title.textContent = server.name;
    replace(status, [statusBadge(server.status),
                     server['OS-EXT-STS:task_state'] ? el('span', {class: 'task-state', id: 'instance-task',
                       text: server['OS-EXT-STS:task_state']}) : null]);
    const volumes = server['os-extended-volumes:volumes_attached'] || [];
    const rows = [
      ['ID', server.id],
      ['Addresses', ipsOf(server) || '—'],
      ['Volumes', volumes.length ? volumes.map((v) => volumeText(v.id)).join(', ') : '—'],
      ['Flavor', server.flavor ? flavorName(server.flavor.id) || server.flavor.id : ''],
      ['Image', server.image ? imageName(server.image.id) || server.image.id : ''],
      ['Key pair', server.key_name || '—'],
      ['Zone', server['OS-EXT-AZ:availability_zone'] || '—'],
      api.session.isAdmin ? ['Host', server['OS-EXT-SRV-ATTR:host'] || '—'] : null,
      ['Created', formatTime(server.created) + ' (' + age(server.created) + ' ago)'],
    ].filter(Boolean);
    replace(details, rows.map(([k, v]) => [el('dt', {text: k}), el('dd', {'data-field': k.toLowerCase(), text: v})]));
    setButtons();
    replace(fault, server.fault ? el('div', {class: 'fault', role: 'alert'}, [
      el('strong', {text: 'Fault: '}), server.fault.message || '']) : []);
  };

  const drawActions = () => {
    const want = follow.latest ? (follow.actions[0] || {}).request_id : follow.request;
    replace(actionSelect, follow.actions.map((a) => el('option', {
      value: a.request_id, selected: a.request_id === want,
      text: a.action + ' · ' + formatTime(a.start_time) + ' · ' + a.request_id})));
    follow.request = want || null;
  };

  let gone = false;
  const tick = async () => {
    try {
      server = (await api.get(serverPath)).server;
    } catch (err) {
      if (err.status === 404) {
        gone = true;
        notFound(page, id, 'Instance ' + server.name + ' (' + id + ') was deleted.');
        return 5000;
      }
      throw err;
    }
    if (!page.alive) return 5000;
    drawServer();
    follow.actions = (await api.get(serverPath + '/os-instance-actions')).instanceActions || [];
    drawActions();
    let flow = null;
    let events = [];
    if (follow.request) {
      const actionPath = serverPath + '/os-instance-actions/' + api.enc(follow.request);
      const [action, flowBody] = await Promise.all([
        api.get(actionPath),
        api.get(actionPath + '/flow').catch((err) => {
          if (err.status === 404 || err.status === 501) return null;
          throw err;
        }),
      ]);
      events = action.instanceAction.events || [];
      flow = flowBody ? flowBody.flow : null;
    }
    if (!page.alive) return 5000;
    lastFlow = flow;
    lastEvents = events;
    if (flow && flow.atoms && flow.atoms.length) {
      renderGraph(graphArea, flow, {fit: fitGraph});
      replace(attemptsArea, attemptsList(flow));
      flowState.textContent = 'flow ' + (flow.name || '') + ': ' + (flow.state || '');
      flowState.setAttribute('data-state', String(flow.state || ''));
    } else {
      replace(graphArea, el('p', {class: 'muted', id: 'graph-empty',
        text: follow.request ? 'No flow is recorded for this action.' : 'No action yet.'}));
      replace(attemptsArea, []);
      flowState.textContent = '';
    }
    renderTimeline(timelineArea, events, Date.now());
    const live = server['OS-EXT-STS:task_state'] !== null && server['OS-EXT-STS:task_state'] !== undefined ||
                 (flow !== null && !flowFinished(flow)) || events.some((e) => !e.finish_time);
    page.main.setAttribute('data-live', live ? 'true' : 'false');
    return live ? 1000 : 4000;
  };
  const refresh = {now: () => {}};
  const loop = () => page.every(1000, tick);
  refresh.now = () => { tick().catch((err) => page.error(err)); };
  loop();

  // -- the console -----------------------------------------------------------------
  let shown = '';
  page.every(1500, async () => {
    if (gone) return 5000;
    let output;
    try {
      output = (await api.post(serverPath + '/action', {'os-getConsoleOutput': {}})).output || '';
    } catch (err) {
      if (err.status === 404 || err.status === 409) {
        consoleNote.textContent = err.message;
        return 3000;
      }
      throw err;
    }
    consoleNote.textContent = output ? output.split('\n').length + ' lines' : 'The guest has printed nothing yet.';
    if (output === shown) return page.main.getAttribute('data-live') === 'true' ? 1000 : 3000;
    const atBottom = consolePre.scrollTop + consolePre.clientHeight >= consolePre.scrollHeight - 24;
    if (output.startsWith(shown)) {
      consolePre.appendChild(document.createTextNode(output.slice(shown.length)));
    } else {
      consolePre.textContent = output;
    }
    shown = output;
    if (atBottom) consolePre.scrollTop = consolePre.scrollHeight;
    return 1000;
  });
}
