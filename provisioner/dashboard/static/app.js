// The dashboard: a hash router over pages that read and change everything through
// the REST API (api.js). The session lives in an HttpOnly cookie; this script only
// ever sees its CSRF token and who is logged in.

import * as api from './api.js';
import {$, el, replace} from './dom.js';
import {field, hideBanner, showBanner} from './ui.js';
import * as catalog from './catalog.js';
import * as instance from './instance.js';
import * as instances from './instances.js';
import * as networks from './networks.js';
import * as volumes from './volumes.js';

const RETURN_KEY = 'provisioner.returnTo';

// -- the page context: polling that stops when the user leaves the page ---------

class Page {
  constructor(main) {
    this.main = main;
    this.alive = true;
    this.timers = new Set();
    this.cleanups = [];
  }

  // Listen to a window event while this page is shown.
  listen(event, handler) {
    window.addEventListener(event, handler);
    this.cleanups.push(() => window.removeEventListener(event, handler));
  }

  // Run fn now and then every `interval` ms (or fn's returned number of ms) after
  // it finished, while this page is shown.
  every(interval, fn) {
    const tick = async () => {
      if (!this.alive) return;
      let next = interval;
      try {
        const asked = await fn();
        if (typeof asked === 'number') next = asked;
        if (this.alive) clearDownBanner();
      } catch (err) {
        if (err instanceof api.ApiDown) this.error(err);
        else if (err.status !== 401) console.warn(err);
      }
      if (this.alive) {
        const timer = setTimeout(() => { this.timers.delete(timer); tick(); }, next);
        this.timers.add(timer);
      }
    };
    return tick();
  }

  stop() {
    this.alive = false;
    this.timers.forEach(clearTimeout);
    this.timers.clear();
    this.cleanups.splice(0).forEach((cleanup) => cleanup());
  }

  // A failure shown in the page: the API's message, never a stack trace.
  error(err) {
    if (!this.alive) return;
    if (err && err.status === 401) return;  // back to login already
    for (const placeholder of this.main.querySelectorAll('.loading')) {
      placeholder.textContent = 'Not loaded: ' + (err && err.message ? err.message : String(err));
    }
    showBanner(err instanceof api.ApiError ? err.message : 'Something went wrong: ' +
               (err && err.message ? err.message : String(err)), 'error');
  }
}

// The API answers again: drop the "not answering" banner.
function clearDownBanner() {
  const banner = $('#banner');
  if (banner.classList.contains('error') && /is not answering/.test(banner.textContent)) hideBanner();
}

// -- login --------------------------------------------------------------------------

function renderLogin(page) {
  const message = el('p', {id: 'login-error', class: 'form-error', role: 'alert'});
  const form = el('form', {id: 'login-form', class: 'card narrow', novalidate: true}, [
    el('h1', {text: 'Log in'}),
    field('Username', el('input', {id: 'login-username', name: 'username', autocomplete: 'username', required: true})),
    field('Password', el('input', {id: 'login-password', name: 'password', type: 'password', autocomplete: 'current-password', required: true})),
    field('Project', el('input', {id: 'login-project', name: 'project', required: true,
                                  value: localStorage.getItem('provisioner.project') || ''})),
    message,
    el('button', {type: 'submit', id: 'login-submit', class: 'primary', text: 'Log in'}),
  ]);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(form));
    const missing = ['username', 'password', 'project'].filter((name) => !values[name].trim());
    if (missing.length) {
      message.textContent = 'Give your ' + missing.join(', ') + '.';
      return;
    }
    message.textContent = '';
    form.querySelector('button').disabled = true;
    try {
      await api.login(values.username.trim(), values.password, values.project.trim());
      localStorage.setItem('provisioner.project', values.project.trim());
      hideBanner();
      const back = sessionStorage.getItem(RETURN_KEY);
      sessionStorage.removeItem(RETURN_KEY);
      showSession();
      navigate(back && back !== '#/login' ? back : '#/instances');
    } catch (err) {
      message.textContent = err.message;
      form.querySelector('button').disabled = false;
    }
  });
  replace(page.main, form);
  (form.querySelector('#login-username').value ? form.querySelector('#login-password')
                                               : form.querySelector('#login-username')).focus();
}

function showSession() {
  const current = api.session.current;
  $('#nav').setAttribute('class', current ? 'nav' : 'nav hidden');
  $('#who').setAttribute('class', current ? 'who' : 'who hidden');
  if (current) {
    $('#who-name').textContent = current.user.name + ' @ ' + current.project.name +
                                 (api.session.isAdmin ? ' (admin)' : '');
  }
  for (const link of document.querySelectorAll('.admin-only')) {
    link.classList.toggle('hidden', !api.session.isAdmin);
  }
}

// -- routing ------------------------------------------------------------------------

const ROUTES = [
  [/^#\/login$/, (page) => renderLogin(page)],
  [/^#\/instances$/, (page) => instances.render(page)],
  [/^#\/instances\/([^/]+)$/, (page, id) => instance.render(page, decodeURIComponent(id))],
  [/^#\/flavors$/, (page) => catalog.flavors(page)],
  [/^#\/images$/, (page) => catalog.images(page)],
  [/^#\/networks$/, (page) => networks.networks(page)],
  [/^#\/volumes$/, (page) => volumes.volumes(page)],
  [/^#\/keypairs$/, (page) => catalog.keypairs(page)],
  [/^#\/hosts$/, (page) => catalog.hosts(page)],
];

let current = null;

export function navigate(hash) {
  if (window.location.hash === hash) route();
  else window.location.hash = hash;
}

function route() {
  if (current) current.stop();
  const hash = window.location.hash || '#/instances';
  if ($('#banner').classList.contains('error')) hideBanner();  // about the page we leave
  const page = new Page($('#main'));
  current = page;
  if (!api.session.current && hash !== '#/login') {
    sessionStorage.setItem(RETURN_KEY, hash);
    navigate('#/login');
    return;
  }
  for (const link of document.querySelectorAll('#nav a')) {
    const active = hash.startsWith('#/' + link.dataset.page);
    link.classList.toggle('active', active);
  }
  for (const [pattern, render] of ROUTES) {
    const match = pattern.exec(hash);
    if (match) {
      Promise.resolve(render(page, ...match.slice(1))).catch((err) => page.error(err));
      return;
    }
  }
  replace(page.main, el('div', {class: 'card'}, [
    el('h1', {text: 'Not found'}),
    el('p', {text: 'The dashboard has no page ' + hash + '.'}),
  ]));
}

// Any 401 from the API: the session expired or was revoked. Keep the route (and the
// pages keep their unsent forms in sessionStorage) and come back to it after login.
api.on('unauthorized', () => {
  if (!api.session.current) return;
  api.session.current = null;
  const hash = window.location.hash;
  if (hash && hash !== '#/login') sessionStorage.setItem(RETURN_KEY, hash);
  showSession();
  showBanner('Your session has expired: log in again to continue where you were.', 'info');
  navigate('#/login');
});

async function start() {
  $('#logout').addEventListener('click', async () => {
    try { await api.logout(); } catch (err) { /* the cookie is dropped either way */ }
    sessionStorage.removeItem(RETURN_KEY);
    showSession();
    showBanner('You are logged out.', 'info');
    navigate('#/login');
  });
  window.addEventListener('hashchange', route);
  try {
    await api.loadSession();
  } catch (err) {
    replace($('#main'), el('div', {class: 'card narrow'}, [
      el('h1', {text: 'Cannot reach the API'}),
      el('p', {id: 'api-down', class: 'form-error', text: err.message}),
      el('button', {type: 'button', text: 'Try again', on: {click: () => window.location.reload()}}),
    ]));
    return;
  }
  showSession();
  route();
}

start();
