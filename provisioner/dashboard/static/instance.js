// One instance: its details and fault, its volumes, the flow of any of its actions
// (live while it changes), its serial console, and the actions on it. Once it is
// deleted, the page keeps its actions and their flows, which the API keeps readable
// by the instance's id: a delete is watched to its last step.

import * as api from './api.js';
import {age, el, formatTime, replace} from './dom.js';
import {fetchFlow, flowPanel} from './flow_panel.js';
import {ipsOf} from './instances.js';
import {latestBootRequest, serverActions} from './server_actions.js';
import {serverVolumes} from './server_volumes.js';
import {statusBadge} from './ui.js';

function notFound(page, id) {
  page.stop();
  replace(page.main, el('div', {class: 'card', id: 'instance-not-found'}, [
    el('h1', {text: 'Instance not found'}),
    el('p', {text: 'There is no instance ' + id + ' in project ' + api.session.current.project.name + '.'}),
    el('p', {}, [el('a', {href: '#/instances', text: 'Back to the instances'})]),
  ]));
}

// The server, or null when it is not there (deleted, or never was).
async function readServer(serverPath) {
  try {
    return (await api.get(serverPath)).server;
  } catch (err) {
    if (err.status === 404) return null;
    throw err;
  }
}

// Whether a server that is not there has actions to read: a deleted one of the
// caller's project does; one that never was, or another project's, does not.
async function hasActions(serverPath) {
  try {
    await api.get(serverPath + '/os-instance-actions');
    return true;
  } catch (err) {
    if (err.status === 404) return false;
    throw err;
  }
}

export async function render(page, id) {
  const serverPath = api.compute('/servers/' + api.enc(id));
  let server = await readServer(serverPath);
  if (!server && !(await hasActions(serverPath))) return notFound(page, id);
  if (!page.alive) return;

  const title = el('h1', {id: 'instance-name', text: server ? server.name : 'Instance ' + id});
  const status = el('span', {id: 'instance-status'});
  const gone = el('div', {id: 'instance-gone', class: 'notice hidden', role: 'status'});
  const details = el('dl', {class: 'details', id: 'instance-details'});
  const fault = el('div', {id: 'instance-fault'});
  const consolePre = el('pre', {id: 'console', class: 'console', tabindex: '0'});
  const consoleNote = el('span', {id: 'console-note', class: 'muted small'});
  const refresh = {now: () => {}};
  const flow = flowPanel(page, serverPath, () => refresh.now());
  const answered = (accepted) => {
    if (accepted) flow.followLatest();
    refresh.now();
  };
  const buttons = serverActions(serverPath, () => server, answered);
  const volumes = serverVolumes(id, answered);
  const detailsCard = el('section', {class: 'card'}, [details]);
  const consoleCard = el('section', {class: 'card', id: 'console-section'}, [
    el('div', {class: 'section-head'}, [el('h2', {text: 'Serial console'}), consoleNote]),
    consolePre,
  ]);
  replace(page.main, [
    el('div', {class: 'page-head'}, [el('div', {class: 'title-line'}, [title, status]), buttons.node]),
    buttons.message,
    gone,
    fault,
    detailsCard,
    flow.node,
    volumes.node,
    consoleCard,
  ]);

  // Names of the flavor and image (each read once).
  const names = new Map();
  const lookup = (key, path, read) => {
    if (!names.has(key)) {
      names.set(key, null);
      api.get(path).then((body) => { names.set(key, read(body)); if (server) drawServer(); })
        .catch(() => names.delete(key));
    }
    return names.get(key);
  };
  const flavorName = (flavorId) => lookup('flavor:' + flavorId, api.compute('/flavors/' + api.enc(flavorId)),
    (b) => b.flavor.name + ' (' + b.flavor.vcpus + ' vCPU, ' + b.flavor.ram + ' MiB, ' + b.flavor.disk + ' GiB)');
  const imageName = (imageId) => lookup('image:' + imageId, '/image/v2/images/' + api.enc(imageId), (b) => b.name);

  const drawServer = () => {
    title.textContent = server.name;
    replace(status, [statusBadge(server.status),
                     server['OS-EXT-STS:task_state'] ? el('span', {class: 'task-state', id: 'instance-task',
                       text: server['OS-EXT-STS:task_state']}) : null]);
    const rows = [
      ['ID', server.id],
      ['Addresses', ipsOf(server) || '—'],
      ['Flavor', server.flavor ? flavorName(server.flavor.id) || server.flavor.id : ''],
      ['Image', server.image ? imageName(server.image.id) || server.image.id : '(booted from a volume)'],
      ['Key pair', server.key_name || '—'],
      ['Zone', server['OS-EXT-AZ:availability_zone'] || '—'],
      api.session.isAdmin ? ['Host', server['OS-EXT-SRV-ATTR:host'] || '—'] : null,
      ['Created', formatTime(server.created) + ' (' + age(server.created) + ' ago)'],
    ].filter(Boolean);
    replace(details, rows.map(([k, v]) => [el('dt', {text: k}), el('dd', {'data-field': k.toLowerCase(), text: v})]));
    replace(fault, server.fault ? el('div', {class: 'fault', role: 'alert'}, [
      el('strong', {text: 'Fault: '}), server.fault.message || '']) : []);
  };

  // The server is gone: what remains readable is its actions and their flows.
  const becomeGone = () => {
    const known = server;
    server = null;
    replace(status, statusBadge('DELETED'));
    gone.textContent = 'Instance ' + (known ? known.name + ' (' + id + ')' : id) + ' was deleted. Its actions ' +
                       'and their flows stay readable here.';
    gone.classList.remove('hidden');
    for (const part of [buttons.node, detailsCard, volumes.node, consoleCard, fault]) part.remove();
  };
  if (server) {
    drawServer();
    buttons.update(server, null);
  } else {
    becomeGone();
  }

  // Resume and rollback act on an interrupted boot only: read the flow of the
  // latest boot action while the server is building (the shown one, if it is).
  const bootFlow = async () => {
    if (server['OS-EXT-STS:vm_state'] !== 'building') return null;
    const request = latestBootRequest(flow.actions);
    if (!request) return null;
    return request === flow.request ? flow.flow : fetchFlow(serverPath, request);
  };

  const tick = async () => {
    if (server) {
      const read = await readServer(serverPath);
      if (!page.alive) return 5000;
      if (read) {
        server = read;
        drawServer();
      } else {
        becomeGone();
      }
    }
    const flowLive = await flow.refresh();
    let volumesMoving = false;
    if (server && page.alive) {
      buttons.update(server, await bootFlow());
      volumesMoving = await volumes.refresh(server);
    }
    const live = Boolean(server && server['OS-EXT-STS:task_state']) || flowLive || volumesMoving;
    page.main.setAttribute('data-live', live ? 'true' : 'false');
    page.main.setAttribute('data-gone', server ? 'false' : 'true');
    return live ? 1000 : server ? 4000 : 15000;
  };
  refresh.now = () => { tick().catch((err) => page.error(err)); };
  page.every(1000, tick);
  followConsole(page, serverPath, consolePre, consoleNote, () => server === null);
}

// The serial console, following new lines (kept at the bottom if it was there).
function followConsole(page, serverPath, consolePre, consoleNote, isGone) {
  let shown = '';
  page.every(1500, async () => {
    if (isGone()) return 60000;
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
