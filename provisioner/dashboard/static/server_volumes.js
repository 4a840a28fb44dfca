// A server's volumes on its page: those attached (with their progress: attaching ->
// in-use, detaching -> available) and the project's available ones to attach. An
// attach or detach is an instance action: its flow shows in the page's flow panel.

import * as api from './api.js';
import {el, replace} from './dom.js';
import {redrawn, requestLine, statusBadge, table} from './ui.js';
import {MOVING, attach, attachable, confirmDetach, detach, volumeLabel} from './volumes.js';

// onAnswered(accepted): the API answered an attach or detach (accepted: follow
// its flow; refused: read the server again, it changed meanwhile).
export function serverVolumes(serverId, onAnswered) {
  const serverPath = api.compute('/servers/' + api.enc(serverId));
  const listArea = el('div', {id: 'server-volumes'});
  const picker = el('select', {id: 'attach-volume', 'aria-label': 'Volume to attach'});
  const attachButton = el('button', {type: 'button', id: 'attach-volume-submit', text: 'Attach'});
  const hint = el('span', {id: 'attach-volume-hint', class: 'muted small'});
  const message = requestLine('volume-message',
                              'the volume shows its progress below, its flow further down.');
  const node = el('section', {class: 'card', id: 'volumes-section'}, [
    el('div', {class: 'section-head'}, [
      el('h2', {text: 'Volumes'}),
      el('label', {class: 'inline'}, ['Attach ', picker]),
      attachButton,
      hint,
    ]),
    message.node,
    listArea,
  ]);
  let server = null;
  const send = (label, call) => message.run(label, call, onAnswered);
  attachButton.addEventListener('click', () => {
    const volumeId = picker.value;
    if (volumeId) send('Attach', () => attach(serverId, volumeId));
  });

  const drawList = redrawn(({attached, canChange}) => replace(listArea, table([
    {title: 'Name', cell: (v) => v.name || ''},
    {title: 'Size (GiB)', cell: (v) => v.size === undefined ? '' : String(v.size), class: 'num'},
    {title: 'Device', cell: (v) => v.device || ''},
    {title: 'Status', cell: (v) => statusBadge(v.status)},
    {title: 'ID', cell: (v) => v.id, class: 'mono'},
    {title: '', cell: (v) => v.status === 'in-use' ? el('button', {
      type: 'button', class: 'small-button', 'data-detach': v.id, text: 'Detach', disabled: !canChange,
      on: {click: async () => {
        if (await confirmDetach(v, server.name)) send('Detach', () => detach(serverId, v.id));
      }}}) : null},
  ], attached, {id: 'server-volumes-table', empty: 'No volume is attached.',
                rowAttrs: (v) => ({'data-id': v.id, 'data-status': v.status})})));
  const drawPicker = redrawn(({available, canChange}) => {
    const kept = picker.value;
    replace(picker, [el('option', {value: '', text: available.length ? 'Choose a volume' : 'No available volume'})]
      .concat(available.map((v) => el('option', {value: v.id, text: volumeLabel(v), selected: v.id === kept}))));
    picker.disabled = !canChange || !available.length;
    attachButton.disabled = !canChange || !available.length;
    hint.textContent = !canChange
      ? 'Volumes are attached to and detached from an ACTIVE or SHUTOFF instance with no task under way.'
      : available.length ? '' : 'Create one on the Volumes page.';
  });

  return {
    node,
    // Read the server's attachments and the project's volumes; whether one of this
    // server's volumes is on its way (attaching, detaching).
    async refresh(current) {
      server = current;
      const [attachments, body] = await Promise.all([
        api.get(serverPath + '/os-volume_attachments'),
        api.get(api.volumeApi('/volumes/detail')),
      ]);
      const byId = new Map(body.volumes.map((v) => [v.id, v]));
      const attached = attachments.volumeAttachments.map((a) => {
        const volume = byId.get(a.volumeId) || {id: a.volumeId, status: 'attaching', attachments: []};
        // Cinder's device first: Nova's attachment shows a boot's volume as vda.
        const device = ((volume.attachments || [])[0] || {}).device || a.device;
        return Object.assign({}, volume, {device});
      });
      const canChange = attachable(current);
      drawList({attached, canChange});
      drawPicker({available: body.volumes.filter((v) => v.status === 'available')
                                         .map((v) => ({id: v.id, name: v.name, size: v.size})), canChange});
      return attached.some((v) => MOVING.has(v.status));
    },
  };
}
