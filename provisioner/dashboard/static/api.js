// The REST API, as the page calls it: same origin, the session cookie instead of a
// token (credentials: 'same-origin'), and the session's CSRF token on every change.

const ROOT_META = document.querySelector('meta[name="provisioner-root"]');
// Where the dashboard is mounted ("/dashboard") and where the API is ("").
export const DASHBOARD_ROOT = ROOT_META ? ROOT_META.getAttribute('content') : '/dashboard';
export const API_ROOT = DASHBOARD_ROOT.replace(/\/dashboard$/, '');

export const session = {
  current: null,    // the session body of /dashboard/session, or null
  get csrf() { return this.current ? this.current.csrf_token : null; },
  get projectId() { return this.current ? this.current.project.id : null; },
  get isAdmin() {
    if (!this.current) return false;
    if (typeof this.current.is_admin === 'boolean') return this.current.is_admin;
    return (this.current.roles || []).includes('admin');
  },
};

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// The compute microversion the pages are written for: from 2.21 a deleted server's
// actions (and so its delete's flow) stay readable.
const COMPUTE_VERSION = 'compute 2.21';
const listeners = {unauthorized: [], down: []};

export function on(event, handler) { listeners[event].push(handler); }

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

// The API is not answering (connection refused, or a proxy's 502/503/504).
export class ApiDown extends ApiError {}

export function apiUrl() {
  return window.location.origin + API_ROOT;
}

// The message of any OpenStack error body: {"itemNotFound": {"message"}},
// {"error": {"message"}}, {"NeutronError": {"message"}}, {"message"}.
export function errorMessage(body, fallback) {
  if (body && typeof body === 'object') {
    if (typeof body.message === 'string') return body.message;
    for (const value of Object.values(body)) {
      if (value && typeof value === 'object' && typeof value.message === 'string') {
        return value.message;
      }
    }
  }
  if (typeof body === 'string' && body.trim() && body.length < 500) return body.trim();
  return fallback;
}

function downMessage() {
  return 'The API at ' + apiUrl() + ' is not answering. Check that provisioner-api ' +
         'is running, then try again.';
}

// request('GET', '/compute/v2.1/servers/detail') -> parsed JSON (or null).
// options: {body, headers, auth401: false to not treat 401 as an expired session}
export async function request(method, path, options) {
  options = options || {};
  const headers = Object.assign({'Accept': 'application/json'}, options.headers || {});
  if (path.startsWith('/compute/')) headers['OpenStack-API-Version'] = COMPUTE_VERSION;
  const init = {method, headers, credentials: 'same-origin', cache: 'no-store'};
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  if (CHANGES.has(method) && session.csrf) headers['X-CSRF-Token'] = session.csrf;
  let response;
  try {
    response = await fetch(API_ROOT + path, init);
  } catch (err) {
    const down = new ApiDown(0, downMessage(), null);
    listeners.down.forEach((handler) => handler(down));
    throw down;
  }
  const text = await response.text().catch(() => '');
  let body = null;
  if (text) {
    try { body = JSON.parse(text); } catch (err) { body = text; }
  }
  if (response.ok) return body;
  if ([502, 503, 504].includes(response.status) && !(body && typeof body === 'object')) {
    const down = new ApiDown(response.status, downMessage(), body);
    listeners.down.forEach((handler) => handler(down));
    throw down;
  }
  const error = new ApiError(response.status,
                             errorMessage(body, response.status + ' ' + response.statusText),
                             body);
  if (response.status === 401 && options.auth401 !== false) {
    listeners.unauthorized.forEach((handler) => handler(error));
  }
  throw error;
}

export const get = (path) => request('GET', path);
export const post = (path, body) => request('POST', path, {body});
export const put = (path, body) => request('PUT', path, {body});
export const del = (path) => request('DELETE', path);

// -- the browser session ----------------------------------------------------------

export async function loadSession() {
  try {
    const body = await request('GET', '/dashboard/session', {auth401: false});
    session.current = body.session;
  } catch (err) {
    if (err.status === 401) {
      session.current = null;
    } else {
      throw err;
    }
  }
  return session.current;
}

export async function login(username, password, project) {
  const body = await request('POST', '/dashboard/session',
                             {body: {username, password, project}, auth401: false});
  session.current = body.session;
  return session.current;
}

export async function logout() {
  try {
    await request('DELETE', '/dashboard/session', {auth401: false});
  } finally {
    session.current = null;
  }
}

// -- shorthands -------------------------------------------------------------------

export const compute = (path) => '/compute/v2.1' + path;
export const volumeApi = (path) => '/volume/v3/' + encodeURIComponent(session.projectId) + path;
export const enc = encodeURIComponent;

// An upload with progress (fetch has none): XMLHttpRequest, same cookie and CSRF.
export function upload(method, path, blob, contentType, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, API_ROOT + path);
    xhr.withCredentials = true;
    xhr.setRequestHeader('Content-Type', contentType || 'application/octet-stream');
    if (session.csrf) xhr.setRequestHeader('X-CSRF-Token', session.csrf);
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && onProgress) onProgress(event.loaded, event.total);
    });
    xhr.addEventListener('load', () => {
      let body = null;
      try { body = xhr.responseText ? JSON.parse(xhr.responseText) : null; } catch (err) { body = xhr.responseText; }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(body);
      } else {
        const error = new ApiError(xhr.status, errorMessage(body, 'HTTP ' + xhr.status), body);
        if (xhr.status === 401) listeners.unauthorized.forEach((handler) => handler(error));
        reject(error);
      }
    });
    xhr.addEventListener('error', () => reject(new ApiDown(0, downMessage(), null)));
    xhr.send(blob);
  });
}
