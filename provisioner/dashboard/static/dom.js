// DOM helpers. Every piece of text goes in through textContent / createTextNode and
// every attribute through setAttribute: nothing here (or anywhere in the dashboard)
// parses a string as markup, so a server name or a guest's console line is always
// shown as the characters it is made of.

const SVG_NS = 'http://www.w3.org/2000/svg';

// Attributes a caller may set: never an on* handler, never a javascript: URL.
function safeAttribute(name, value) {
  if (/^on/i.test(name)) {
    throw new Error('refusing event-handler attribute ' + name);
  }
  if (/^(href|src|action|formaction|xlink:href)$/i.test(name) &&
      /^\s*(javascript|data|vbscript):/i.test(String(value))) {
    throw new Error('refusing URL scheme in ' + name);
  }
}

function fill(node, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') {
      node.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : value);
    } else if (name === 'text') {
      node.textContent = String(value);
    } else if (name === 'on') {
      for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    } else if (name === 'value' && 'value' in node) {
      node.value = value;
      if ('defaultValue' in node) node.defaultValue = value;  // what form.reset() restores
    } else if (name === 'checked' || name === 'disabled' || name === 'selected') {
      node[name] = Boolean(value);
      if (name === 'checked') node.defaultChecked = Boolean(value);
      if (name === 'selected') node.defaultSelected = Boolean(value);
    } else {
      safeAttribute(name, value);
      node.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(node, children);
  return node;
}

// Children: nodes, strings (as text nodes), arrays of either, null (skipped).
export function append(node, children) {
  for (const child of [].concat(children === undefined ? [] : children)) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) {
      append(node, child);
    } else if (child instanceof Node) {
      node.appendChild(child);
    } else {
      node.appendChild(document.createTextNode(String(child)));
    }
  }
  return node;
}

// el('div', {class: 'x', text: 'hi'}, [children...])
export function el(tag, attrs, children) {
  return fill(document.createElement(tag), attrs, children);
}

export function svg(tag, attrs, children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

export function replace(node, children) {
  clear(node);
  return append(node, children);
}

export function $(selector, root) {
  return (root || document).querySelector(selector);
}

// "3 min", "2 h", "5 d": how long ago an ISO time was.
export function age(iso) {
  const then = parseTime(iso);
  if (then === null) return '';
  const seconds = Math.max(0, Math.round((Date.now() - then) / 1000));
  if (seconds < 60) return seconds + ' s';
  if (seconds < 3600) return Math.floor(seconds / 60) + ' min';
  if (seconds < 86400) return Math.floor(seconds / 3600) + ' h';
  return Math.floor(seconds / 86400) + ' d';
}

// Milliseconds since the epoch of an API time. Nova's action times carry no zone
// and six decimals ("2026-11-23T15:37:41.611612"): they are UTC.
export function parseTime(iso) {
  if (!iso) return null;
  const match = /^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|[+-]\d\d:?\d\d)?$/.exec(String(iso));
  if (!match) {
    const parsed = Date.parse(iso);
    return Number.isNaN(parsed) ? null : parsed;
  }
  const [, y, mo, d, h, mi, s, frac, zone] = match;
  let ms = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, frac ? Math.round(+('0.' + frac) * 1000) : 0);
  if (zone && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    ms -= sign * (+digits.slice(0, 2) * 60 + +digits.slice(2)) * 60000;
  }
  return ms;
}

export function formatTime(iso) {
  const ms = parseTime(iso);
  return ms === null ? '' : new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
