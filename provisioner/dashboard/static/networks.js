// Networks and their subnets: list them, create a network with its subnet (name,
// CIDR, gateway or none, DHCP on or off), delete them. The API's refusal (an
// overlapping CIDR, a network still in use) is shown as it comes, next to the field
// or the network it is about. A new network is offered by the launch form at once.

import * as api from './api.js';
import {el, replace} from './dom.js';
import {clearErrors, confirmModal, field, formCard, frame, redrawn, setError, table} from './ui.js';

const NETWORKS = '/network/v2.0/networks';
const SUBNETS = '/network/v2.0/subnets';
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function isIpv4(text) {
  const match = IPV4.exec(text);
  return Boolean(match) && match.slice(1).every((part) => +part <= 255);
}

// What is wrong with the form before anything is sent: [[field, message]].
export function validate(v) {
  const problems = [];
  if (!v.name) problems.push(['name', 'Give the network a name.']);
  else if (v.name.length > 255) problems.push(['name', 'A name has at most 255 characters.']);
  if (v.subnet_name.length > 255) problems.push(['subnet_name', 'A name has at most 255 characters.']);
  const [address, prefix, extra] = v.cidr.split('/');
  if (!v.cidr) {
    problems.push(['cidr', 'Give the subnet\'s range as a CIDR, e.g. 192.168.50.0/24.']);
  } else if (extra !== undefined || !isIpv4(address) || !/^\d{1,2}$/.test(prefix || '') || +prefix > 32) {
    problems.push(['cidr', '"' + v.cidr + '" is not an IPv4 CIDR such as 192.168.50.0/24.']);
  }
  if (v.gateway_mode === 'address' && !isIpv4(v.gateway)) {
    problems.push(['gateway', 'Give the gateway\'s IPv4 address, or choose another option.']);
  }
  return problems;
}

// Which field of the form a subnet refusal is about (null: the form as a whole).
function fieldOfSubnetMessage(message) {
  if (/gateway/i.test(message)) return 'gateway';
  if (/cidr|overlap|prefix|range|address/i.test(message)) return 'cidr';
  if (/name/i.test(message)) return 'subnet_name';
  return null;
}

function subnetBody(networkId, v) {
  const subnet = {network_id: networkId, ip_version: 4, cidr: v.cidr,
                  name: v.subnet_name || v.name + '-subnet', enable_dhcp: v.dhcp};
  if (v.gateway_mode === 'none') subnet.gateway_ip = null;
  if (v.gateway_mode === 'address') subnet.gateway_ip = v.gateway;
  return {subnet};
}

function createForm(done) {
  const gatewayMode = el('select', {name: 'gateway_mode', id: 'subnet-gateway-mode'}, [
    el('option', {value: 'first', text: 'The first address of the range'}),
    el('option', {value: 'address', text: 'This address:'}),
    el('option', {value: 'none', text: 'None (no gateway)'}),
  ]);
  const gateway = el('input', {name: 'gateway', id: 'subnet-gateway', placeholder: 'e.g. 192.168.50.1',
                               disabled: true});
  gatewayMode.addEventListener('change', () => { gateway.disabled = gatewayMode.value !== 'address'; });
  const form = formCard('network-form', 'Create a network', [
    field('Network name', el('input', {name: 'name', id: 'network-name', maxlength: '255'})),
    field('Subnet name', el('input', {name: 'subnet_name', id: 'subnet-name', maxlength: '255',
                                      placeholder: 'Default: the network\'s name + -subnet'})),
    field('CIDR', el('input', {name: 'cidr', id: 'subnet-cidr', placeholder: 'e.g. 192.168.50.0/24'}),
          'The guests\' addresses; a range no other network uses.'),
    el('div', {class: 'field'}, [
      el('label', {class: 'field-label', for: 'subnet-gateway-mode', text: 'Gateway'}),
      gatewayMode, gateway,
      el('span', {class: 'field-error', 'data-error-for': 'gateway'}),
    ]),
    el('label', {class: 'check'}, [
      el('input', {type: 'checkbox', name: 'dhcp', id: 'subnet-dhcp', checked: true}),
      ' DHCP (guests get their address from the network)',
    ]),
  ], [el('button', {type: 'submit', class: 'primary', id: 'network-submit', text: 'Create'})]);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    const v = {name: form.elements.name.value.trim(), subnet_name: form.elements.subnet_name.value.trim(),
               cidr: form.elements.cidr.value.trim(), gateway_mode: gatewayMode.value,
               gateway: gateway.value.trim(), dhcp: form.elements.dhcp.checked};
    const problems = validate(v);
    if (problems.length) {
      for (const [name, message] of problems) setError(form, name, message);
      return;
    }
    const submit = form.querySelector('#network-submit');
    submit.disabled = true;
    try {
      await create(form, v);
    } finally {
      submit.disabled = false;
      await done();
    }
  });
  return form;
}

// The network, then its subnet; a subnet the API refuses takes its network back
// with it, so a refused form leaves nothing behind.
async function create(form, v) {
  let network;
  try {
    network = (await api.post(NETWORKS, {network: {name: v.name}})).network;
  } catch (err) {
    if (err.status !== 401) setError(form, /name/i.test(err.message) ? 'name' : null, err.message);
    return;
  }
  try {
    await api.post(SUBNETS, subnetBody(network.id, v));
  } catch (err) {
    if (err.status === 401) return;
    let message = err.message;
    try {
      await api.del(NETWORKS + '/' + api.enc(network.id));
    } catch (cleanup) {
      message += ' (the network ' + v.name + ' was made without a subnet: delete it below)';
    }
    setError(form, fieldOfSubnetMessage(err.message), message);
    return;
  }
  form.reset();
  form.elements.gateway.disabled = true;
}

export async function networks(page) {
  const content = frame(page, 'Networks and subnets');
  const message = el('p', {id: 'networks-message', class: 'form-error', role: 'alert'});
  const listArea = el('div', {id: 'networks-list'}, [el('p', {class: 'muted loading', text: 'Loading…'})]);
  replace(content, [createForm(() => load().catch((err) => page.error(err))), message, listArea]);

  const remove = async (what, name, path) => {
    if (!(await confirmModal('Delete ' + what + ' ' + name + '?',
                             'Instances can no longer be launched on it.', 'Delete'))) return;
    message.textContent = '';
    try {
      await api.del(path);
    } catch (err) {
      if (err.status !== 401) message.textContent = 'Delete ' + what + ' ' + name + ' refused: ' + err.message;
    }
    await load().catch((err) => page.error(err));
  };
  const button = (label, attrs, handler) =>
    el('button', Object.assign({type: 'button', class: 'danger small-button', text: label, on: {click: handler}}, attrs));
  const draw = redrawn(({nets, subnets}) => {
    const names = new Map(nets.map((n) => [n.id, n.name]));
    replace(listArea, [
      el('h2', {text: 'Networks'}),
      table([
        {title: 'Name', cell: (n) => n.name},
        {title: 'Subnet', cell: (n) => subnets.filter((s) => s.network_id === n.id).map((s) => s.cidr).join(', ') || '—'},
        {title: 'Shared', cell: (n) => n.shared ? 'yes' : 'no'},
        {title: 'Status', cell: (n) => n.status || ''},
        {title: 'ID', cell: (n) => n.id, class: 'mono'},
        {title: '', cell: (n) => button('Delete', {'data-network': n.id},
                                        () => remove('network', n.name, NETWORKS + '/' + api.enc(n.id)))},
      ], nets, {id: 'networks-table', empty: 'No networks: create one above.',
                rowAttrs: (n) => ({'data-id': n.id})}),
      el('h2', {text: 'Subnets'}),
      table([
        {title: 'Name', cell: (s) => s.name || ''},
        {title: 'CIDR', cell: (s) => s.cidr},
        {title: 'Gateway', cell: (s) => s.gateway_ip || 'none'},
        {title: 'DHCP', cell: (s) => s.enable_dhcp ? 'yes' : 'no'},
        {title: 'Pools', cell: (s) => (s.allocation_pools || []).map((p) => p.start + ' – ' + p.end).join(', ')},
        {title: 'Network', cell: (s) => names.get(s.network_id) || s.network_id},
        {title: '', cell: (s) => button('Delete', {'data-subnet': s.id},
                                        () => remove('subnet', s.name || s.cidr, SUBNETS + '/' + api.enc(s.id)))},
      ], subnets, {id: 'subnets-table', empty: 'No subnets.', rowAttrs: (s) => ({'data-id': s.id})}),
    ]);
  });
  const load = async () => {
    const [nets, subnets] = await Promise.all([api.get(NETWORKS), api.get(SUBNETS)]);
    if (page.alive) draw({nets: nets.networks, subnets: subnets.subnets});
  };
  await page.every(10000, load);
}
