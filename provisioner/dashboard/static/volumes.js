// Volumes: create one, attach it to a server and detach it (Nova's
// os-volume_attachments), delete it; each attachment's progress (attaching ->
// in-use, detaching -> available) as the list refreshes, and the API's refusal
// next to the volume it is about.

import * as api from './api.js';
import {age, el, replace} from './dom.js';
import {clearErrors, confirmModal, field, formCard, frame, redrawn, setError, statusBadge, table} from './ui.js';

const MAX_SIZE_GIB = 16384;
// Statuses a volume passes through on its own: the list refreshes fast meanwhile.
export const MOVING = new Set(['attaching', 'detaching', 'deleting']);

// What the API lets a volume be attached to: a server up or shut off, with no task.
export function attachable(server) {
  return ['ACTIVE', 'SHUTOFF'].includes(server.status) && !server['OS-EXT-STS:task_state'];
}

export function volumeLabel(volume) {
  return (volume.name || volume.id) + ' (' + volume.size + ' GiB)';
}

export const attach = (serverId, volumeId) => api.post(
  api.compute('/servers/' + api.enc(serverId) + '/os-volume_attachments'),
  {volumeAttachment: {volumeId}});

export const detach = (serverId, volumeId) => api.del(
  api.compute('/servers/' + api.enc(serverId) + '/os-volume_attachments/' + api.enc(volumeId)));

export function confirmDetach(volume, serverName) {
  return confirmModal('Detach ' + volumeLabel(volume) + '?',
                      'It is unplugged from ' + serverName + ' once the guest lets go of it: ' +
                      'unmount it in the guest first.', 'Detach');
}

export async function volumes(page) {
  const content = frame(page, 'Volumes');
  const listArea = el('div', {id: 'volumes-list'}, [el('p', {class: 'muted loading', text: 'Loading…'})]);
  replace(content, [createForm(() => refresh().catch((err) => page.error(err))), listArea]);

  const chosen = new Map();   // volume id -> the server chosen in its row
  const notes = new Map();    // volume id -> the API's last refusal about it
  let servers = [];
  const request = async (volume, label, call) => {
    notes.delete(volume.id);
    try {
      await call();
    } catch (err) {
      if (err.status !== 401) notes.set(volume.id, label + ' refused: ' + err.message);
    }
    await refresh().catch((err) => page.error(err));
  };
  const actions = (v) => {
    const cell = [];
    if (v.status === 'available') {
      const targets = servers.filter(attachable);
      const select = el('select', {class: 'attach-server', 'data-volume': v.id, 'aria-label': 'Server'},
        [el('option', {value: '', text: targets.length ? 'Attach to…' : 'No server to attach to'})].concat(
          targets.map((s) => el('option', {value: s.id, text: s.name, selected: chosen.get(v.id) === s.id}))));
      select.addEventListener('change', () => chosen.set(v.id, select.value));
      cell.push(select, el('button', {type: 'button', class: 'small-button', text: 'Attach', 'data-attach': v.id,
        on: {click: () => select.value && request(v, 'Attach', () => attach(select.value, v.id))}}));
    }
    if (v.status === 'in-use') {
      const serverId = v.attachments[0].server_id;
      cell.push(el('button', {type: 'button', class: 'small-button', text: 'Detach', 'data-detach': v.id,
        on: {click: async () => {
          if (await confirmDetach(v, serverName(serverId))) request(v, 'Detach', () => detach(serverId, v.id));
        }}}));
    }
    if (['available', 'error', 'error_deleting'].includes(v.status)) {
      cell.push(el('button', {type: 'button', class: 'danger small-button', text: 'Delete', 'data-delete': v.id,
        on: {click: async () => {
          if (await confirmModal('Delete ' + volumeLabel(v) + '?', 'Its data is lost.', 'Delete')) {
            request(v, 'Delete', () => api.del(api.volumeApi('/volumes/' + api.enc(v.id))));
          }
        }}}));
    }
    if (MOVING.has(v.status)) cell.push(el('span', {class: 'muted small', text: v.status + '…'}));
    if (notes.has(v.id)) {
      cell.push(el('span', {class: 'field-error row-note', 'data-volume-note': v.id, text: notes.get(v.id)}));
    }
    return el('div', {class: 'row-actions'}, cell);
  };
  const serverName = (id) => (servers.find((s) => s.id === id) || {name: id}).name;
  const draw = redrawn(({list}) => replace(listArea, table([
    {title: 'Name', cell: (v) => v.name || ''},
    {title: 'Size (GiB)', cell: (v) => String(v.size), class: 'num'},
    {title: 'Status', cell: (v) => statusBadge(v.status)},
    {title: 'Attached to', cell: (v) => (v.attachments || []).map((a) => el('a', {
      href: '#/instances/' + encodeURIComponent(a.server_id),
      text: serverName(a.server_id) + (a.device ? ' on ' + a.device : '')}))},
    {title: 'Created', cell: (v) => v.created_at ? age(v.created_at) + ' ago' : ''},
    {title: 'ID', cell: (v) => v.id, class: 'mono'},
    {title: '', cell: actions},
  ], list, {id: 'volumes-table', empty: 'No volumes yet: create one above.',
            rowAttrs: (v) => ({'data-id': v.id, 'data-status': v.status})})));

  const refresh = async () => {
    const [body, serverBody] = await Promise.all([api.get(api.volumeApi('/volumes/detail')),
                                                  api.get(api.compute('/servers/detail'))]);
    if (!page.alive) return 5000;
    servers = serverBody.servers;
    const list = body.volumes;
    draw({list, servers: servers.map((s) => [s.id, s.name, attachable(s)]), notes: [...notes]});
    return list.some((v) => MOVING.has(v.status)) ? 1000 : 4000;
  };
  await page.every(4000, refresh);
}

function createForm(done) {
  const form = formCard('volume-form', 'Create a volume', [
    field('Name', el('input', {name: 'name', id: 'volume-name', maxlength: '255'})),
    field('Size (GiB)', el('input', {name: 'size', id: 'volume-size', type: 'number', min: '1',
                                     max: String(MAX_SIZE_GIB), value: '1'}),
          'A blank disk, made on the host of the first server it is attached to.'),
  ], [el('button', {type: 'submit', class: 'primary', id: 'volume-submit', text: 'Create'})]);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    const name = form.elements.name.value.trim();
    const size = form.elements.size.value.trim();
    if (!name) return setError(form, 'name', 'Give the volume a name.');
    if (!/^\d+$/.test(size) || +size < 1 || +size > MAX_SIZE_GIB) {
      return setError(form, 'size', 'The size is a whole number of GiB from 1 to ' + MAX_SIZE_GIB + '.');
    }
    const submit = form.querySelector('#volume-submit');
    submit.disabled = true;
    try {
      await api.post(api.volumeApi('/volumes'), {volume: {name, size: +size}});
      form.reset();
      await done();
    } catch (err) {
      if (err.status !== 401) {
        setError(form, /size|gigabytes|quota/i.test(err.message) ? 'size' : /name/i.test(err.message) ? 'name' : null,
                 err.message);
      }
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
