// The buttons of a server's page: stop, start, reboot, delete, and resume or roll
// back an interrupted boot. A button is offered only when the server's state lets
// it act; when the API refuses anyway (someone else changed the server meanwhile),
// its message is shown next to the buttons, never swallowed.

import * as api from './api.js';
import {el} from './dom.js';
import {confirmModal, requestLine} from './ui.js';

// The actions whose flow is the boot's (resume and rollback carry it on).
export const BOOT_ACTIONS = new Set(['create', 'resume', 'rollback']);

// TaskFlow's states of a boot flow that stopped half-way with no run under way:
// SUSPENDED (its process was stopped and let the step it was in finish) and FAILURE
// (its run ended on an error without reverting). A running boot reads RUNNING (or
// PENDING before its first step): resume or rollback could not act on it.
const STOPPED_HALF_WAY = new Set(['SUSPENDED', 'FAILURE']);

// An interrupted boot: the server is still building (vm_state, which BUILD
// status alone does not tell apart from a running boot) and the flow of its latest
// boot action stopped half-way.
export function interruptedBoot(server, bootFlow) {
  return server['OS-EXT-STS:vm_state'] === 'building' && Boolean(bootFlow) &&
         STOPPED_HALF_WAY.has(String(bootFlow.state || '').toUpperCase());
}

// The request of the server's latest boot action, or null.
export function latestBootRequest(actions) {
  const found = actions.find((a) => BOOT_ACTIONS.has(a.action));
  return found ? found.request_id : null;
}

// server(): the server as last read. onAnswered(accepted): the API answered a
// request (a refusal too: the server changed meanwhile, read it again).
export function serverActions(serverPath, server, onAnswered) {
  const message = requestLine('action-message', 'its flow is shown below.');
  const send = (label, call) => message.run(label, call, onAnswered);
  const act = async (label, body, question) => {
    if (question && !(await confirmModal(label + ' ' + server().name + '?', question, label))) return;
    await send(label, () => api.post(serverPath + '/action', body));
  };
  const remove = async () => {
    if (!(await confirmModal('Delete ' + server().name + '?',
                             'The instance, its volumes and its ports are deleted. This cannot be undone.',
                             'Delete'))) return;
    await send('Delete', () => api.del(serverPath));
  };
  const button = (id, label, handler, kind) =>
    el('button', {type: 'button', id, class: kind || '', text: label, on: {click: handler}});
  const buttons = {
    stop: button('action-stop', 'Stop', () => act('Stop', {'os-stop': null},
      'The guest is shut down (ACPI, then forced); its disks and addresses are kept.')),
    start: button('action-start', 'Start', () => act('Start', {'os-start': null})),
    reboot: button('action-reboot-soft', 'Reboot', () => act('Reboot', {reboot: {type: 'SOFT'}},
      'The guest is asked to restart.')),
    hard: button('action-reboot-hard', 'Hard reboot', () => act('Hard reboot', {reboot: {type: 'HARD'}},
      'The guest is powered off and on again, without asking it: unsaved data is lost.')),
    resume: button('action-resume', 'Resume', () => act('Resume', {'provisioner:resume': null})),
    rollback: button('action-rollback', 'Rollback', () => act('Rollback', {'provisioner:rollback': null},
      'Every step the interrupted boot ran is undone: the instance ends in ERROR with nothing left behind.'), 'danger'),
    remove: button('action-delete', 'Delete', remove, 'danger'),
  };
  // Offered once the server's state says they can act (update()).
  buttons.resume.classList.add('hidden');
  buttons.rollback.classList.add('hidden');
  const node = el('div', {class: 'actions', id: 'instance-actions'}, Object.values(buttons));

  return {
    node,
    message: message.node,
    // Which buttons can act now: by the server's state, and for resume and rollback
    // by its boot flow's (bootFlow: the flow of its latest boot action, or null).
    update(current, bootFlow) {
      const status = current.status;
      const busy = Boolean(current['OS-EXT-STS:task_state']);
      buttons.stop.disabled = busy || status !== 'ACTIVE';
      buttons.start.disabled = busy || status !== 'SHUTOFF';
      buttons.reboot.disabled = busy || status !== 'ACTIVE';
      buttons.hard.disabled = busy || !['ACTIVE', 'SHUTOFF'].includes(status);
      const interrupted = interruptedBoot(current, bootFlow);
      buttons.resume.classList.toggle('hidden', !interrupted);
      buttons.rollback.classList.toggle('hidden', !interrupted);
      node.setAttribute('data-interrupted', interrupted ? 'true' : 'false');
    },
  };
}
