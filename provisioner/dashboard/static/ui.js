// Shared pieces of the pages: the banner, the confirmation modal, form fields that
// show the API's message next to the field it names, and tables.

import {$, el, replace} from './dom.js';

export function showBanner(message, kind) {
  const banner = $('#banner');
  banner.textContent = message;
  banner.setAttribute('class', 'banner ' + (kind || 'info'));
}

export function hideBanner() {
  $('#banner').setAttribute('class', 'banner hidden');
}

// Ask before doing something: resolves true (confirmed) or false. A page element,
// not window.confirm, so that tests (and keyboards) can drive it.
export function confirmModal(title, text, confirmLabel) {
  const modal = $('#modal');
  $('#modal-title').textContent = title;
  $('#modal-text').textContent = text;
  const confirm = $('#modal-confirm');
  const cancel = $('#modal-cancel');
  confirm.textContent = confirmLabel || 'Confirm';
  modal.setAttribute('class', 'modal-backdrop');
  cancel.focus();
  return new Promise((resolve) => {
    const close = (answer) => {
      modal.setAttribute('class', 'modal-backdrop hidden');
      confirm.removeEventListener('click', yes);
      cancel.removeEventListener('click', no);
      document.removeEventListener('keydown', key);
      resolve(answer);
    };
    const yes = () => close(true);
    const no = () => close(false);
    const key = (event) => { if (event.key === 'Escape') close(false); };
    confirm.addEventListener('click', yes);
    cancel.addEventListener('click', no);
    document.addEventListener('keydown', key);
  });
}

// <label>Label <input> hint <error></label>; the error span is found by the input's name.
export function field(label, input, hint) {
  return el('label', {class: 'field'}, [
    el('span', {class: 'field-label', text: label}),
    input,
    hint ? el('span', {class: 'hint', text: hint}) : null,
    el('span', {class: 'field-error', 'data-error-for': input.getAttribute('name') || ''}),
  ]);
}

export function clearErrors(form) {
  for (const span of form.querySelectorAll('.field-error, .form-error')) span.textContent = '';
  for (const input of form.querySelectorAll('.invalid')) input.classList.remove('invalid');
}

// Show message next to the field named `name` (or on top of the form: name null).
export function setError(form, name, message) {
  const span = name ? form.querySelector('[data-error-for="' + CSS.escape(name) + '"]') : null;
  if (span) {
    span.textContent = message;
    const input = form.querySelector('[name="' + CSS.escape(name) + '"]');
    if (input) input.classList.add('invalid');
  } else {
    form.querySelector('.form-error').textContent = message;
  }
}

// A table: columns [{title, cell: (row) => node|string, class}], rows.
export function table(columns, rows, options) {
  options = options || {};
  const body = el('tbody');
  for (const row of rows) {
    const tr = el('tr', options.rowAttrs ? options.rowAttrs(row) : {});
    for (const column of columns) {
      tr.appendChild(el('td', {class: column.class}, [column.cell(row)]));
    }
    body.appendChild(tr);
  }
  if (!rows.length) {
    body.appendChild(el('tr', {class: 'empty'}, [
      el('td', {colspan: String(columns.length), text: options.empty || 'Nothing here yet.'}),
    ]));
  }
  return el('table', {class: 'grid', id: options.id}, [
    el('thead', {}, [el('tr', {}, columns.map((c) => el('th', {text: c.title, class: c.class === 'num' ? 'num' : null})))]),
    body,
  ]);
}

// A page's frame: a title, optional actions, and a content area.
export function frame(page, title, actions) {
  const content = el('div', {class: 'content'});
  replace(page.main, [
    el('div', {class: 'page-head'}, [el('h1', {text: title}), el('div', {class: 'actions'}, actions || [])]),
    content,
  ]);
  return content;
}

// A bar: used / total, with its figures as text.
export function bar(used, total, unit) {
  const ratio = total > 0 ? Math.min(1, used / total) : 0;
  const level = ratio >= 0.9 ? 'high' : ratio >= 0.7 ? 'mid' : 'low';
  const meter = el('div', {class: 'bar', role: 'meter', 'aria-valuenow': String(used),
                           'aria-valuemin': '0', 'aria-valuemax': String(total)});
  // Width from a class per 5 %: the CSP forbids inline styles.
  meter.appendChild(el('div', {class: 'bar-fill ' + level + ' w' + Math.round(ratio * 20) * 5}));
  return el('div', {class: 'bar-wrap'}, [meter, el('span', {class: 'bar-text',
    text: used + ' / ' + total + (unit ? ' ' + unit : '')})]);
}

// draw(data), only when data differs from what was drawn last: a poll must not
// rebuild a form control the user is choosing in. Returns the function to call.
export function redrawn(draw) {
  let last = null;
  return (data) => {
    const key = JSON.stringify(data);
    if (key === last) return;
    last = key;
    draw(data);
  };
}

// A status as a badge: "in-use" -> class status-in-use.
export function statusBadge(status) {
  return el('span', {class: 'status status-' + String(status || '').toLowerCase(), text: status || ''});
}

// A line that says how a request went: "Stop…", then "Stop requested: <next>" or,
// when the API refuses, "Stop refused: <its message>" as an alert, never silently.
// run(label, call, done): send call(), say the outcome, then done(accepted) (not
// after a 401: the page is going back to the login).
export function requestLine(id, next) {
  const node = el('p', {id, class: 'request-line small muted', role: 'status'});
  const say = (text, refused) => {
    node.textContent = text;
    node.setAttribute('class', 'request-line small ' + (refused ? 'form-error' : 'muted'));
    node.setAttribute('role', refused ? 'alert' : 'status');
  };
  const run = async (label, call, done) => {
    say(label + '…');
    try {
      await call();
    } catch (err) {
      if (err.status === 401) return say('');
      say(label + ' refused: ' + err.message, true);
      return done(false);
    }
    say(label + ' requested: ' + next);
    return done(true);
  };
  return {node, run};
}

// A form in a card: its title, a line for the errors about the whole form, its
// fields in a grid, then its buttons (checked by the page's script: novalidate).
export function formCard(id, title, fields, buttons) {
  return el('form', {id, class: 'card', novalidate: true}, [
    el('h2', {text: title}),
    el('p', {class: 'form-error', role: 'alert'}),
    el('div', {class: 'form-grid'}, fields),
    el('div', {class: 'buttons'}, buttons),
  ]);
}
