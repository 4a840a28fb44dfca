// A flow as a graph: its atoms (tasks and retry controllers) and their links, laid
// out as a layered DAG from left to right, each node coloured by its state.

import {append, el, replace, svg} from './dom.js';

export const STATES = ['pending', 'running', 'done', 'failed', 'reverting', 'reverted'];

const NODE_W = 172;
const NODE_H = 40;
const GAP_X = 36;
const GAP_Y = 26;
const MARGIN = 34;

function groupsOf(flow) {
  const byName = new Map((flow.groups || []).map((g) => [g.name, g]));
  const members = new Map();  // group name -> atom names inside it (nested too)
  for (const atom of flow.atoms || []) {
    let group = atom.group;
    const seen = new Set();
    while (group && byName.has(group) && !seen.has(group)) {
      seen.add(group);
      if (!members.has(group)) members.set(group, []);
      members.get(group).push(atom.name);
      group = byName.get(group).parent;
    }
  }
  return {byName, members};
}

// The edges between atoms: a link to or from a group stands for its atoms.
function edgesOf(flow, atoms, members) {
  const expand = (name) => atoms.has(name) ? [name] : (members.get(name) || []);
  const edges = [];
  const seen = new Set();
  for (const link of flow.links || []) {
    for (const from of expand(link.from)) {
      for (const to of expand(link.to)) {
        const key = from + '\u0000' + to;
        if (from !== to && !seen.has(key)) {
          seen.add(key);
          edges.push([from, to]);
        }
      }
    }
  }
  return edges;
}

// Layers by longest path from a source; order within a layer by the barycentre of
// the predecessors (one sweep is enough for the flows a boot has).
export function layout(flow) {
  const atoms = new Map((flow.atoms || []).map((a, index) => [a.name, Object.assign({index}, a)]));
  const {byName, members} = groupsOf(flow);
  const edges = edgesOf(flow, atoms, members);
  const preds = new Map([...atoms.keys()].map((n) => [n, []]));
  const succs = new Map([...atoms.keys()].map((n) => [n, []]));
  for (const [from, to] of edges) {
    succs.get(from).push(to);
    preds.get(to).push(from);
  }
  const layer = new Map();
  const indegree = new Map([...atoms.keys()].map((n) => [n, preds.get(n).length]));
  const queue = [...atoms.keys()].filter((n) => indegree.get(n) === 0);
  queue.forEach((n) => layer.set(n, 0));
  while (queue.length) {
    const name = queue.shift();
    for (const next of succs.get(name)) {
      layer.set(next, Math.max(layer.get(next) || 0, layer.get(name) + 1));
      indegree.set(next, indegree.get(next) - 1);
      if (indegree.get(next) === 0) queue.push(next);
    }
  }
  for (const name of atoms.keys()) if (!layer.has(name)) layer.set(name, 0);  // a cycle: never in a flow
  const layers = [];
  for (const [name, index] of layer) (layers[index] = layers[index] || []).push(name);
  const row = new Map();
  layers.forEach((names, index) => {
    if (index > 0) {
      const centre = (n) => {
        const ps = preds.get(n);
        return ps.length ? ps.reduce((sum, p) => sum + row.get(p), 0) / ps.length : atoms.get(n).index;
      };
      names.sort((a, b) => centre(a) - centre(b) || atoms.get(a).index - atoms.get(b).index);
    } else {
      names.sort((a, b) => atoms.get(a).index - atoms.get(b).index);
    }
    names.forEach((n, i) => row.set(n, i));
  });
  const rows = Math.max(1, ...layers.map((names) => names.length));
  const position = new Map();
  layers.forEach((names, index) => {
    const offset = (rows - names.length) / 2;
    names.forEach((n, i) => position.set(n, {
      x: MARGIN + index * (NODE_W + GAP_X),
      y: MARGIN + 18 + (offset + i) * (NODE_H + GAP_Y),
    }));
  });
  return {atoms, edges, position, byName, members,
          width: MARGIN * 2 + layers.length * (NODE_W + GAP_X) - GAP_X,
          height: MARGIN * 2 + 18 + rows * (NODE_H + GAP_Y) - GAP_Y};
}

function shorten(text, max) {
  text = String(text || '');
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}

function depthOf(name, byName) {
  let depth = 0;
  for (let g = byName.get(name); g && g.parent && depth < 20; g = byName.get(g.parent)) depth += 1;
  return depth;
}

export function renderGraph(container, flow, options) {
  options = options || {};
  const g = layout(flow);
  // Actual size (the area scrolls), or scaled down to the area's width ("fit").
  const available = container.clientWidth || g.width;
  const width = options.fit ? Math.min(g.width, available) : g.width;
  const root = svg('svg', {id: 'flow-graph', class: 'flow-graph', role: 'img',
                           'aria-label': 'Flow ' + (flow.name || '') + ': ' + (flow.state || ''),
                           width: String(width), height: String(Math.round(g.height * width / g.width)),
                           viewBox: '0 0 ' + g.width + ' ' + g.height,
                           'data-flow-state': flow.state || ''});
  append(root, svg('defs', {}, [
    svg('marker', {id: 'arrow', viewBox: '0 0 10 10', refX: '10', refY: '5', markerWidth: '7',
                   markerHeight: '7', orient: 'auto-start-reverse'}, [
      svg('path', {d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head'}),
    ]),
  ]));

  // Groups (sub-flows, retry scopes) behind the nodes, outermost first.
  const groups = [...g.members.entries()].sort((a, b) => depthOf(a[0], g.byName) - depthOf(b[0], g.byName));
  for (const [name, atomNames] of groups) {
    const boxes = atomNames.map((n) => g.position.get(n)).filter(Boolean);
    if (!boxes.length) continue;
    const pad = 14 - Math.min(8, depthOf(name, g.byName) * 4);
    const x = Math.min(...boxes.map((b) => b.x)) - pad;
    const y = Math.min(...boxes.map((b) => b.y)) - pad - 12;
    const w = Math.max(...boxes.map((b) => b.x)) + NODE_W + pad - x;
    const h = Math.max(...boxes.map((b) => b.y)) + NODE_H + pad - y;
    const group = g.byName.get(name);
    const label = name + (group.kind ? ' · ' + group.kind : '') + (group.retry ? ' · retry ' + group.retry : '');
    append(root, svg('g', {class: 'group', 'data-group': name}, [
      svg('rect', {x: String(x), y: String(y), width: String(w), height: String(h), rx: '8', class: 'group-box'}),
      svg('text', {x: String(x + 6), y: String(y + 11), class: 'group-label', text: shorten(label, Math.max(12, Math.floor(w / 6.5)))}),
    ]));
  }

  for (const [from, to] of g.edges) {
    const a = g.position.get(from);
    const b = g.position.get(to);
    const x1 = a.x + NODE_W;
    const y1 = a.y + NODE_H / 2;
    const x2 = b.x;
    const y2 = b.y + NODE_H / 2;
    const bend = Math.max(16, (x2 - x1) / 2);
    append(root, svg('path', {class: 'edge', 'data-from': from, 'data-to': to, 'marker-end': 'url(#arrow)',
                              d: 'M ' + x1 + ' ' + y1 + ' C ' + (x1 + bend) + ' ' + y1 + ', ' +
                                 (x2 - bend) + ' ' + y2 + ', ' + x2 + ' ' + y2}));
  }

  // How many times each step was started (a resumed step runs again).
  const runs = new Map();
  for (const step of flow.steps || []) {
    if (step.phase === 'execute') runs.set(step.atom, (runs.get(step.atom) || 0) + 1);
  }
  for (const [name, atom] of g.atoms) {
    const p = g.position.get(name);
    const state = STATES.includes(atom.state) ? atom.state : 'pending';
    // A step that failed and was then reverted keeps the mark of its failure.
    const failedBefore = Boolean(atom.error) && state !== 'failed';
    const detail = [atom.kind === 'retry' ? 'retry' : null, failedBefore ? 'failed, ' + state : state,
                    atom.host ? 'on ' + atom.host : null].filter(Boolean).join(' · ');
    const node = svg('g', {class: 'node state-' + state + (atom.kind === 'retry' ? ' retry' : '') +
                                  (failedBefore ? ' failed-before' : ''),
                           'data-atom': name, 'data-state': state,
                           'data-failed': atom.error || state === 'failed' ? 'true' : null,
                           'data-attempt': atom.attempt ? String(atom.attempt) : null,
                           'data-runs': runs.has(name) ? String(runs.get(name)) : null,
                           transform: 'translate(' + p.x + ' ' + p.y + ')'}, [
      svg('title', {text: name + ': ' + state + (atom.host ? ' on ' + atom.host : '') +
                          (atom.attempt ? ', attempt ' + atom.attempt : '') +
                          (atom.started_at ? '\nstarted ' + atom.started_at : '') +
                          (atom.finished_at ? '\nfinished ' + atom.finished_at : '') +
                          (atom.error ? '\nerror: ' + atom.error : '')}),
      svg('rect', {width: String(NODE_W), height: String(NODE_H), rx: atom.kind === 'retry' ? '18' : '6',
                   class: 'node-box'}),
      svg('text', {x: '10', y: '17', class: 'node-name', text: shorten(name, 24)}),
      svg('text', {x: '10', y: '32', class: 'node-detail', text: shorten(detail, 30)}),
    ]);
    const badge = atom.attempt && atom.attempt > 1
      ? 'attempt ' + atom.attempt + (atom.host ? ' on host ' + atom.host : '')
      : (runs.get(name) || 0) > 1 ? 'ran ' + runs.get(name) + '×' : null;
    if (badge) {
      const text = badge;
      append(node, svg('g', {class: 'badge', transform: 'translate(' + (NODE_W - 8) + ' -9)'}, [
        svg('rect', {x: String(-Math.min(NODE_W, text.length * 6 + 10)), y: '0', rx: '8',
                     width: String(Math.min(NODE_W, text.length * 6 + 10)), height: '16', class: 'badge-box'}),
        svg('text', {x: '-5', y: '12', class: 'badge-text', 'text-anchor': 'end', text: shorten(text, 24)}),
      ]));
    }
    append(root, node);
  }
  replace(container, root);
  followActive(container, g, width / g.width);
  return root;
}

// Keep the step that is happening (or that failed) in view while the graph is wider
// than its area: the area scrolls to it when it is out of sight.
function followActive(container, g, scale) {
  const active = [...g.atoms.values()].filter((a) => ['running', 'reverting', 'failed'].includes(a.state) ||
                                                    a.error);
  if (!active.length || container.scrollWidth <= container.clientWidth) return;
  const x = g.position.get(active[active.length - 1].name).x * scale;
  if (x < container.scrollLeft || x + NODE_W * scale > container.scrollLeft + container.clientWidth) {
    container.scrollLeft = Math.max(0, x - container.clientWidth / 3);
  }
}

export function legend() {
  return el('ul', {class: 'legend', id: 'flow-legend'}, STATES.map((state) =>
    el('li', {}, [el('span', {class: 'swatch state-' + state}), state])));
}

export function attemptsList(flow) {
  const attempts = flow.attempts || [];
  if (!attempts.length) return null;
  return el('div', {class: 'attempts'}, [
    el('h3', {text: 'Scheduling attempts'}),
    el('ol', {id: 'flow-attempts'}, attempts.map((a) => el('li', {
      class: a.failed ? 'attempt failed' : 'attempt', 'data-attempt': String(a.attempt)}, [
      'attempt ' + a.attempt + (a.host ? ' on host ' + a.host : '') + ': ' + (a.failed ? 'failed' : 'ok'),
      a.error ? el('span', {class: 'muted', text: ' — ' + a.error}) : null,
    ]))),
  ]);
}
