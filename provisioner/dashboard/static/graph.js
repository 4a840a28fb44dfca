// A flow as a graph: its atoms (tasks and retry controllers) and their links, laid
// out as a layered DAG from left to right, each node coloured by its state.

import {append, el, replace, svg} from './dom.js';

export const STATES = ['pending', 'running', 'done', 'failed', 'reverting', 'reverted'];

const NODE_W = 172;
const NODE_H = 40;
const GAP_X = 36;
const GAP_Y = 26;
const MARGIN = 34;
const LABEL_ROOM = 18;  // above a band: its groups' labels
const LABEL_STEP = 14;  // a group's label above the labels of the groups inside it
// Between two bands: the groups' boxes and labels, and the channel the links
// from the end of one band to the start of the next run along.
const BAND_GAP = 64;
const CHANNEL = 26;     // the channel's distance below the band it leaves

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
// the predecessors (one sweep is enough for the flows a boot has). The layers run
// left to right and wrap, like lines of text, into bands of as many layers as fit
// `maxWidth`: the whole flow shows at its real size, first step top left, with no
// scrolling sideways (a boot's 12 layers are 2,500 px wide; scaled down to a
// window, its names would be unreadable).
export function layout(flow, maxWidth) {
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
  const fitting = Math.floor((maxWidth - 2 * MARGIN + GAP_X) / (NODE_W + GAP_X));
  const perBand = Math.max(1, Math.min(layers.length, Number.isFinite(fitting) ? fitting : layers.length));
  // Room above each band for the labels of nested groups, stacked.
  const stacked = LABEL_STEP * Math.max(0, ...[...byName.keys()].map((n) => depthOf(n, byName)));
  const position = new Map();
  const bands = [];
  let top = MARGIN + LABEL_ROOM + stacked;
  for (let first = 0; first < layers.length; first += perBand) {
    const slice = layers.slice(first, first + perBand);
    const rows = Math.max(1, ...slice.map((names) => names.length));
    const band = bands.length;
    slice.forEach((names, column) => {
      const offset = (rows - names.length) / 2;
      names.forEach((n, i) => position.set(n, {
        x: MARGIN + column * (NODE_W + GAP_X),
        y: top + (offset + i) * (NODE_H + GAP_Y),
        band,
      }));
    });
    const bottom = top + rows * (NODE_H + GAP_Y) - GAP_Y;
    bands.push({top, bottom});
    top = bottom + BAND_GAP + stacked;
  }
  const last = bands.length ? bands[bands.length - 1].bottom : MARGIN + LABEL_ROOM + stacked;
  return {atoms, edges, position, byName, members, bands,
          width: MARGIN * 2 + Math.max(1, perBand) * (NODE_W + GAP_X) - GAP_X,
          height: last + MARGIN};
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

// The link from one atom to another: a curve within a band; from the end of one
// band to the start of a later one, down the gap after the source, left along the
// channel under its band, and down into the target.
function edgePath(g, a, b) {
  const x1 = a.x + NODE_W;
  const y1 = a.y + NODE_H / 2;
  const x2 = b.x;
  const y2 = b.y + NODE_H / 2;
  if (a.band === b.band) {
    const bend = Math.max(16, (x2 - x1) / 2);
    return 'M ' + x1 + ' ' + y1 + ' C ' + (x1 + bend) + ' ' + y1 + ', ' +
           (x2 - bend) + ' ' + y2 + ', ' + x2 + ' ' + y2;
  }
  const right = x1 + GAP_X / 2;
  const left = x2 - GAP_X / 2;
  const channel = g.bands[a.band].bottom + CHANNEL;
  return 'M ' + x1 + ' ' + y1 + ' H ' + right + ' V ' + channel + ' H ' + left +
         ' V ' + y2 + ' H ' + x2;
}

function inside(group, outer, byName) {
  let depth = 0;
  for (let p = byName.get(group).parent; p && depth < 20; p = (byName.get(p) || {}).parent, depth += 1) {
    if (p === outer) return true;
  }
  return false;
}

// How many levels of groups inside `name` have atoms in `band`: its label goes
// above theirs.
function levelsInside(g, name, band) {
  const own = depthOf(name, g.byName);
  let levels = 0;
  for (const [other, atoms] of g.members) {
    if (inside(other, name, g.byName) && atoms.some((a) => (g.position.get(a) || {}).band === band)) {
      levels = Math.max(levels, depthOf(other, g.byName) - own);
    }
  }
  return levels;
}

// A group's box in each band its atoms are in (a sub-flow can wrap too).
function groupBoxes(g, name) {
  const byBand = new Map();
  for (const atom of g.members.get(name)) {
    const p = g.position.get(atom);
    if (!p) continue;
    if (!byBand.has(p.band)) byBand.set(p.band, []);
    byBand.get(p.band).push(p);
  }
  const pad = 14 - Math.min(8, depthOf(name, g.byName) * 4);
  return [...byBand.entries()].map(([band, boxes]) => {
    const x = Math.min(...boxes.map((b) => b.x)) - pad;
    const y = Math.min(...boxes.map((b) => b.y)) - pad - 12 - LABEL_STEP * levelsInside(g, name, band);
    return {x, y, w: Math.max(...boxes.map((b) => b.x)) + NODE_W + pad - x,
            h: Math.max(...boxes.map((b) => b.y)) + NODE_H + pad - y};
  });
}

// The flow drawn into `container`, wrapped to its width (layout()).
export function renderGraph(container, flow) {
  const g = layout(flow, container.clientWidth || Infinity);
  const root = svg('svg', {id: 'flow-graph', class: 'flow-graph', role: 'img',
                           'aria-label': 'Flow ' + (flow.name || '') + ': ' + (flow.state || ''),
                           width: String(g.width), height: String(g.height),
                           viewBox: '0 0 ' + g.width + ' ' + g.height,
                           'data-flow-state': flow.state || '', 'data-bands': String(g.bands.length)});
  append(root, svg('defs', {}, [
    svg('marker', {id: 'arrow', viewBox: '0 0 10 10', refX: '10', refY: '5', markerWidth: '7',
                   markerHeight: '7', orient: 'auto-start-reverse'}, [
      svg('path', {d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow-head'}),
    ]),
  ]));

  // Groups (sub-flows, retry scopes) behind the nodes, outermost first.
  const groups = [...g.members.keys()].sort((a, b) => depthOf(a, g.byName) - depthOf(b, g.byName));
  for (const name of groups) {
    const group = g.byName.get(name);
    const label = name + (group.kind ? ' · ' + group.kind : '') + (group.retry ? ' · retry ' + group.retry : '');
    groupBoxes(g, name).forEach((box, index) => {
      const text = index ? label + ' (continued)' : label;
      append(root, svg('g', {class: 'group', 'data-group': name}, [
        svg('rect', {x: String(box.x), y: String(box.y), width: String(box.w), height: String(box.h),
                     rx: '8', class: 'group-box'}),
        svg('text', {x: String(box.x + 6), y: String(box.y + 11), class: 'group-label',
                     text: shorten(text, Math.max(12, Math.floor(box.w / 6.5)))}),
      ]));
    });
  }

  for (const [from, to] of g.edges) {
    append(root, svg('path', {class: 'edge', 'data-from': from, 'data-to': to, 'marker-end': 'url(#arrow)',
                              d: edgePath(g, g.position.get(from), g.position.get(to))}));
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
                           'data-band': String(p.band),
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
  return root;
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
