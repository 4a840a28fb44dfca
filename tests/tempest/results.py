"""A tempest run's subunit stream, read back: every test's status, per-service counts.

``python -m tests.tempest.results RUN.subunit [--json OUT]`` prints the counts and the
failures (with the end of each traceback) of a saved run.
"""

import argparse
import collections
import json
import re
import sys

SERVICES = ('compute', 'image', 'network', 'volume', 'identity')
# tempest's class-level failures (setUpClass) are reported under these ids.
_CLASS_FIXTURE = re.compile(r'^(setUpClass|tearDownClass) \((?P<cls>[\w.]+)\)$')


def service_of(test_id):
    """'compute' for tempest.api.compute...; 'other' for anything else."""
    parts = test_id.split('.')
    if len(parts) > 2 and parts[:2] == ['tempest', 'api'] and parts[2] in SERVICES:
        return parts[2]
    match = _CLASS_FIXTURE.match(test_id)
    return service_of(match.group('cls')) if match else 'other'


def idempotent_id(test_id):
    """The uuid of ``[id-<uuid>,...]`` in a tempest test id, else None."""
    match = re.search(r'\bid-([0-9a-f-]{36})\b', test_id)
    return match.group(1) if match else None


def read(path):
    """{test id: {"status", "details": {name: text}, "duration"}} from a subunit v2
    stream (the last status of a test wins)."""
    import subunit
    import testtools

    tests = {}

    def on_test(test):
        start, stop = test['timestamps']
        details = {}
        for name, content in test['details'].items():
            try:
                details[name] = content.as_text()
            except Exception:  # a binary attachment: its name is enough
                details[name] = '(%s)' % content.content_type
        tests[test['id']] = {
            'status': test['status'],
            'details': details,
            'duration': (stop - start).total_seconds() if start and stop else None}

    with open(path, 'rb') as stream:
        result = testtools.StreamToDict(on_test)
        result.startTestRun()
        subunit.ByteStreamToStreamResult(stream, non_subunit_name='stdout').run(result)
        result.stopTestRun()
    return tests


def counts(tests):
    """{service: Counter(status)} and the totals under 'all'."""
    by_service = collections.defaultdict(collections.Counter)
    for test_id, test in tests.items():
        by_service[service_of(test_id)][test['status']] += 1
        by_service['all'][test['status']] += 1
    return by_service


def reason(test):
    """A skip's reason, or the last lines of a failure's traceback."""
    details = test['details']
    if test['status'] == 'skip':
        return details.get('reason', '').strip()
    text = details.get('traceback', '') or '\n'.join(details.values())
    return '\n'.join(text.strip().splitlines()[-6:])


def summary(tests):
    lines = ['%-10s %6s %6s %6s %6s' % ('service', 'listed', 'pass', 'fail', 'skip')]
    table = counts(tests)
    for service in SERVICES + ('other', 'all'):
        got = table.get(service)
        if not got:
            continue
        lines.append('%-10s %6d %6d %6d %6d' % (
            service, sum(got.values()), got['success'], got['fail'], got['skip']))
    return '\n'.join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog='python -m tests.tempest.results',
                                     description=__doc__)
    parser.add_argument('subunit')
    parser.add_argument('--json', help='also write every test\'s status and details')
    parser.add_argument('--failures', action='store_true',
                        help='print each failure with the end of its traceback')
    args = parser.parse_args(argv)
    tests = read(args.subunit)
    print(summary(tests))
    if args.failures:
        for test_id in sorted(t for t in tests if tests[t]['status'] == 'fail'):
            print('\nFAIL %s\n%s' % (test_id, reason(tests[test_id])))
    if args.json:
        with open(args.json, 'w') as out:
            json.dump(tests, out, indent=1, sort_keys=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
