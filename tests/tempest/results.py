"""A tempest run's subunit stream, read back: every test's status, per-service counts.

``python -m tests.tempest.results RUN.subunit [--listed LIST] [--failures [--log
tempest.log]] [--json OUT]`` prints the counts and the failures (what each raised,
and the last request that failed) of a saved run; ``--json`` writes what
tests/tempest/baseline/ keeps of the baseline (``api.json``, ``interop.json``).
"""

import argparse
import collections
import json
import lzma
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
    stream, xz-compressed if its name ends in .xz (the last status of a test wins)."""
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

    with (lzma.open if str(path).endswith('.xz') else open)(path, 'rb') as stream:
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


def by_listed(tests, listed):
    """Each listed test's outcome: its own, else its class's (tempest reports a class
    skipped or failed in setUpClass once, as ``setUpClass (module.Class)``), else
    'not run'. Counts of these are per test as listed, the measure issue 24 takes."""
    classes = {}
    for test_id, test in tests.items():
        match = _CLASS_FIXTURE.match(test_id)
        if match and test['status'] in ('skip', 'fail'):
            classes.setdefault(match.group('cls'), test)
    outcome = {}
    for test_id in listed:
        if test_id in tests:
            outcome[test_id] = tests[test_id]
        else:
            cls = test_id.split('[', 1)[0].rsplit('.', 1)[0]
            outcome[test_id] = classes.get(cls, {'status': 'not run', 'details': {}})
    return outcome


_MICROVERSION = re.compile(r"'(?:X-OpenStack-Nova-API-Version|OpenStack-API-Version)': "
                           r"'(?:\w+ )?(?P<version>[\d.]+)'")
_REQUEST = re.compile(r'Request \((?P<caller>[^)]*)\): (?P<status>\d+) '
                      r'(?P<method>[A-Z]+) (?P<url>\S+)')


def requests_by_caller(log_path):
    """{"Class:method": [[status, "METHOD /path", request body, response body,
    microversion asked or None]]} from tempest.log, in order (tempest logs each
    request under the test that made it)."""
    found = collections.defaultdict(list)
    current = None
    with open(log_path, errors='replace') as log:
        for line in log:
            match = _REQUEST.search(line)
            if match:
                path = re.sub(r'^https?://[^/]+', '', match.group('url'))
                current = [int(match.group('status')),
                           '%s %s' % (match.group('method'), path), None, None, None]
                found[match.group('caller')].append(current)
            elif current is not None and 'Request - Headers' in line:
                version = _MICROVERSION.search(line)
                current[4] = version.group('version') if version else None
            elif current is not None and line.strip().startswith('Body:'):
                body = re.sub(r' _log_request_full \S+$', '', line.strip()[5:].strip())
                if current[2] is None:
                    current[2] = body
                elif current[3] is None:
                    current[3] = body
    return found


def caller_of(test_id):
    """tempest's "Class:method" label of a test id (setUpClass for class fixtures)."""
    match = _CLASS_FIXTURE.match(test_id)
    if match:
        return '%s:setUpClass' % match.group('cls').rsplit('.', 1)[1]
    cls, method = test_id.split('[', 1)[0].rsplit('.', 2)[1:]
    return '%s:%s' % (cls, method)


def failed_request(requests, test_id):
    """The last request answered 4xx/5xx of the test (else of its setUp; else its
    last request), as 'STATUS METHOD /path body -> response body'; None if it made
    none. (Its cleanups are left out: their 404s are waiters seeing a delete end.)"""
    caller = caller_of(test_id)
    cls = caller.split(':', 1)[0]
    # A test's own setUp is logged under its own name.
    made = [requests.get(name, []) for name in (caller, cls + ':setUp')]
    chosen = next(([r for r in m if r[0] >= 400][-1:] for m in made
                   if any(r[0] >= 400 for r in m)), made[0][-1:])
    if not chosen:
        return None
    status, request, sent, answer, version = chosen[0]
    return '%d %s%s%s -> %s' % (status, request,
                                ' (microversion %s)' % version if version else '',
                              ' %s' % sent[:200] if sent and sent != 'None' else '',
                              (answer or '')[:300])


def reason(test):
    """A skip's reason, or what a failure raised: the exception and its message (for
    a response that failed tempest's schema, the rule and the place it broke)."""
    details = test['details']
    if test['status'] == 'skip':
        return details.get('reason', '').strip()
    text = details.get('traceback') or '\n'.join(details.values())
    lines = text.strip().splitlines()
    if 'InvalidHTTPResponseBody' in text:
        keep = []
        for prefix in ('Details:', 'Failed validating', 'On instance'):
            keep += [line.strip() for line in lines if line.startswith(prefix)][:1]
        return 'response schema: ' + ' | '.join(keep)
    last_frame = max((n for n, line in enumerate(lines)
                      if line.lstrip().startswith('File "')), default=-2)
    return '\n'.join(line for line in lines[last_frame + 2:] if line.strip())[:1500]


# A password in a request body a traceback quotes, JSON-escaped or not.
_PASSWORD = re.compile(r'((?:password|adminPass)\\?["\']?\s*:\s*\\?["\'])[^"\'\\]*', re.I)


def compact(test_id, test, requests):
    """A test's outcome as the baseline keeps it: status, reason, failed request."""
    kept = {'status': test['status']}
    if test['status'] in ('skip', 'fail'):
        kept['reason'] = _PASSWORD.sub(r'\1***', reason(test))
    if test['status'] == 'fail' and requests:
        request = failed_request(requests, test_id)
        kept['request'] = _PASSWORD.sub(r'\1***', request) if request else None
    return kept


def summary(tests):
    """Counts per service, one test a row of ``tests`` ({id: {"status"...}})."""
    lines = ['%-10s %6s %6s %6s %6s %7s' % ('service', 'tests', 'pass', 'fail', 'skip',
                                            'not run')]
    table = counts(tests)
    for service in SERVICES + ('other', 'all'):
        got = table.get(service)
        if not got:
            continue
        lines.append('%-10s %6d %6d %6d %6d %7d' % (
            service, sum(got.values()), got['success'], got['fail'], got['skip'],
            got['not run']))
    return '\n'.join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(prog='python -m tests.tempest.results',
                                     description=__doc__)
    parser.add_argument('subunit')
    parser.add_argument('--listed', help='the run\'s list of tests (tempest run '
                        '--list-tests): count per listed test, a class\'s outcome for '
                        'each of its tests')
    parser.add_argument('--json', help='also write every test\'s status, what it raised '
                        'or why it was skipped, and (with --log) its last failed request, '
                        'passwords masked')
    parser.add_argument('--failures', action='store_true',
                        help='print each failure with the end of its traceback')
    parser.add_argument('--log', help='the run\'s tempest.log: also print each '
                        'failure\'s last failed request')
    args = parser.parse_args(argv)
    tests = read(args.subunit)
    print(summary(tests))
    if args.listed:
        with open(args.listed) as listed:
            print('\nper listed test:\n' + summary(by_listed(
                tests, [line.strip() for line in listed if line.strip()])))
    requests = requests_by_caller(args.log) if args.log else {}
    if args.failures:
        for test_id in sorted(t for t in tests if tests[t]['status'] == 'fail'):
            print('\nFAIL %s' % test_id)
            if args.log:
                print('  request: %s' % failed_request(requests, test_id))
            print(reason(tests[test_id]))
    if args.json:
        with open(args.json, 'w') as out:
            json.dump({test_id: compact(test_id, test, requests)
                       for test_id, test in tests.items()}, out, indent=1, sort_keys=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
