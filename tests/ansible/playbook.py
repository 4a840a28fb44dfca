"""ansible-playbook for the harness: its environment, a run, its results and recap.

Ansible runs from the run's workspace with everything it would keep under ~ there
instead (ANSIBLE_HOME, its temporary files; XDG dirs for openstacksdk), the run's
clouds.yaml only (OS_CLIENT_CONFIG_FILE, no OS_* of the caller's shell), the
collections installed with ansible in this environment, and our callback
(callback_plugins/provisioner_record.py) writing each task's outcome as JSON lines.
"""

import dataclasses
import json
import os
import pathlib
import subprocess
import sys
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
FAILED = ('failed', 'unreachable')
# Seconds a playbook run or the SDK script may take before it is killed (a run
# takes 1-3 minutes; a client waiting forever must not hang CI).
TIMEOUT = 1800


def environment(workspace, clouds_yaml):
    """The environment ansible-playbook and the SDK script run in."""
    config = workspace / 'ansible.cfg'  # none of the caller's: ~/.ansible.cfg, /etc/ansible
    config.write_text('# tests/ansible/playbook.py: settings are in the environment\n')
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(('OS_', 'ANSIBLE_'))}
    env.update(
        OS_CLIENT_CONFIG_FILE=str(clouds_yaml),
        XDG_CONFIG_HOME=str(workspace / 'xdg-config'),
        XDG_CACHE_HOME=str(workspace / 'xdg-cache'),
        ANSIBLE_HOME=str(workspace / 'ansible-home'),
        ANSIBLE_LOCAL_TEMP=str(workspace / 'ansible-tmp'),
        ANSIBLE_REMOTE_TEMP=str(workspace / 'ansible-tmp'),
        ANSIBLE_CONFIG=str(config),
        ANSIBLE_CALLBACK_PLUGINS=str(HERE / 'callback_plugins'),
        ANSIBLE_CALLBACKS_ENABLED='provisioner_record',
        ANSIBLE_LOCALHOST_WARNING='false',
        ANSIBLE_INVENTORY_UNPARSED_WARNING='false',
        ANSIBLE_RETRY_FILES_ENABLED='false',
        ANSIBLE_NOCOLOR='1',
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
        PYTHONWARNINGS='ignore')
    return env


@dataclasses.dataclass
class PlaybookRun:
    """One ansible-playbook run: what it printed is in log, each task in results."""
    label: str
    playbook: str
    code: int
    seconds: float
    results: list
    stats: dict
    log: pathlib.Path

    @property
    def failures(self):
        return [r for r in self.results if r['status'] in FAILED]

    def problems(self, idempotent):
        """What is wrong with this run: its failures, and with idempotent, anything
        it changed (the recap's counts, as a user reads them)."""
        found = ['%s: task "%s" (%s)%s failed: %s' % (
            self.label, r['task'], r['action'],
            ' item %s' % r['item'] if 'item' in r else '', first_line(r.get('msg')))
            for r in self.failures]
        if not self.stats:  # with keep_going, failures are in the record only
            found.append('%s: no recap recorded by the provisioner_record callback '
                         '(see %s)' % (self.label, self.log))
        elif not found and any(self.stats.get(key) for key in (
                'failures', 'unreachable', 'ignored')):
            found.append('%s: the recap counts failures the record lacks: %s (see %s)'
                         % (self.label, self.recap(), self.log))
        if self.code != 0 and not found:
            found.append('%s: ansible-playbook exited %d%s (see %s)' % (
                self.label, self.code, ', killed after %d s' % TIMEOUT
                if self.code == -9 else '', self.log))
        if idempotent and self.stats.get('changed'):
            changed = [r['task'] for r in self.results if r['status'] == 'changed']
            found.append('%s: changed=%d, expected 0 (%s)' % (
                self.label, self.stats['changed'], '; '.join(changed)))
        return found

    def recap(self):
        counts = ' '.join('%s=%s' % (key, self.stats.get(key, '?')) for key in (
            'ok', 'changed', 'unreachable', 'failures', 'skipped', 'ignored'))
        return '%s: %s (exit %d, %.0f s)' % (self.label, counts, self.code,
                                             self.seconds)


def first_line(text):
    text = str(text or '').strip()
    return text.splitlines()[0] if text else '(no message)'


def run(playbook, label, variables_file, env, workspace, output):
    """ansible-playbook PLAYBOOK, its output shown and kept in output/<label>.log."""
    slug = label.replace(' ', '-')
    record = output / ('%s.jsonl' % slug)
    log = output / ('%s.log' % slug)
    for path in (record, log):
        path.unlink(missing_ok=True)
    program = pathlib.Path(sys.executable).parent / 'ansible-playbook'
    started = time.monotonic()
    print('== %s: ansible-playbook %s' % (label, playbook), flush=True)
    with open(log, 'w') as kept:
        proc = subprocess.Popen(
            [str(program), str(HERE / playbook), '-e', '@%s' % variables_file],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=dict(env, PROVISIONER_ANSIBLE_RECORD=str(record)), cwd=workspace)
        watchdog = threading.Timer(TIMEOUT, proc.kill)
        watchdog.start()
        try:
            for line in proc.stdout:
                sys.stdout.write(line)
                kept.write(line)
            code = proc.wait()
        finally:
            watchdog.cancel()
    seconds = time.monotonic() - started
    lines = ([json.loads(line) for line in record.read_text().splitlines()]
             if record.exists() else [])
    results = [line for line in lines if line['event'] == 'result']
    stats = [line['hosts'] for line in lines if line['event'] == 'stats']
    return PlaybookRun(label, playbook, code, seconds, results,
                       stats[-1].get('localhost', {}) if stats else {}, log)
