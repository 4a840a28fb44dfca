// Instances: a list that refreshes itself, and the launch form.

import * as api from './api.js';
import {age, el, replace} from './dom.js';
import {clearErrors, field, formCard, frame, setError, statusBadge, table} from './ui.js';

const DRAFT_KEY = 'provisioner.launchDraft';
const STATUSES = ['BUILD', 'ACTIVE', 'SHUTOFF', 'REBOOT', 'HARD_REBOOT', 'ERROR', 'DELETED'];
const MAX_USER_DATA = 65536;
const MAX_VOLUME_GIB = 1024;

export function ipsOf(server) {
  const ips = [];
  for (const [network, addresses] of Object.entries(server.addresses || {})) {
    for (const address of addresses) ips.push(network + '=' + address.addr);
  }
  return ips.join(', ');
}

export async function render(page) {
  const launch = el('button', {type: 'button', id: 'launch-open', class: 'primary', text: 'Launch instance'});
  const content = frame(page, 'Instances', [launch]);
  const nameFilter = el('input', {id: 'filter-name', type: 'search', placeholder: 'Filter by name',
                                  'aria-label': 'Filter by name'});
  const statusFilter = el('select', {id: 'filter-status', 'aria-label': 'Filter by status'},
                          [el('option', {value: '', text: 'Any status'})].concat(
                            STATUSES.map((s) => el('option', {value: s, text: s}))));
  const formArea = el('div', {id: 'launch-area'});
  const listArea = el('div', {id: 'instances-list'}, [el('p', {class: 'muted loading', text: 'Loading…'})]);
  const updated = el('span', {class: 'muted small', id: 'list-updated'});
  replace(content, [formArea, el('div', {class: 'filters'}, [nameFilter, statusFilter, updated]), listArea]);

  let servers = null;
  const draw = () => {
    if (servers === null) return;
    const name = nameFilter.value.trim().toLowerCase();
    const status = statusFilter.value;
    const shown = servers.filter((s) => (!name || s.name.toLowerCase().includes(name)) &&
                                        (!status || s.status === status));
    const columns = [
      {title: 'Name', cell: (s) => el('a', {href: '#/instances/' + encodeURIComponent(s.id),
                                            class: 'instance-link', text: s.name})},
      {title: 'Status', cell: (s) => statusBadge(s.status)},
      {title: 'Task state', cell: (s) => s['OS-EXT-STS:task_state'] || ''},
    ];
    if (api.session.isAdmin) columns.push({title: 'Host', cell: (s) => s['OS-EXT-SRV-ATTR:host'] || ''});
    columns.push({title: 'IP', cell: (s) => ipsOf(s)});
    columns.push({title: 'Age', cell: (s) => age(s.created)});
    replace(listArea, table(columns, shown, {
      id: 'instances-table',
      empty: servers.length ? 'No instance matches the filter.' : 'No instances yet: launch one.',
      rowAttrs: (s) => ({'data-id': s.id, 'data-status': s.status}),
    }));
  };
  nameFilter.addEventListener('input', draw);
  statusFilter.addEventListener('change', draw);

  const openForm = () => {
    launch.disabled = true;
    launchForm(page, formArea, () => { launch.disabled = false; }).catch((err) => page.error(err));
  };
  launch.addEventListener('click', openForm);
  if (sessionStorage.getItem(DRAFT_KEY)) openForm();  // an unsent form, kept across a login

  await page.every(2000, async () => {
    const body = await api.get(api.compute('/servers/detail'));
    servers = body.servers;
    updated.textContent = 'Updated ' + new Date().toLocaleTimeString();
    draw();
  });
}

// -- the launch form ------------------------------------------------------------------

async function options() {
  const [flavors, images, networks, keypairs, zones, groups] = await Promise.all([
    api.get(api.compute('/flavors/detail')),
    api.get('/image/v2/images'),
    api.get('/network/v2.0/networks'),
    api.get(api.compute('/os-keypairs')),
    api.get(api.compute('/os-availability-zone')).catch(() => ({availabilityZoneInfo: []})),
    api.get(api.compute('/os-server-groups')).catch(() => ({server_groups: []})),
  ]);
  return {
    flavors: flavors.flavors, images: images.images, networks: networks.networks,
    keypairs: keypairs.keypairs.map((k) => k.keypair),
    zones: (zones.availabilityZoneInfo || []).map((z) => z.zoneName),
    groups: groups.server_groups,
  };
}

function select(name, id, choices, placeholder) {
  return el('select', {name, id}, [el('option', {value: '', text: placeholder})].concat(
    choices.map(([value, label]) => el('option', {value, text: label}))));
}

// Which field of the form an API message is about (null: the form as a whole).
export function fieldOfMessage(message) {
  const path = /field\/attribute (\S+)\./.exec(message);
  const text = path ? path[1] : message;
  const rules = [
    [/OS-SCH-HNT|scheduler_hints|server.?group/i, 'server_group'],
    [/flavor/i, 'flavor'],
    [/image/i, 'image'],
    [/network|uuid/i, 'networks'],
    [/volume|block_device/i, 'volumes'],
    [/key.?pair|key_name/i, 'key_name'],
    [/user.?data/i, 'user_data'],
    [/availability.?zone/i, 'availability_zone'],
    [/server\/name|\bname\b/i, 'name'],
  ];
  for (const [pattern, name] of rules) if (pattern.test(text)) return name;
  return null;
}

async function launchForm(page, area, onClose) {
  const choices = await options();
  if (!page.alive) return;
  const draft = JSON.parse(sessionStorage.getItem(DRAFT_KEY) || 'null') || {};
  const userData = {name: draft.user_data_name || null, base64: draft.user_data || null};

  const networkBoxes = choices.networks.map((n) => el('label', {class: 'check'}, [
    el('input', {type: 'checkbox', name: 'networks', value: n.id,
                 checked: draft.networks ? draft.networks.includes(n.id) : choices.networks.length === 1}),
    ' ' + n.name,
  ]));
  const userDataInput = el('input', {type: 'file', name: 'user_data', id: 'launch-user-data'});
  const userDataName = el('span', {class: 'hint', text: userData.name ? 'Kept: ' + userData.name : ''});
  const form = formCard('launch-form', 'Launch an instance', [
    field('Name', el('input', {name: 'name', id: 'launch-name', maxlength: '255', required: true})),
    field('Flavor', select('flavor', 'launch-flavor', choices.flavors.map((f) =>
      [f.id, f.name + ' (' + f.vcpus + ' vCPU, ' + f.ram + ' MiB, ' + f.disk + ' GiB)']), 'Choose a flavor')),
    field('Image', select('image', 'launch-image', choices.images.map((i) => [i.id, i.name]), 'Choose an image')),
    el('fieldset', {class: 'field'}, [
      el('legend', {class: 'field-label', text: 'Networks'}),
      el('div', {id: 'launch-networks'}, networkBoxes.length ? networkBoxes : [el('span', {class: 'muted', text: 'No networks.'})]),
      el('span', {class: 'field-error', 'data-error-for': 'networks'}),
    ]),
    field('Blank volumes (GiB)', el('input', {name: 'volumes', id: 'launch-volumes', placeholder: 'e.g. 1, 2'}),
          'Sizes, comma-separated; each is created and attached at boot, deleted with the server.'),
    field('Key pair', select('key_name', 'launch-key', choices.keypairs.map((k) => [k.name, k.name]), 'None')),
    el('label', {class: 'field'}, [
      el('span', {class: 'field-label', text: 'User data file'}),
      userDataInput, userDataName,
      el('span', {class: 'field-error', 'data-error-for': 'user_data'}),
    ]),
    field('Availability zone', el('input', {name: 'availability_zone', id: 'launch-zone', list: 'launch-zones',
                                            placeholder: 'Any'})),
    el('datalist', {id: 'launch-zones'}, choices.zones.map((z) => el('option', {value: z}))),
    field('Server group', select('server_group', 'launch-group', choices.groups.map((g) =>
      [g.id, g.name + ' (' + (g.policies || [g.policy]).join(', ') + ')']), 'None')),
  ], [
    el('button', {type: 'button', id: 'launch-cancel', text: 'Cancel'}),
    el('button', {type: 'submit', id: 'launch-submit', class: 'primary', text: 'Launch'}),
  ]);
  for (const name of ['name', 'flavor', 'image', 'volumes', 'key_name', 'availability_zone', 'server_group']) {
    if (draft[name]) form.elements[name].value = draft[name];
  }

  const values = () => ({
    name: form.elements.name.value,
    flavor: form.elements.flavor.value,
    image: form.elements.image.value,
    networks: [...form.querySelectorAll('input[name="networks"]:checked')].map((b) => b.value),
    volumes: form.elements.volumes.value,
    key_name: form.elements.key_name.value,
    availability_zone: form.elements.availability_zone.value,
    server_group: form.elements.server_group.value,
    user_data: userData.base64,
    user_data_name: userData.name,
  });
  const saveDraft = () => sessionStorage.setItem(DRAFT_KEY, JSON.stringify(values()));
  form.addEventListener('input', saveDraft);
  form.addEventListener('change', saveDraft);

  userDataInput.addEventListener('change', () => {
    const file = userDataInput.files[0];
    clearErrors(form);
    if (!file) return;
    if (file.size > MAX_USER_DATA) {
      setError(form, 'user_data', 'The file is ' + file.size + ' bytes; user data is at most ' + MAX_USER_DATA + '.');
      userData.base64 = userData.name = null;
      return;
    }
    const reader = new FileReader();
    reader.addEventListener('load', () => {
      // A data: URL "data:<type>;base64,<data>": keep the base 64.
      userData.base64 = String(reader.result).split(',', 2)[1] || '';
      userData.name = file.name;
      userDataName.textContent = file.size + ' bytes';
      saveDraft();
    });
    reader.addEventListener('error', () => setError(form, 'user_data', 'The file could not be read.'));
    reader.readAsDataURL(file);
  });

  const close = () => {
    sessionStorage.removeItem(DRAFT_KEY);
    replace(area, []);
    onClose();
  };
  form.querySelector('#launch-cancel').addEventListener('click', close);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    const v = values();
    const problems = validate(v);
    if (problems.length) {
      for (const [name, message] of problems) setError(form, name, message);
      return;
    }
    const server = {name: v.name.trim(), flavorRef: v.flavor, imageRef: v.image,
                    networks: v.networks.map((uuid) => ({uuid}))};
    const sizes = volumeSizes(v.volumes);
    if (sizes.length) {
      server.block_device_mapping_v2 = sizes.map((size) => ({
        source_type: 'blank', destination_type: 'volume', volume_size: size,
        delete_on_termination: true, boot_index: -1}));
    }
    if (v.key_name) server.key_name = v.key_name;
    if (v.user_data) server.user_data = v.user_data;
    if (v.availability_zone.trim()) server.availability_zone = v.availability_zone.trim();
    const body = {server};
    if (v.server_group) body['OS-SCH-HNT:scheduler_hints'] = {group: v.server_group};
    const submit = form.querySelector('#launch-submit');
    submit.disabled = true;
    try {
      const created = await api.post(api.compute('/servers'), body);
      sessionStorage.removeItem(DRAFT_KEY);
      window.location.hash = '#/instances/' + encodeURIComponent(created.server.id);
    } catch (err) {
      submit.disabled = false;
      if (err.status === 401) return;  // kept in the draft; back after login
      setError(form, err instanceof api.ApiDown ? null : fieldOfMessage(err.message), err.message);
    }
  });
  replace(area, form);
  form.elements.name.focus();
}

function volumeSizes(text) {
  return text.split(/[\s,]+/).filter(Boolean).map(Number);
}

// What is wrong with the form, before anything is sent: [[field, message]].
export function validate(v) {
  const problems = [];
  const name = v.name.trim();
  if (!name) problems.push(['name', 'Give the instance a name.']);
  else if (name.length > 255) problems.push(['name', 'A name has at most 255 characters.']);
  if (!v.flavor) problems.push(['flavor', 'Choose a flavor.']);
  if (!v.image) problems.push(['image', 'Choose an image.']);
  if (!v.networks.length) problems.push(['networks', 'Choose at least one network.']);
  for (const size of v.volumes.split(/[\s,]+/).filter(Boolean)) {
    if (!/^\d+$/.test(size) || +size < 1 || +size > MAX_VOLUME_GIB) {
      problems.push(['volumes', 'Each volume size is a whole number of GiB from 1 to ' +
                                MAX_VOLUME_GIB + ', not "' + size + '".']);
      break;
    }
  }
  return problems;
}
