"""results.json of a run as Markdown tables, for BASELINE.md.

    python -m tests.ansible.report build/ansible/results.json

One table per playbook run and one for the SDK script: each task or step, its
outcome and, for a failure, its error and the request behind it (what openstacksdk
sent and got back, else what provisioner-api logged). Cells are cut to CELL
characters; the full text is in results.json.
"""

import json
import sys

CELL = 300


def cell(text, size=CELL):
    text = ' '.join(str(text or '').split()).replace('|', '\\|')
    return text if len(text) <= size else text[:size] + '...'


def rows(entries, name_key, what_key, error_key):
    yield '| # | %s | %s | outcome | error | request -> response |' % (
        name_key, what_key)
    yield '|---|---|---|---|---|---|'
    for number, entry in enumerate(entries, 1):
        name = entry[name_key] + (' [%s]' % entry['item'] if 'item' in entry else '')
        failed = entry['status'] in ('failed', 'fail', 'unreachable')
        yield '| %d | %s | %s | %s | %s | %s |' % (
            number, cell(name), cell(entry.get(what_key)), entry['status'],
            cell(entry.get(error_key)) if failed else '',
            cell(entry.get('sdk request') or entry.get('api request')) if failed
            else '')


def render(report):
    out = []
    for run in report['playbook runs']:
        recap = ' '.join('%s=%s' % (k, run['recap'].get(k)) for k in (
            'ok', 'changed', 'failures', 'ignored', 'skipped'))
        out += ['### %s (%s): %s, %d s' % (run['label'], run['playbook'], recap,
                                           run['seconds']), '']
        out += list(rows(run['tasks'], 'task', 'action', 'msg')) + ['']
    if report['sdk steps']:
        steps = report['sdk steps']
        counts = ', '.join('%d %s' % (sum(s['status'] == k for s in steps), k)
                           for k in ('pass', 'fail', 'skip'))
        out += ['### openstacksdk cloud layer: %s, %s s' % (
            counts, report['durations'].get('sdk')), '']
        out += list(rows(steps, 'step', 'calls', 'error')) + ['']
    return '\n'.join(out)


if __name__ == '__main__':
    with open(sys.argv[1]) as results:
        print(render(json.load(results)))
