"""An Ansible callback: each task's outcome, one JSON object a line, for the harness.

Enabled by python -m tests.ansible (ANSIBLE_CALLBACKS_ENABLED), beside the usual
screen output; writes to $PROVISIONER_ANSIBLE_RECORD. A line per task result:
{"event": "result", "task", "action" (the module), "status" (ok, changed, failed,
skipped, unreachable), "item" (a loop's label), "msg", "started", "ended"} (times:
seconds since the epoch, to find the API requests a task made); and one "stats"
line per playbook run, the recap's counts of localhost.
"""

import json
import os
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = '''
    name: provisioner_record
    type: aggregate
    short_description: each task's outcome as JSON lines, for tests/ansible
    description: Writes each task result and the recap to $PROVISIONER_ANSIBLE_RECORD.
'''

# Result keys that say why a task failed; nothing else of a result is kept (a
# registered server carries its admin password).
_WHY = ('msg', 'exception', 'stderr', 'extra_data')


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'provisioner_record'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self._path = os.environ.get('PROVISIONER_ANSIBLE_RECORD')
        self._started = {}

    def _write(self, record):
        if self._path:
            with open(self._path, 'a') as out:
                out.write(json.dumps(record, default=str) + '\n')

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._started[task._uuid] = time.time()

    def v2_runner_item_on_ok(self, result):
        self._result(result, 'changed' if result._result.get('changed') else 'ok')

    def v2_runner_item_on_failed(self, result):
        self._result(result, 'failed')

    def _result(self, result, status):
        task = result._task
        outcome = result._result
        record = {'event': 'result', 'task': task.get_name(), 'action': task.action,
                  'status': status, 'started': self._started.get(task._uuid),
                  'ended': time.time()}
        if 'item' in outcome or '_ansible_item_label' in outcome:
            record['item'] = outcome.get('_ansible_item_label', outcome.get('item'))
        for key in _WHY:
            if outcome.get(key):
                record[key] = outcome[key]
        if outcome.get('assertion'):  # which condition of an assert was false
            record['msg'] = '%s: %s' % (outcome.get('msg'), outcome['assertion'])
        self._write(record)

    def v2_runner_on_ok(self, result):
        if 'results' in result._result:  # a loop: its items were recorded
            return
        self._result(result, 'changed' if result._result.get('changed') else 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        if 'results' in result._result:  # a loop: each failed item was recorded
            return
        self._result(result, 'failed')

    def v2_runner_on_skipped(self, result):
        self._result(result, 'skipped')

    def v2_runner_on_unreachable(self, result):
        self._result(result, 'unreachable')

    def v2_playbook_on_stats(self, stats):
        self._write({'event': 'stats', 'hosts': {
            host: stats.summarize(host) for host in sorted(stats.processed)}})
