// An action's events on a time axis: one bar per step and one per revert.

import {parseTime, replace, svg} from './dom.js';

const LABEL_W = 210;
const ROW_H = 22;
const TOP = 26;

function niceStep(span) {
  const steps = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600];
  for (const step of steps) if (span / step <= 8) return step;
  return 7200;
}

function seconds(value) {
  if (value < 1) return Math.round(value * 1000) + ' ms';
  return value < 10 ? value.toFixed(1).replace(/\.0$/, '') + ' s'
                    : value < 120 ? Math.round(value) + ' s' : Math.round(value / 60) + ' min';
}

export function kindOf(event) {
  const revert = /\(revert\)\s*$/.test(event.event || '');
  if (!event.finish_time) return revert ? 'reverting' : 'running';
  if (/interrupt/i.test(event.result || '')) return 'interrupted';  // its process died
  if (revert) return /success/i.test(event.result || '') ? 'reverted' : 'failed';
  return /success/i.test(event.result || '') ? 'done' : 'failed';
}

export function renderTimeline(container, events, now) {
  // Drawn at the area's own width (1 unit = 1 pixel), so its text keeps its size.
  const WIDTH = Math.max(600, container.clientWidth || 1000);
  const rows = (events || []).map((e) => Object.assign({}, e, {
    start: parseTime(e.start_time), finish: parseTime(e.finish_time)})).filter((e) => e.start !== null);
  rows.sort((a, b) => a.start - b.start);
  const height = TOP + Math.max(1, rows.length) * ROW_H + 8;
  const root = svg('svg', {id: 'flow-timeline', class: 'timeline', width: String(WIDTH),
                           viewBox: '0 0 ' + WIDTH + ' ' + height, role: 'img',
                           'aria-label': 'Timeline of ' + rows.length + ' events'});
  if (!rows.length) {
    root.appendChild(svg('text', {x: '10', y: '20', class: 'muted-text', text: 'No step has started yet.'}));
    replace(container, root);
    return root;
  }
  const t0 = rows[0].start;
  const end = Math.max(...rows.map((e) => e.finish !== null ? e.finish : now), t0 + 1000);
  const span = (end - t0) / 1000;
  const plot = WIDTH - LABEL_W - 60;
  const x = (ms) => LABEL_W + ((ms - t0) / 1000) / span * plot;
  const step = niceStep(span);
  for (let t = 0; t <= span + 1e-9; t += step) {
    const at = LABEL_W + t / span * plot;
    root.appendChild(svg('line', {x1: String(at), x2: String(at), y1: String(TOP - 6), y2: String(height - 4), class: 'tick'}));
    root.appendChild(svg('text', {x: String(at), y: '14', class: 'tick-label', 'text-anchor': 'middle', text: seconds(t)}));
  }
  rows.forEach((e, i) => {
    const kind = kindOf(e);
    const y = TOP + i * ROW_H;
    const x1 = x(e.start);
    const x2 = x(e.finish !== null ? e.finish : now);
    const duration = ((e.finish !== null ? e.finish : now) - e.start) / 1000;
    root.appendChild(svg('g', {class: 'bar-row ' + kind, 'data-event': e.event, 'data-kind': kind}, [
      svg('title', {text: e.event + ': ' + (e.result || 'running') + ', ' + seconds(duration) +
                          (e.traceback ? '\n' + e.traceback : '')}),
      svg('text', {x: String(LABEL_W - 8), y: String(y + 15), class: 'bar-label', 'text-anchor': 'end', text: e.event}),
      svg('rect', {x: String(x1), y: String(y + 4), width: String(Math.max(2, x2 - x1)), height: String(ROW_H - 8),
                   rx: '3', class: 'bar-rect'}),
      svg('text', {x: String(Math.max(x1, x2) + 5), y: String(y + 15), class: 'bar-time',
                   text: seconds(duration) + (kind === 'failed' || kind === 'interrupted' ? ' · ' + (e.result || 'Error') : '')}),
    ]));
  });
  replace(container, root);
  return root;
}
