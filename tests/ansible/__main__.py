"""Ansible's openstack.cloud and openstacksdk's cloud layer against a private
provisioner-api all-in-one (``tox -e ansible``).

    python -m tests.ansible [all|playbook|sdk] [--keep-going] [--sdk-python PYTHON]
                            [--output DIR]

playbook: site.yml twice (the second run must report changed=0, failed=0), then
teardown.yml twice (likewise); then nothing may be left. sdk: tests/ansible/
sdk_cloud.py (openstacksdk's cloud layer, create to delete); then nothing may be
left. all (default): both, in that order, on one deployment.

--keep-going: a failed task does not stop its play (the playbooks' keep_going), so
that one run lists every task that fails, for a baseline. --sdk-python: run the SDK
script with another interpreter (another openstacksdk), e.g. .tox/functional/bin/python.

Each failed task or step is printed with its module, its error, the last request
provisioner-api logged while it ran and, from openstacksdk's HTTP log, what was
sent (method, path, microversion, body) and answered. Results go to --output
($PROVISIONER_TEST_OUTPUT_DIR/ansible, default build/ansible): each run's output
and JSON lines, openstacksdk's HTTP logs, results.json, provisioner-api.log.

Exit status 1 on any failure, any change in a second run, or anything left behind
(rows of the database beyond the admin and demo users and projects, a `provisioner
audit` finding, a libvirt domain, network or pool of the deployment).
"""

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

from tests.ansible import cloud as ansible_cloud
from tests.ansible import evidence
from tests.ansible import playbook
from tests.functional import conftest as base
from tests.functional.api import conftest as api_conftest

HERE = pathlib.Path(__file__).resolve().parent


def parse(argv):
    parser = argparse.ArgumentParser(prog='python -m tests.ansible', description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('part', nargs='?', default='all',
                        choices=('all', 'playbook', 'sdk'))
    parser.add_argument('--keep-going', action='store_true',
                        help='a failed task does not stop its play (for a baseline)')
    parser.add_argument('--sdk-python', default=sys.executable,
                        help='the Python that runs the SDK script (its openstacksdk)')
    parser.add_argument('--output', type=pathlib.Path,
                        default=pathlib.Path(os.environ.get(
                            'PROVISIONER_TEST_OUTPUT_DIR', 'build')) / 'ansible')
    args = parser.parse_args(argv)
    # Absolute: ansible-playbook and its modules run in the workspace.
    args.output = args.output.resolve()
    return args


def public_key(path):
    """A fresh ed25519 public key in OpenSSH format, written to path."""
    from cryptography.hazmat.primitives.asymmetric import ed25519
    from cryptography.hazmat.primitives import serialization
    key = ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    path.write_text(key.decode() + ' ansible@provisioner\n')
    return path


class Harness:
    """One run: the deployment, the parts run against it, what each found."""

    def __init__(self, args, cloud, workspace):
        self.args = args
        self.cloud = cloud
        self.workspace = workspace
        self.output = args.output
        self.problems = []
        self.report = {'playbook runs': [], 'sdk steps': [], 'durations': {}}
        self.checked = True  # whether what the parts left has been looked for
        self.seen = set()  # what they left, as reported

    def prepare(self):
        clouds_yaml = self.cloud.prepare()
        self.env = playbook.environment(self.workspace, clouds_yaml)
        self.variables = {
            'admin_cloud': ansible_cloud.ADMIN_CLOUD,
            'demo_cloud': ansible_cloud.DEMO_CLOUD,
            'guest_disk': str(base.build_guest_image()[2]),
            'cidr': self.cloud.cidr,
            'public_key_file': str(public_key(self.workspace / 'id_ed25519.pub')),
            'keep_going': self.args.keep_going,
        }

    # -- the parts --------------------------------------------------------------------

    def playbooks(self):
        self.checked = False
        sdk_log = self.output / 'sdk-http-playbooks.log'
        sdk_log.unlink(missing_ok=True)
        variables = self.workspace / 'vars.json'
        variables.write_text(json.dumps(dict(self.variables, sdk_log=str(sdk_log))))
        for name, label, idempotent in (
                ('site.yml', 'site 1', False), ('site.yml', 'site 2', True),
                ('teardown.yml', 'teardown 1', False),
                ('teardown.yml', 'teardown 2', True)):
            if label == 'site 2' and self.problems and not self.args.keep_going:
                print('== site 2 not run: the first run failed', flush=True)
                continue
            done = playbook.run(name, label, variables, self.env, self.workspace,
                                self.output)
            self.problems += done.problems(idempotent)
            self.report['playbook runs'].append(self._explain_run(done, sdk_log))
            self.report['durations'][label] = round(done.seconds)
        self._check_left('the playbooks')

    def sdk(self):
        self.checked = False
        log = self.output / 'sdk-http-script.log'
        record = self.output / 'sdk-script.jsonl'
        for path in (log, record):
            path.unlink(missing_ok=True)
        variables = self.variables
        started = time.monotonic()
        print('== openstacksdk cloud layer (%s)' % self.args.sdk_python, flush=True)
        try:
            code = subprocess.run(
                [self.args.sdk_python, '-m', 'tests.ansible.sdk_cloud',
                 '--admin-cloud', variables['admin_cloud'],
                 '--demo-cloud', variables['demo_cloud'],
                 '--disk', variables['guest_disk'], '--cidr', variables['cidr'],
                 '--public-key-file', variables['public_key_file'],
                 '--log', str(log), '--record', str(record)],
                env=self.env, cwd=base.REPO, timeout=playbook.TIMEOUT).returncode
        except subprocess.TimeoutExpired:
            code = 'killed after %d s' % playbook.TIMEOUT
        self.report['durations']['sdk'] = round(time.monotonic() - started)
        steps = ([json.loads(line) for line in record.read_text().splitlines()]
                 if record.exists() else [])
        for step in steps:
            self.report['sdk steps'].append(self._explain(step, log))
            if step['status'] == 'fail':
                self.problems.append('sdk step "%s" (%s) failed: %s'
                                     % (step['step'], step['calls'], step['error']))
        if code != 0 and not any(s['status'] == 'fail' for s in steps):
            self.problems.append('the SDK script exited %s' % code)
        self._check_left('the SDK script')

    # -- what went wrong, and its evidence --------------------------------------------

    def _explain_run(self, done, sdk_log):
        print(done.recap(), flush=True)
        return {'label': done.label, 'playbook': done.playbook, 'exit': done.code,
                'seconds': round(done.seconds), 'recap': done.stats,
                'tasks': [self._explain(r, sdk_log) for r in done.results]}

    def _explain(self, result, sdk_log):
        """A task's or step's record, with, when it failed, the requests behind it
        (also printed)."""
        explained = dict(result)
        if result['status'] not in ('failed', 'fail', 'unreachable'):
            return explained
        window = (result.get('started') or result['ended'], result['ended'])
        log = self.cloud.api_log_text()
        api = evidence.failing(evidence.within(evidence.api_requests(log), *window))
        sent = evidence.failing(evidence.within(evidence.exchanges(
            sdk_log.read_text(errors='replace') if sdk_log.exists() else ''), *window))
        after = evidence.aftermath(log, api.request_id) if api else []
        explained['api request'] = api.describe(None) if api else None
        explained['sdk request'] = sent.describe(None) if sent else None
        explained['api log after'] = after
        what = result.get('action', result.get('calls'))
        print('\nFAILED: %s (%s)%s\n  error: %s\n  provisioner-api: %s%s\n  sent: %s\n'
              % (result.get('task', result.get('step')), what,
                 ' item %s' % result['item'] if 'item' in result else '',
                 playbook.first_line(result.get('msg', result.get('error'))),
                 api.describe() if api else '(no request while it ran)',
                 ''.join('\n    then: %s' % line for line in after),
                 sent.describe() if sent else '(none logged)'), flush=True)
        return explained

    def _check_left(self, part):
        """What the database holds beyond the two users and their projects, each
        item said once: by the part after which it was first seen."""
        left = [item for item in self.cloud.left_behind() if item not in self.seen]
        self.seen.update(left)
        for item in left:
            print('LEFT BEHIND by %s: %s' % (part, item), file=sys.stderr)
        self.problems += ['left behind by %s: %s' % (part, item) for item in left]
        self.checked = True


def clear(output):
    """Remove a previous run's files from output (only this harness's)."""
    output.mkdir(parents=True, exist_ok=True)
    for pattern in ('site-*', 'teardown-*', 'sdk-*', 'results.json',
                    'provisioner-api.log'):
        for path in output.glob(pattern):
            path.unlink()


def main(argv=None):
    args = parse(argv)
    started = time.monotonic()
    clear(args.output)
    workspace = pathlib.Path(tempfile.mkdtemp(prefix='provisioner-ansible-'))
    root = api_conftest.new_root('ansible')
    try:
        cloud = ansible_cloud.AnsibleCloud(root, workspace)
    except BaseException:
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(workspace, ignore_errors=True)
        raise
    harness = Harness(args, cloud, workspace)
    left = []
    try:
        harness.prepare()
        print('provisioner-api at %s ready in %.0f s' % (cloud.url,
                                                        time.monotonic() - started))
        if args.part in ('all', 'playbook'):
            harness.playbooks()
        if args.part in ('all', 'sdk'):
            harness.sdk()
    finally:
        try:
            left = cloud.take_down(list if harness.checked else cloud.left_behind)
        finally:
            cloud.dispose(args.output)
            shutil.rmtree(workspace, ignore_errors=True)
    problems = harness.problems + left
    harness.report['durations']['all'] = round(time.monotonic() - started)
    harness.report['problems'] = problems
    (args.output / 'results.json').write_text(json.dumps(harness.report, indent=1))
    print('\n%d problem(s):' % len(problems) if problems else '\nno problem')
    for problem in problems:
        print('  %s' % problem)
    print('tests.ansible %s: %.0f s in all; results in %s'
          % (args.part, time.monotonic() - started, args.output))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
