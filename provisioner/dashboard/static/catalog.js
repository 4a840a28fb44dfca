// Catalog and admin pages: flavors, images, key pairs, and (for admins) hosts with
// their capacity and usage. Networks and volumes have their own modules.

import * as api from './api.js';
import {age, el, replace} from './dom.js';
import {bar, clearErrors, confirmModal, field, formCard, frame, setError, showBanner, table} from './ui.js';

function loading(content) {
  replace(content, el('p', {class: 'muted loading', text: 'Loading…'}));
}

export async function flavors(page) {
  const content = frame(page, 'Flavors');
  loading(content);
  const body = await api.get(api.compute('/flavors/detail'));
  replace(content, table([
    {title: 'Name', cell: (f) => f.name},
    {title: 'vCPUs', cell: (f) => String(f.vcpus), class: 'num'},
    {title: 'RAM (MiB)', cell: (f) => String(f.ram), class: 'num'},
    {title: 'Disk (GiB)', cell: (f) => String(f.disk), class: 'num'},
    {title: 'Public', cell: (f) => f['os-flavor-access:is_public'] === false ? 'no' : 'yes'},
    {title: 'ID', cell: (f) => f.id, class: 'mono'},
  ], body.flavors, {id: 'flavors-table', empty: 'No flavors.'}));
}

function size(bytes) {
  if (bytes === null || bytes === undefined) return '';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit += 1; }
  return (unit ? value.toFixed(1) : String(value)) + ' ' + units[unit];
}

const DISK_FORMATS = [['qcow2', 'qcow2 (disk image)'], ['raw', 'raw (disk image)'],
                      ['aki', 'aki (kernel)'], ['ari', 'ari (initramfs)']];

export async function images(page) {
  const content = frame(page, 'Images');
  const listArea = el('div', {}, [el('p', {class: 'muted loading', text: 'Loading…'})]);
  const form = uploadForm(() => load());
  replace(content, [form, listArea]);

  const load = async () => {
    const body = await api.get('/image/v2/images');
    if (!page.alive) return;
    replace(listArea, table([
      {title: 'Name', cell: (i) => i.name || ''},
      {title: 'Status', cell: (i) => i.status || ''},
      {title: 'Format', cell: (i) => [i.disk_format, i.container_format].filter(Boolean).join(' / ')},
      {title: 'Size', cell: (i) => size(i.size), class: 'num'},
      {title: 'Visibility', cell: (i) => i.visibility || ''},
      {title: 'Created', cell: (i) => i.created_at ? age(i.created_at) + ' ago' : ''},
      {title: 'ID', cell: (i) => i.id, class: 'mono'},
      {title: '', cell: (i) => i.owner && i.owner !== api.session.projectId && !api.session.isAdmin ? '' :
        el('button', {type: 'button', class: 'danger small-button', text: 'Delete', 'data-image': i.name || i.id,
                      on: {click: async () => {
                        if (!(await confirmModal('Delete image ' + (i.name || i.id) + '?',
                            'Its data is removed; servers booted from it keep their disks.', 'Delete'))) return;
                        try {
                          await api.del('/image/v2/images/' + api.enc(i.id));
                          await load();
                        } catch (err) {
                          if (err.status !== 401) showBanner(err.message, 'error');
                        }
                      }}})},
    ], body.images, {id: 'images-table', empty: 'No images.'}));
  };
  await page.every(5000, load);
}

// Upload: create the image record, then PUT its data with the upload's progress
// (XMLHttpRequest: fetch reports none).
function uploadForm(done) {
  const progress = el('progress', {id: 'image-progress', max: '100', value: '0', class: 'hidden'});
  const progressText = el('span', {id: 'image-progress-text', class: 'muted small'});
  const form = formCard('image-form', 'Upload an image', [
    field('Name', el('input', {name: 'name', id: 'image-name', maxlength: '255'})),
    field('Disk format', el('select', {name: 'disk_format', id: 'image-format'},
                            DISK_FORMATS.map(([value, label]) => el('option', {value, text: label})))),
    field('File', el('input', {name: 'file', id: 'image-file', type: 'file'})),
  ], [progress, progressText,
      el('button', {type: 'submit', class: 'primary', id: 'image-submit', text: 'Upload'})]);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    const name = form.elements.name.value.trim();
    const file = form.elements.file.files[0];
    if (!name) setError(form, 'name', 'Give the image a name.');
    if (!file) setError(form, 'file', 'Choose the file to upload.');
    if (!name || !file) return;
    const submit = form.querySelector('#image-submit');
    submit.disabled = true;
    let image = null;
    try {
      image = await api.post('/image/v2/images', {name, disk_format: form.elements.disk_format.value,
                                                  container_format: 'bare', visibility: 'private'});
      progress.value = 0;
      progress.classList.remove('hidden');
      await api.upload('PUT', '/image/v2/images/' + api.enc(image.id) + '/file', file,
                       'application/octet-stream', (loaded, total) => {
                         progress.value = Math.round(loaded / total * 100);
                         progressText.textContent = size(loaded) + ' of ' + size(total);
                       });
      progress.value = 100;
      progressText.textContent = 'Uploaded ' + size(file.size) + '.';
      form.reset();
      done();
    } catch (err) {
      if (err.status === 401) return;
      setError(form, /name/i.test(err.message) && !image ? 'name' : image ? 'file' : null,
               err.message + (image ? ' (the image ' + name + ' stays queued: delete it or upload again)' : ''));
      done();
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

export async function keypairs(page) {
  const content = frame(page, 'Key pairs');
  const listArea = el('div');
  const secret = el('div', {id: 'keypair-secret'});
  const form = formCard('keypair-form', 'Create or import a key pair', [
    field('Name', el('input', {name: 'name', id: 'keypair-name', maxlength: '255'})),
    field('Public key', el('textarea', {name: 'public_key', id: 'keypair-public', rows: '3',
                                        placeholder: 'ssh-ed25519 AAAA… (empty: generate a new key pair)'}),
          'Paste a public key to import it; leave empty to have one generated (its private key is shown once).'),
  ], [el('button', {type: 'submit', class: 'primary', id: 'keypair-submit', text: 'Save'})]);
  replace(content, [form, secret, listArea]);

  const load = async () => {
    const body = await api.get(api.compute('/os-keypairs'));
    replace(listArea, table([
      {title: 'Name', cell: (k) => k.keypair.name},
      {title: 'Type', cell: (k) => k.keypair.type || 'ssh'},
      {title: 'Fingerprint', cell: (k) => k.keypair.fingerprint, class: 'mono'},
      {title: '', cell: (k) => el('button', {type: 'button', class: 'danger small-button', text: 'Delete',
        'data-keypair': k.keypair.name, on: {click: async () => {
          if (!(await confirmModal('Delete key pair ' + k.keypair.name + '?',
                                   'Servers that have it keep it; new servers cannot use it.', 'Delete'))) return;
          try {
            await api.del(api.compute('/os-keypairs/' + api.enc(k.keypair.name)));
            await load();
          } catch (err) {
            if (err.status !== 401) showBanner(err.message, 'error');
          }
        }}})},
    ], body.keypairs, {id: 'keypairs-table', empty: 'No key pairs.'}));
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    replace(secret, []);
    const name = form.elements.name.value.trim();
    const publicKey = form.elements.public_key.value.trim();
    if (!name) return setError(form, 'name', 'Give the key pair a name.');
    if (!/^[\w .@-]+$/.test(name)) {
      return setError(form, 'name', 'A name has letters, digits, spaces and . _ - @ only.');
    }
    const keypair = {name};
    if (publicKey) keypair.public_key = publicKey;
    try {
      const created = (await api.post(api.compute('/os-keypairs'), {keypair})).keypair;
      form.reset();
      if (created.private_key) {
        replace(secret, el('div', {class: 'card'}, [
          el('h3', {text: 'Private key of ' + created.name + ' (shown once: save it now)'}),
          el('pre', {class: 'console', id: 'keypair-private', text: created.private_key}),
        ]));
      }
      await load();
    } catch (err) {
      if (err.status === 401) return;
      setError(form, /public.?key/i.test(err.message) ? 'public_key' : /name/i.test(err.message) ? 'name' : null,
               err.message);
    }
  });
  await load();
}

export async function hosts(page) {
  const content = frame(page, 'Hosts');
  if (!api.session.isAdmin) {
    replace(content, el('p', {text: 'Hosts are for the cloud administrator (role admin).'}));
    return;
  }
  loading(content);
  const toggle = async (hypervisor, enable) => {
    const name = hypervisor.service.host;
    if (!enable && !(await confirmModal('Disable ' + name + '?',
        'No new instance is scheduled to it; its instances keep running.', 'Disable'))) return;
    try {
      await api.put(api.compute('/os-services/' + (enable ? 'enable' : 'disable')),
                    {host: name, binary: 'nova-compute'});
      tick();
    } catch (err) {
      if (err.status !== 401) showBanner(err.message, 'error');
    }
  };
  const tick = async () => {
    const body = await api.get(api.compute('/os-hypervisors/detail'));
    if (!page.alive) return;
    replace(content, table([
      {title: 'Host', cell: (h) => h.hypervisor_hostname},
      {title: 'State', cell: (h) => el('span', {class: 'status status-' + h.state, text: h.state})},
      {title: 'Status', cell: (h) => h.status + (h.service && h.service.disabled_reason ? ' (' + h.service.disabled_reason + ')' : '')},
      {title: 'vCPUs', cell: (h) => bar(h.vcpus_used, h.vcpus)},
      {title: 'Memory', cell: (h) => bar(h.memory_mb_used, h.memory_mb, 'MiB')},
      {title: 'Disk', cell: (h) => bar(h.local_gb_used, h.local_gb, 'GiB')},
      {title: 'Instances', cell: (h) => String(h.running_vms), class: 'num'},
      {title: '', cell: (h) => h.status === 'enabled'
        ? el('button', {type: 'button', class: 'small-button', 'data-host': h.hypervisor_hostname, text: 'Disable',
                        on: {click: () => toggle(h, false)}})
        : el('button', {type: 'button', class: 'small-button', 'data-host': h.hypervisor_hostname, text: 'Enable',
                        on: {click: () => toggle(h, true)}})},
    ], body.hypervisors, {id: 'hosts-table', empty: 'No hosts have reported yet.'}));
  };
  await page.every(5000, tick);
}
