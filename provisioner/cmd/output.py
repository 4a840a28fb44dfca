"""Printing results: aligned tables for people, JSON for scripts (--format json)."""

import json
import sys


def _cell(value):
    if value is None:
        return '-'
    if isinstance(value, list):
        return ', '.join(_cell(v) for v in value) or '-'
    if isinstance(value, dict):
        return ' '.join('%s=%s' % (k, _cell(v)) for k, v in value.items())
    return str(value)


def table(rows, columns, out=None):
    out = out or sys.stdout
    cells = [[_cell(row.get(col)) for col in columns] for row in rows]
    widths = [max([len(col)] + [len(r[i]) for r in cells]) for i, col in enumerate(columns)]
    line = '  '.join(col.upper().ljust(w) for col, w in zip(columns, widths))
    print(line.rstrip(), file=out)
    for r in cells:
        print('  '.join(c.ljust(w) for c, w in zip(r, widths)).rstrip(), file=out)


def fields(record, skip=(), out=None):
    out = out or sys.stdout
    width = max(len(k) for k in record)
    for key, value in record.items():
        if key not in skip:
            print('%s  %s' % (key.ljust(width), _cell(value)), file=out)


def timeline(events, out=None):
    out = out or sys.stdout
    if not events:
        return
    print('\nSteps:', file=out)
    width = max(len(e['name']) for e in events)
    for e in events:
        duration = '%.2fs' % e['duration'] if e['duration'] is not None else 'running'
        result = e['result'] or '-'
        line = '  %s  %-11s  %8s  %s' % (e['name'].ljust(width), result, duration,
                                        e['started_at'])
        if e['message']:
            line += '  ' + e['message']
        print(line, file=out)


def emit(data, fmt, columns=None, out=None):
    """Print a list (as a table) or a record (as fields), or JSON of either."""
    out = out or sys.stdout
    if fmt == 'json':
        json.dump(data, out, indent=2, sort_keys=True, default=str)
        print(file=out)
    elif isinstance(data, list):
        table(data, columns or (sorted(data[0]) if data else ['id']), out)
    else:
        fields(data, skip=('events',), out=out)
        timeline(data.get('events'), out)


class StepPrinter:
    """Shows each step of a running flow as it finishes, with its duration."""

    def __init__(self, out=None):
        self._out = out or sys.stdout

    def __call__(self, event):
        if not event.finished:
            return
        mark = {'Success': 'ok', 'Error': 'FAILED'}.get(event.result, event.result)
        duration = '%.2fs' % event.duration if event.duration is not None else ''
        line = '  %-36s %-6s %7s' % (event.name, mark, duration)
        if event.message:
            line += '  ' + event.message
        print(line.rstrip(), file=self._out, flush=True)
